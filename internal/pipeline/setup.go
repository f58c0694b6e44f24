package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/setupstep"
	"github.com/novelsuite/novel/internal/stepid"
)

// SetupOutcome is one setup step of `novel-agent pipeline start`.
type SetupOutcome struct {
	Step   string            `json:"step"`
	Action string            `json:"action"` // committed, reused, done
	Runs   int               `json:"agent_runs"`
	Commit *setupstep.Result `json:"commit"`
}

// StartOutcome is what `novel-agent pipeline start` prints.
type StartOutcome struct {
	Setup  []SetupOutcome `json:"setup"`
	Volume *VolumeOutcome `json:"volume"`
	State  string         `json:"orchestrator_state"`
}

// Text is the --text line.
func (o *StartOutcome) Text() string {
	return "设定与第 1 卷规划完成，进入 " + o.State + "；下一步 make -f pipeline.mk continue N=…"
}

// PlanStart lists what Start would run (make -n start).
func PlanStart() *VolumePlan {
	var cmds []string
	for _, st := range stepid.SetupStages {
		id := stepid.Setup(st).String()
		cmds = append(cmds, "novel-manifest packet "+id+" --write-manifest", "$AGENT "+setupstep.PacketPath(st),
			"novel-step validate "+id, "novel-commit setup --step "+st)
	}
	return &VolumePlan{Volume: 1, Commands: append(cmds, planVolume(1, true).Commands...)}
}

// Start takes a new project from QUICK_START to WRITING (SPEC §17): every
// setup step whose products are missing (packet with its write-boundary
// snapshot, executor, validation, one retry, journaled commit), then the
// volume-1 plan (Volume). Each step is resumable: an interrupted commit is
// finished, staged outputs that validate are committed without asking the
// model again, committed steps are skipped; staged outputs that do not
// validate stop the run and stay as they are unless redo (REDO=1), which
// sets them aside first (staged.go). A project already past QUICK_START
// has nothing to start.
func (e *Env) Start(agentCmd string, redo bool) (*StartOutcome, error) {
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	out := &StartOutcome{Setup: []SetupOutcome{}}
	// A volume-1 commit interrupted after its checkpoint step left
	// QUICK_START but not its journal: finish it.
	if cp.State != checkpoint.QuickStart && journal.Volume.Unfinished(e.Root, "1") {
		v, err := e.VolumeWith(1, startVolume(agentCmd))
		if err != nil {
			return nil, err
		}
		out.Volume, out.State = v, checkpoint.Writing
		return out, nil
	}
	if cp.State != checkpoint.QuickStart {
		fmt.Fprintf(e.Stderr, "[start] ✓ 项目已在 %s，无需启动 / the project is already in %s\n", cp.State, cp.State)
		out.State = cp.State
		return out, nil
	}
	if err := notBackfilled(e.Root, cp); err != nil {
		return nil, err
	}
	for _, st := range stepid.SetupStages {
		o, err := e.Setup(st, agentCmd, redo)
		if err != nil {
			return nil, err
		}
		out.Setup = append(out.Setup, *o)
	}
	v, err := e.VolumeWith(1, startVolume(agentCmd))
	if err != nil {
		return nil, err
	}
	out.Volume, out.State = v, checkpoint.Writing
	return out, nil
}

// notBackfilled refuses to start (E_STATE) while logs/import.json lists
// chapters above last_completed_chapter (SPEC §22.1): volume 1 would be
// planned over the imported text as if it were still to be written, and
// after the backfill the chapter after them would have no outline.
func notBackfilled(root *project.Root, cp *checkpoint.Checkpoint) error {
	if !root.Exists(layout.ImportLog) {
		return nil
	}
	imported, err := commit.ImportedChapters(root)
	if err != nil || len(imported) == 0 || slices.Max(imported) <= cp.LastCompleted {
		return err
	}
	first := imported[0]
	for _, c := range imported {
		if c > cp.LastCompleted {
			first = c
			break
		}
	}
	last := slices.Max(imported)
	return errs.Newf(errs.State, "导入的第 %d–%d 章尚未回填（last_completed_chapter 为 %d）：现在规划第 1 卷会把它们当作待写的章节",
		"imported chapters %d–%d are not backfilled yet (last_completed_chapter is %d): planning volume 1 now would treat them as chapters still to write",
		first, last, cp.LastCompleted).
		With("file", layout.ImportLog).With("imported_chapters", imported).With("last_completed_chapter", cp.LastCompleted).
		Hint("先运行 make -f pipeline.mk backfill 为导入的章节生成摘要和状态，再运行 make -f pipeline.mk start",
			"run make -f pipeline.mk backfill first to summarize the imported chapters and build their state, then make -f pipeline.mk start")
}

// startVolume: `make start` ends in WRITING (SPEC §17), so the first
// volume's plan is committed once it validates — the author's approval
// stop (§23) applies to the volumes planned later with `make … volume`.
func startVolume(agentCmd string) VolumeOptions { return VolumeOptions{Agent: agentCmd, Approve: true} }

// Setup runs one setup step the way Volume plans a volume.
func (e *Env) Setup(stage, agentCmd string, redo bool) (*SetupOutcome, error) {
	st := stepid.Setup(stage)
	label := "[" + st.String() + "]"
	out := &SetupOutcome{Step: st.String(), Action: "reused"}
	pending := journal.Setup.Unfinished(e.Root, stage)
	if !pending {
		done, err := setupstep.Done(e.Root, stage)
		if err != nil {
			return nil, err
		}
		staged, err := setupstep.Staged(e.Root, stage)
		if err != nil {
			return nil, err
		}
		if done && len(staged) == 0 {
			out.Action = "done"
			fmt.Fprintf(e.Stderr, "%s ✓ 已提交，跳过 / already committed\n", label)
			return out, nil
		}
		failure, err := e.setupValid(st)
		if err != nil {
			return nil, err
		}
		redone := false
		if len(staged) > 0 && (failure != nil || redo) {
			if !redo {
				return nil, e.keepStaged(label, setupstep.Staging+"/", failure)
			}
			paths := make([]string, len(staged))
			for i, f := range staged {
				paths[i] = setupstep.StagedPath(f)
			}
			if err := e.redoAside(label, paths); err != nil {
				return nil, err
			}
			redone = true
		}
		if failure == nil && !redone {
			fmt.Fprintf(e.Stderr, "%s ✓ 暂存的产物已通过校验，不再调用模型 / the staged outputs validate; not asking again\n", label)
		} else {
			out.Action = "committed"
			if err := e.setupAttempts(st, agentCmd, label, out); err != nil {
				return nil, err
			}
		}
	}
	raw, err := e.must("novel-commit", "setup", "--step", stage)
	if err != nil {
		return nil, err
	}
	var r setupstep.Result
	if err := jsonio.Decode(raw, "novel-commit setup", &r); err != nil {
		return nil, err
	}
	out.Commit = &r
	fmt.Fprintf(e.Stderr, "%s commit ✓ %d 个文件 / %d files → %s\n", label, len(r.Files), len(r.Files), strings.Join(r.Files, " "))
	return out, nil
}

// setupAttempts writes the packet once — its write-boundary snapshot is
// the step's one snapshot, so the retry is checked against it too and a
// write outside staging/ on the first attempt still fails the step — and
// runs the executor at most twice. Nothing is staged when it starts; the
// outputs of a failed first attempt are removed before the retry, the
// last one's are kept for the author.
func (e *Env) setupAttempts(st stepid.Step, agentCmd, label string, out *SetupOutcome) error {
	pk, packet, err := e.writePacket(setupstep.PacketPath(st.Stage), st.String())
	if err != nil {
		return err
	}
	var failure *errs.Error
	for attempt := 1; attempt <= 2; attempt++ {
		if attempt > 1 {
			if err := e.clearStaged(st.Stage); err != nil {
				return err
			}
		}
		start := time.Now()
		run, err := e.beginStep(st.String(), pk.Agent.Mode, attempt)
		if err != nil {
			return err
		}
		exit, _, _, err := run.execute(agentCmd, packet, label)
		if err != nil {
			return err
		}
		out.Runs++
		if exit != 0 {
			failure = errs.Newf(errs.Agent, "设定步骤 %s 重试后仍失败：执行器退出码 %d", "setup step %s failed again after a retry: the executor exited with status %d", st.String(), exit).
				With("step", st.String()).With("packet", packet).With("exit", exit).
				Hint("检查执行器后重新运行 make -f pipeline.mk start", "check the executor, then run make -f pipeline.mk start again")
			fmt.Fprintf(e.Stderr, "%s ✗ 第 %d 次执行失败 / attempt %d failed: 执行器退出码 %d\n", label, attempt, attempt, exit)
			if err := run.end(failure); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.Stderr, "%s %s ✓ %ss\n", label, st.Agent(), e.wholeSeconds(start))
		failure, err = e.setupValid(st)
		if err := run.finish(failure, err); err != nil || failure == nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s validate ✗ 第 %d 次的产物未通过校验 / attempt %d's outputs were refused: %s\n", label, attempt, attempt, failure.Message("zh"))
	}
	return failure
}

// setupValid asks novel-step validate whether the staged outputs (and the
// write boundary) pass; a refusal of the outputs is the failure.
func (e *Env) setupValid(st stepid.Step) (*errs.Error, error) {
	res, err := e.toolQuiet("novel-step", "validate", st.String())
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

// clearStaged removes the stage's staged outputs (a failed attempt's).
func (e *Env) clearStaged(stage string) error {
	files, err := setupstep.Staged(e.Root, stage)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := e.Root.Remove(setupstep.StagedPath(f)); err != nil {
			return err
		}
	}
	return nil
}
