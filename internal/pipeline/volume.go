package pipeline

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volumeplan"
)

// VolumeOutcome is what `novel-agent pipeline volume` prints.
type VolumeOutcome struct {
	Volume int                `json:"volume"`
	Action string             `json:"action"` // planned, reused
	Runs   int                `json:"agent_runs"`
	Commit *volumeplan.Result `json:"commit"`
}

// VolumePlan is the read-only view `make -n … volume` prints: the
// commands the helper runs, in order.
type VolumePlan struct {
	Volume   int      `json:"volume"`
	Commands []string `json:"commands"`
}

// PlanVolume lists what Volume would run for volume v (it runs nothing).
func PlanVolume(v int) *VolumePlan {
	vv := layout.PadVol(v)
	return &VolumePlan{Volume: v, Commands: []string{
		"novel-commit volume --volume " + vv + " --dry-run",
		"novel-manifest packet volume:" + vv + ":plan --write-manifest",
		"$AGENT " + layout.VolumePacket(v),
		"novel-commit volume --volume " + vv + " --dry-run",
		"novel-commit volume --volume " + vv,
	}}
}

// Volume plans volume v (SPEC §6.1, §10) the way Step runs a chapter's
// agent stage: a staged plan that already validates is committed as it
// is; otherwise the packet (with its write-boundary snapshot) is written,
// the executor runs, the staged plan is validated by novel-commit volume
// --dry-run, and a failed attempt (executor error, invalid plan, write
// outside staging/) is retried once. The checkpoint is never put into
// ERROR_RETRY: a re-run simply plans again. A plan refused twice stays in
// staging/volumes/vol-VV/ for the author, and the error is its own.
func (e *Env) Volume(v int, agentCmd string) (*VolumeOutcome, error) {
	st := volumeplan.Step(v)
	label := fmt.Sprintf("[第%s卷]", layout.PadVol(v))
	out := &VolumeOutcome{Volume: v, Action: "reused"}
	valid, err := e.volumeValid(v)
	if err != nil {
		return nil, err
	}
	if valid == nil {
		fmt.Fprintf(e.Stderr, "%s plan ✓ 已有通过校验的规划，跳过 / a staged plan already validates; not planning again\n", label)
	} else {
		out.Action = "planned"
		if err := e.removeTree(layout.StagingVolumeDir(v)); err != nil {
			return nil, err
		}
		raw, err := e.must("novel-manifest", "packet", st.String(), "--write-manifest")
		if err != nil {
			return nil, err
		}
		var pk packetInfo
		if err := jsonio.Decode(raw, "novel-manifest packet", &pk); err != nil {
			return nil, err
		}
		packet := pk.WrittenManifestPath
		if packet == "" {
			packet = layout.VolumePacket(v)
		}
		if err := e.planAttempts(v, st, packet, agentCmd, label, out); err != nil {
			return nil, err
		}
	}
	raw, err := e.must("novel-commit", "volume", "--volume", layout.PadVol(v))
	if err != nil {
		return nil, err
	}
	var r volumeplan.Result
	if err := jsonio.Decode(raw, "novel-commit volume", &r); err != nil {
		return nil, err
	}
	out.Commit = &r
	fmt.Fprintf(e.Stderr, "%s commit ✓ 下一步：make -f pipeline.mk chapter\n", label)
	return out, nil
}

// planAttempts runs the planner at most twice; the staged plan of a failed
// attempt is removed before the retry, the last one is kept.
func (e *Env) planAttempts(v int, st stepid.Step, packet, agentCmd, label string, out *VolumeOutcome) error {
	var failure *errs.Error
	for attempt := 1; attempt <= 2; attempt++ {
		if attempt > 1 {
			if err := e.removeTree(layout.StagingVolumeDir(v)); err != nil {
				return err
			}
		}
		start := time.Now()
		exit, _, _, err := e.execute(agentCmd, packet, "")
		if err != nil {
			return err
		}
		out.Runs++
		if exit != 0 {
			failure = errs.Newf(errs.Agent, "卷规划 %s 重试后仍失败：执行器退出码 %d", "volume planning %s failed again after a retry: the executor exited with status %d", st.String(), exit).
				With("step", st.String()).With("packet", packet).With("exit", exit).
				Hint("检查执行器后重新运行 make -f pipeline.mk volume V="+strconv.Itoa(v),
					"check the executor, then re-run make -f pipeline.mk volume V="+strconv.Itoa(v))
			fmt.Fprintf(e.Stderr, "%s plan ✗ 第 %d 次执行失败 / attempt %d failed: 执行器退出码 %d\n", label, attempt, attempt, exit)
			continue
		}
		fmt.Fprintf(e.Stderr, "%s plan ✓ %ss\n", label, e.wholeSeconds(start))
		if failure, err = e.volumeValid(v); err != nil || failure == nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s validate ✗ 第 %d 次的规划未通过校验 / attempt %d's plan was refused: %s\n", label, attempt, attempt, failure.Message("zh"))
	}
	return failure
}

// volumeValid asks novel-commit volume --dry-run whether the staged plan
// (or an interrupted commit's journal) can be committed. A refusal of the
// plan itself (exit 1) is returned as the failure; one that is not about
// the plan (the orchestrator state, the lock) is the error.
func (e *Env) volumeValid(v int) (*errs.Error, error) {
	res, err := e.toolQuiet("novel-commit", "volume", "--volume", layout.PadVol(v), "--dry-run")
	if err != nil {
		return nil, err
	}
	switch {
	case res.Exit == 0:
		return nil, nil
	case res.Exit == errs.ExitFailed && res.Err != nil:
		return res.Err, nil
	}
	return nil, res.Err
}

// wholeSeconds is the elapsed time in whole seconds (0 with a fixed clock).
func (e *Env) wholeSeconds(start time.Time) string {
	if e.Clock.Fixed() {
		return "0"
	}
	return strconv.Itoa(int(time.Since(start).Seconds()))
}

// removeTree deletes a staging directory and everything in it.
func (e *Env) removeTree(rel string) error {
	abs, err := e.Root.Abs(rel)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(abs); err != nil {
		return errs.Newf(errs.IO, "无法删除 %s：%v", "cannot remove %s: %v", rel, err).With("file", rel).Wrap(err)
	}
	return nil
}
