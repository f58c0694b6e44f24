package pipeline

import (
	"fmt"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/stepid"
)

// ReviewOutcome is what `novel-agent pipeline review` did.
type ReviewOutcome struct {
	Volume int    `json:"volume"`
	Action string `json:"action"` // written, reused
	Review string `json:"review"`
}

// Review writes and commits the review of volume v (SPEC §23, make …
// review V=…) the way Volume plans one: a staged review that already
// commits is kept; otherwise the packet (with its write-boundary snapshot)
// is written, the executor runs, novel-commit volume-review --dry-run
// checks what it staged, and a failed attempt is retried once; then the
// review is committed (VOL_PLANNING for volume v+1). A staged review that
// does not commit (the author's) stops the run and stays as it is unless
// redo sets it aside first (staged.go).
func (e *Env) Review(v int, agentCmd string, redo bool) (*ReviewOutcome, error) {
	vv := layout.PadVol(v)
	label := "[第" + vv + "卷] review"
	out := &ReviewOutcome{Volume: v, Action: "reused", Review: layout.VolumeReview(v)}
	check := func() (*errs.Error, error) {
		res, err := e.toolQuiet("novel-commit", "volume-review", "--volume", vv, "--dry-run")
		if err != nil || res.Exit == 0 {
			return nil, err
		}
		return res.Err, nil
	}
	failure, err := check()
	if err != nil {
		return nil, err
	}
	write := failure != nil
	if (write || redo) && e.Root.Exists(layout.StagingVolumeReview(v)) {
		if !redo {
			return nil, e.keepStaged(label, layout.StagingVolumeReview(v), failure)
		}
		if err := e.redoAside(label, []string{layout.StagingVolumeReview(v)}); err != nil {
			return nil, err
		}
		write = true
	}
	if write {
		out.Action = "written"
		if failure, err = e.writeReview(v, agentCmd, label, check); err != nil {
			return nil, err
		}
		if failure != nil {
			return nil, failure
		}
	} else {
		fmt.Fprintf(e.Stderr, "%s ✓ 已有暂存的回顾，直接提交 / a staged review is committed as it is\n", label)
	}
	if _, err := e.must("novel-commit", "volume-review", "--volume", vv); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.Stderr, "%s commit ✓ 下一步：make -f pipeline.mk volume V=%d\n", label, v+1)
	return out, nil
}

// writeReview runs the planner in review mode at most twice; a staged
// review that does not commit is removed before the retry.
func (e *Env) writeReview(v int, agentCmd, label string, check func() (*errs.Error, error)) (*errs.Error, error) {
	st := stepid.Step{Volume: true, Number: v, Stage: stepid.Review}
	pk, packet, err := e.writePacket(layout.VolumeStepPacket(v, stepid.Review), st.String())
	if err != nil {
		return nil, err
	}
	var failure *errs.Error
	for attempt := 1; attempt <= 2; attempt++ {
		start := time.Now()
		run, err := e.beginStep(st.String(), pk.Agent.Mode, attempt)
		if err != nil {
			return nil, err
		}
		exit, _, tail, err := run.execute(agentCmd, packet, label)
		if err != nil {
			return nil, err
		}
		if exit != 0 {
			failure = executorFailure(exit, tail)
		} else {
			failure, err = check()
		}
		if err := run.finish(failure, err); err != nil {
			return nil, err
		}
		if failure == nil {
			secs := time.Since(start).Seconds()
			if e.Clock.Fixed() {
				secs = 0
			}
			fmt.Fprintf(e.Stderr, "%s ✓ %.0fs\n", label, secs)
			return nil, nil
		}
		fmt.Fprintf(e.Stderr, "%s ✗ 第 %d 次尝试失败 / attempt %d failed: %s\n", label, attempt, attempt, failure.Message("zh"))
		if err := e.Root.Remove(layout.StagingVolumeReview(v)); err != nil {
			return nil, err
		}
	}
	return failure, nil
}
