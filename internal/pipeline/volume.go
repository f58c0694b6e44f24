package pipeline

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volumeplan"
)

// VolumeOutcome is what `novel-agent pipeline volume` prints.
type VolumeOutcome struct {
	Volume  int                `json:"volume"`
	Action  string             `json:"action"` // planned, reused
	Runs    int                `json:"agent_runs"`
	Batches [][2]int           `json:"contract_batches"`
	Commit  *volumeplan.Result `json:"commit"`
}

// VolumeOptions are the helper's flags: the executor, the author's
// direction for the planner, and the author's approval (--approve,
// APPROVE=1): without it, and without settings.json
// volume_plan_approval "auto", a plan that validates is left staged and
// the run stops with E_AWAITING_APPROVAL (SPEC §23).
type VolumeOptions struct {
	Agent     string
	Direction string
	Approve   bool
	// Redo sets a staged plan that does not validate aside
	// (staging/replaced/redo-N/) and plans again; without it such a plan
	// stops the run and stays as it is (staged.go).
	Redo bool
}

// VolumePlan is the read-only view `make -n … volume` prints: the
// commands the helper runs, in order.
type VolumePlan struct {
	Volume   int      `json:"volume"`
	Commands []string `json:"commands"`
}

// PlanVolume lists what Volume would run for volume v (it runs nothing).
func PlanVolume(v int) *VolumePlan { return planVolume(v, false) }

// planVolume is PlanVolume; approved is a run that commits without the
// author's stop (make start's volume 1).
func planVolume(v int, approved bool) *VolumePlan {
	vv := layout.PadVol(v)
	commit := "(APPROVE=1 or volume_plan_approval \"auto\"; otherwise stop with E_AWAITING_APPROVAL) novel-commit volume --volume " + vv
	if approved {
		commit = "novel-commit volume --volume " + vv
	}
	return &VolumePlan{Volume: v, Commands: []string{
		"novel-commit volume --volume " + vv + " --dry-run",
		"novel-manifest packet volume:" + vv + ":plan --write-manifest",
		"$AGENT " + layout.VolumePacket(v),
		"novel-commit volume --volume " + vv + " --dry-run",
		"(long volumes, repeated per batch of ≤ 10 chapters) novel-manifest packet volume:" + vv + ":contracts --write-manifest; $AGENT " +
			layout.VolumeStepPacket(v, stepid.Contracts) + "; novel-commit volume --volume " + vv + " --dry-run",
		commit,
	}}
}

// Volume plans volume v with the approval rule of the project's settings.
func (e *Env) Volume(v int, agentCmd string) (*VolumeOutcome, error) {
	return e.VolumeWith(v, VolumeOptions{Agent: agentCmd})
}

// VolumeWith plans volume v (SPEC §6.1, §10, §23) the way Step runs a
// chapter's agent stage: a staged plan that already validates is reused;
// otherwise the packet (with its write-boundary snapshot) is written, the
// executor runs, the staged plan is validated by novel-commit volume
// --dry-run, and a failed attempt (executor error, invalid plan, write
// outside staging/) is retried once. A long volume's contracts then come
// in batches (volume:VV:contracts), each validated and retried the same
// way, so an interrupted run resumes at the first batch not staged. The
// checkpoint is never put into ERROR_RETRY: a re-run simply plans again.
// A plan refused twice stays in staging/volumes/vol-VV/ for the author; a
// staged plan that does not validate (refused, or broken by the author's
// edit) is never replaced: it stops the run unless o.Redo sets it aside.
// Last, the plan is committed, or the run stops for the author's approval.
func (e *Env) VolumeWith(v int, o VolumeOptions) (*VolumeOutcome, error) {
	label := fmt.Sprintf("[第%s卷]", layout.PadVol(v))
	out := &VolumeOutcome{Volume: v, Action: "reused", Batches: [][2]int{}}
	set, err := settings.Load(e.Root, e.Getenv)
	if err != nil {
		return nil, err
	}
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	t, err := manifest.VolumeTarget(e.Root, set, v, cp.LastCompleted+1)
	if err != nil {
		return nil, err
	}
	batched := t.Batched
	dry, failure, err := e.volumeValid(v)
	if err != nil {
		return nil, err
	}
	// plan: no staged plan validates (or REDO set the staged one aside; an
	// interrupted commit's journal is finished, never set aside).
	plan := failure != nil
	if plan || (o.Redo && !journal.Volume.Unfinished(e.Root, strconv.Itoa(v))) {
		staged, err := e.stagedPlan(v)
		if err != nil {
			return nil, err
		}
		if len(staged) > 0 {
			if !o.Redo {
				return nil, e.keepStaged(label, layout.StagingVolumeDir(v)+"/", failure)
			}
			if err := e.redoAside(label, staged); err != nil {
				return nil, err
			}
			plan = true
		}
	}
	if !plan && (!batched || len(dry.MissingContracts) == 0) {
		fmt.Fprintf(e.Stderr, "%s plan ✓ 已有通过校验的规划，跳过 / a staged plan already validates; not planning again\n", label)
	} else {
		out.Action = "planned"
		if plan {
			if dry, err = e.volumeStep(volumeplan.Step(v), o, label, out); err != nil {
				return nil, err
			}
		}
		for batched && len(dry.MissingContracts) > 0 {
			before := len(dry.MissingContracts)
			if dry, err = e.volumeStep(stepid.Step{Volume: true, Number: v, Stage: stepid.Contracts}, o, label, out); err != nil {
				return nil, err
			}
			if len(dry.MissingContracts) >= before {
				// An executor that exits 0 without writing its batch must
				// not make the loop spin.
				return nil, errs.Newf(errs.Agent, "卷规划 %s 的契约批次没有写出任何契约", "a contracts batch of %s wrote no contract", volumeplan.Step(v).String()).
					With("volume", v).With("missing_contracts", dry.MissingContracts).
					Hint("检查执行器是否写出了指令包要求的文件", "check that the executor writes the files the packet asks for")
			}
		}
	}
	// An interrupted commit (its journal) was approved when it started.
	if !o.Approve && set.VolumePlanApproval != settings.ApprovalAuto && !journal.Volume.Unfinished(e.Root, strconv.Itoa(v)) {
		return out, e.block(awaitingApproval(v, dry))
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

// awaitingApproval is the stop after a plan validates: the staged files
// the author reads (and may edit) before approving.
func awaitingApproval(v int, dry *volumeplan.Result) *errs.Error {
	staged := []string{}
	for _, f := range dry.Files {
		staged = append(staged, layout.Staged(f))
	}
	vv, n := layout.PadVol(v), strconv.Itoa(v)
	return errs.Newf(errs.AwaitingApproval, "第 %d 卷的规划已通过校验，等待作者审阅：第 %d–%d 章，见 %s",
		"the plan of volume %d validates and waits for the author: chapters %d–%d, in %s", v, dry.StartChapter, dry.EndChapter, layout.StagingVolumeDir(v)).
		With("volume", v).With("start_chapter", dry.StartChapter).With("end_chapter", dry.EndChapter).With("files", staged).
		Hint("审阅（可直接修改）这些暂存文件，然后运行 make -f pipeline.mk volume V="+n+" APPROVE=1（或 novel-commit volume --volume "+vv+"）提交；要重新规划，加 REDO=1 重跑（暂存的规划移到 staging/replaced/）",
			"read (and edit) the staged files, then run make -f pipeline.mk volume V="+n+" APPROVE=1 (or novel-commit volume --volume "+vv+") to commit; to plan again, re-run with REDO=1 (the staged plan moves to staging/replaced/)")
}

// volumeStep writes the packet of a volume plan or contracts step, runs
// the planner (at most twice) and returns the dry run of the staged plan.
func (e *Env) volumeStep(st stepid.Step, o VolumeOptions, label string, out *VolumeOutcome) (*volumeplan.Result, error) {
	args := []string{st.String()}
	if o.Direction != "" {
		args = append(args, "--direction", o.Direction)
	}
	pk, packet, err := e.writePacket(layout.VolumeStepPacket(st.Number, st.Stage), args...)
	if err != nil {
		return nil, err
	}
	// A failed plan attempt leaves nothing staged; a failed batch only
	// loses its own contracts, so a re-run resumes with that batch.
	clean := func() error { return e.removeTree(layout.StagingVolumeDir(st.Number)) }
	if st.Stage == stepid.Contracts {
		a, b, _ := pk.Batch()
		out.Batches = append(out.Batches, [2]int{a, b})
		label = fmt.Sprintf("%s contracts %d–%d", label, a, b)
		clean = func() error {
			for _, x := range pk.ExpectedOutputs {
				if err := e.Root.Remove(x.Path); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return e.planAttempts(st, pk.Agent.Mode, packet, o.Agent, label, out, clean)
}

// planAttempts runs the planner at most twice; the outputs of a failed
// attempt are removed (clean) before the retry, and after a second failed
// batch; a refused whole plan is kept for the author.
func (e *Env) planAttempts(st stepid.Step, mode, packet, agentCmd, label string, out *VolumeOutcome, clean func() error) (*volumeplan.Result, error) {
	v := st.Number
	var failure *errs.Error
	for attempt := 1; attempt <= 2; attempt++ {
		if attempt > 1 {
			if err := clean(); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		run, err := e.beginStep(st.String(), mode, attempt)
		if err != nil {
			return nil, err
		}
		exit, _, _, err := run.execute(agentCmd, packet, label)
		if err != nil {
			return nil, err
		}
		out.Runs++
		if exit != 0 {
			failure = errs.Newf(errs.Agent, "卷规划 %s 重试后仍失败：执行器退出码 %d", "volume planning %s failed again after a retry: the executor exited with status %d", st.String(), exit).
				With("step", st.String()).With("packet", packet).With("exit", exit).
				Hint("检查执行器后重新运行 make -f pipeline.mk volume V="+strconv.Itoa(v),
					"check the executor, then re-run make -f pipeline.mk volume V="+strconv.Itoa(v))
			fmt.Fprintf(e.Stderr, "%s plan ✗ 第 %d 次执行失败 / attempt %d failed: 执行器退出码 %d\n", label, attempt, attempt, exit)
			if err := run.end(failure); err != nil {
				return nil, err
			}
			continue
		}
		fmt.Fprintf(e.Stderr, "%s plan ✓ %ss\n", label, e.wholeSeconds(start))
		dry, f, err := e.volumeValid(v)
		if err := run.finish(f, err); err != nil || f == nil {
			return dry, err
		}
		failure = f
		fmt.Fprintf(e.Stderr, "%s validate ✗ 第 %d 次的规划未通过校验 / attempt %d's plan was refused: %s\n", label, attempt, attempt, failure.Message("zh"))
	}
	if st.Stage == stepid.Contracts {
		if err := clean(); err != nil {
			return nil, err
		}
	}
	return nil, failure
}

// volumeValid asks novel-commit volume --dry-run whether the staged plan
// (or an interrupted commit's journal) can be committed. A refusal of the
// plan itself (exit 1) is returned as the failure; one that is not about
// the plan (the orchestrator state, the lock) is the error.
func (e *Env) volumeValid(v int) (*volumeplan.Result, *errs.Error, error) {
	res, err := e.toolQuiet("novel-commit", "volume", "--volume", layout.PadVol(v), "--dry-run")
	if err != nil {
		return nil, nil, err
	}
	switch {
	case res.Exit == 0:
		var dry volumeplan.Result
		if err := jsonio.Decode(res.Stdout, "novel-commit volume --dry-run", &dry); err != nil {
			return nil, nil, err
		}
		return &dry, nil, nil
	case res.Exit == errs.ExitFailed && res.Err != nil:
		return nil, res.Err, nil
	}
	return nil, nil, res.Err
}

// stagedPlan lists what staging/volumes/vol-VV holds of a plan: every entry
// but the volume's staged review, which belongs to the review step.
func (e *Env) stagedPlan(v int) ([]string, error) {
	ents, err := e.Root.ReadDir(layout.StagingVolumeDir(v))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ent := range ents {
		rel := layout.StagingVolumeDir(v) + "/" + ent.Name()
		if rel != layout.StagingVolumeReview(v) {
			out = append(out, rel)
		}
	}
	return out, nil
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
