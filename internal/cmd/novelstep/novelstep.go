// Package novelstep is the command surface of novel-step: the checkpoint
// and the next step (SPEC §3). The logic lives in internal/step.
package novelstep

import (
	"encoding/json"
	"fmt"

	"github.com/novelsuite/novel/internal/abandon"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/report"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/step"
	"github.com/novelsuite/novel/internal/stepid"
)

type grammar struct {
	cli.Globals `embed:""`

	Next     nextCmd     `cmd:"" help:"Print the next step to run (read-only); --text prints the step id."`
	Advance  advanceCmd  `cmd:"" help:"Record that STEP finished: validate its products and move pipeline_stage."`
	Validate validateCmd `cmd:"" help:"Validate the products of STEP and the write boundary (read-only)."`
	Status   statusCmd   `cmd:"" help:"Show checkpoint, lock, next step or blocker, pending revisions, last error, counts."`
	Abandon  abandonCmd  `cmd:"" help:"Drop the chapter in flight: move its staging files to staging/abandoned/."`
	Redraft  redraftCmd  `cmd:"" help:"Before drafting a deleted staging chapter again: set aside what its round made from the old text."`
	Fail     failCmd     `cmd:"" help:"Record a failed step: last_error and ERROR_RETRY."`
	Retry    retryCmd    `cmd:"" help:"Leave ERROR_RETRY: restore the previous state."`
	Volume   volumeCmd   `cmd:"" help:"Volume transitions: --next moves VOL_REVIEW to planning the next volume."`
}

// Main runs novel-step.
func Main() int {
	return cli.Main("novel-step", "The checkpoint and the next step of the chapter pipeline.", &grammar{})
}

// env is what every command needs.
type env struct {
	root *project.Root
	cp   *checkpoint.Checkpoint
	snap checkpoint.Snapshot // the bytes cp was read from
	s    settings.Settings
}

func load(ctx *cli.Context) (*env, error) {
	root, err := ctx.Root()
	if err != nil {
		return nil, err
	}
	cp, snap, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	s, err := ctx.Settings()
	if err != nil {
		return nil, err
	}
	return &env{root: root, cp: cp, snap: snap, s: s}, nil
}

func now(ctx *cli.Context) (func() string, error) {
	clk, err := ctx.Clock()
	if err != nil {
		return nil, err
	}
	return clk.Stamp, nil
}

// update writes the checkpoint through checkpoint.Update: under the
// lock, fn re-checks and edits the fresh copy, which becomes e.cp.
func update(ctx *cli.Context, e *env, chapter int, now string, fn func(cp *checkpoint.Checkpoint) error) error {
	w := checkpoint.Writer{Root: e.root, Getenv: ctx.Getenv, Chapter: chapter, StaleMinutes: e.s.LockStaleMinutes, Now: now,
		BeforeLock: checkpoint.RaceHook(e.root, ctx.Getenv)}
	cp, err := checkpoint.Update(w, e.snap, func(cp *checkpoint.Checkpoint, _ bool) (bool, error) {
		return true, fn(cp)
	})
	if err == nil {
		e.cp = cp
	}
	return err
}

func current(cp *checkpoint.Checkpoint) int {
	if !cp.Idle() {
		return cp.Inflight
	}
	return 0
}

// executorFlag names who runs the steps next proposes (SPEC §25): the
// agent route's callers say so (the novel front door passes agent,
// novel-mcp passes mcp) and get the continuity-auditor step; the pipeline
// names none and runs that review itself.
type executorFlag struct {
	Executor string `help:"Who runs the proposed steps: agent (the novel front door), mcp (novel-mcp), openai, command or replay; with a model the continuity-auditor step audit:NNN is proposed after the commits that ran the continuity audit (unless settings continuity_audit says deterministic)." placeholder:"NAME"`
}

func (f executorFlag) check() error {
	switch f.Executor {
	case "", settings.ExecutorAgent, settings.ExecutorMCP, "openai", "command", "replay":
		return nil
	}
	return cli.UsageError(fmt.Sprintf("--executor %q 无效：应为 agent、mcp、openai、command 或 replay", f.Executor),
		fmt.Sprintf("invalid --executor %q: use agent, mcp, openai, command or replay", f.Executor))
}

type nextCmd struct {
	executorFlag
}

func (c nextCmd) Run(ctx *cli.Context) error {
	if err := c.check(); err != nil {
		return err
	}
	e, err := load(ctx)
	if err != nil {
		return err
	}
	n, err := step.ComputeNext(e.root, e.cp, e.s, c.Executor)
	if err != nil {
		return err
	}
	ctx.Result(n, func() string { return n.Step })
	return nil
}

type advanceCmd struct {
	Step string `arg:"" help:"Step id, e.g. chapter:048:draft."`
}

func (c advanceCmd) Run(ctx *cli.Context) error {
	st, err := stepid.Parse(c.Step)
	if err != nil {
		return err
	}
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	r, err := step.Advance(e.root, e.cp, e.snap, st, e.s, ctx.Getenv, clk)
	if err != nil {
		return err
	}
	ctx.Result(r, func() string {
		stage := "null"
		if r.Stage != nil {
			stage = *r.Stage
		}
		if !r.Changed {
			return errs.Text(e.s.Language, fmt.Sprintf("%s 已完成（pipeline_stage=%s），未改变", r.Step, stage),
				fmt.Sprintf("%s already done (pipeline_stage %s); nothing changed", r.Step, stage))
		}
		return fmt.Sprintf("%s → %s", r.Step, stage)
	})
	return nil
}

type validateCmd struct {
	Step string `arg:"" help:"Step id, e.g. chapter:048:summarize."`
	Role string `help:"Judge role: primary or secondary validates only that judge's eval of a key chapter (default: both)." placeholder:"ROLE"`
}

// ValidateResult is the output of `novel-step validate`.
type ValidateResult struct {
	Step     string   `json:"step"`
	Role     string   `json:"role,omitempty"`
	Valid    bool     `json:"valid"`
	Warnings []string `json:"warnings"`
}

func (c validateCmd) Run(ctx *cli.Context) error {
	st, err := stepid.Parse(c.Step)
	if err != nil {
		return err
	}
	e, err := load(ctx)
	if err != nil {
		return err
	}
	if err := products.ValidateRole(e.root, e.cp, st, e.s, c.Role); err != nil {
		return err
	}
	warnings, err := step.CheckBoundary(e.root, e.cp, st, c.Role)
	if err != nil {
		return err
	}
	if st.Stage == stepid.Judge && st.Chapter > 0 && !st.Volume && !st.Setup {
		warnings = append(warnings, products.ModelOverallWarnings(e.root, st.Chapter, c.Role)...)
	}
	r := ValidateResult{Step: st.String(), Role: c.Role, Valid: true, Warnings: warnings}
	ctx.Result(r, func() string { return errs.Text(e.s.Language, "有效 ", "valid ") + r.Step })
	return nil
}

type statusCmd struct {
	executorFlag
}

func (c statusCmd) Run(ctx *cli.Context) error {
	if err := c.check(); err != nil {
		return err
	}
	e, err := load(ctx)
	if err != nil {
		return err
	}
	v, err := step.Status(e.root, e.cp, e.s, c.Executor)
	if err != nil {
		return err
	}
	text := v.Text
	if ctx.Globals.Text {
		// The dashboard adds the report's headline; it reads every committed
		// eval, so only --text pays for it. A bad file there must not hide
		// the status itself.
		line := ""
		if h, herr := report.HeadlineOf(e.root); herr == nil {
			line = errs.Text(e.s.Language, "概览：", "overview: ") + h.Text() + "\n"
		} else {
			line = errs.Text(e.s.Language, "概览：无法汇总（", "overview: unavailable (") + errs.Coerce(herr).Message(e.s.Language) + errs.Text(e.s.Language, "）\n", ")\n")
		}
		text = func() string { return v.Text() + line }
	}
	ctx.Result(v, text)
	return nil
}

type abandonCmd struct {
	Chapter int `type:"chapter" required:"" help:"The chapter in flight to drop." placeholder:"C"`
}

// AbandonOutput is the output of `novel-step abandon`.
type AbandonOutput struct {
	*abandon.Result
	Checkpoint checkpoint.Summary `json:"checkpoint"`
}

func (c abandonCmd) Run(ctx *cli.Context) error {
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	if err := abandon.Check(e.root, e.cp, c.Chapter); err != nil {
		return err
	}
	var r *abandon.Result
	if err := update(ctx, e, c.Chapter, clk(), func(cp *checkpoint.Checkpoint) (err error) {
		if err := abandon.Check(e.root, cp, c.Chapter); err != nil {
			return err
		}
		r, err = abandon.Chapter(e.root, cp, c.Chapter, clk())
		return err
	}); err != nil {
		return err
	}
	out := AbandonOutput{Result: r, Checkpoint: e.cp.Summarize()}
	ctx.Result(out, func() string {
		return errs.Text(e.s.Language, fmt.Sprintf("已放弃第 %d 章，%d 个暂存文件移至 %s", r.Chapter, len(r.Moved), r.MovedTo),
			fmt.Sprintf("abandoned chapter %d; %d staging files moved to %s", r.Chapter, len(r.Moved), r.MovedTo))
	})
	return nil
}

type redraftCmd struct {
	Chapter int `type:"chapter" required:"" help:"The chapter in flight whose staging chapter was deleted." placeholder:"C"`
}

// RedraftOutput is the output of `novel-step redraft`.
type RedraftOutput struct {
	*abandon.Redraft
	Checkpoint checkpoint.Summary `json:"checkpoint"`
}

// Run sets aside the round's products made from a deleted staging chapter
// and returns the stage to the round's draft; with nothing to change it
// writes nothing (and takes no lock).
func (c redraftCmd) Run(ctx *cli.Context) error {
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	if err := abandon.CheckRedraft(e.root, e.cp, c.Chapter); err != nil {
		return err
	}
	r, err := abandon.PlanRedraft(e.root, e.cp, c.Chapter)
	if err != nil {
		return err
	}
	if r.Changed {
		if err := update(ctx, e, c.Chapter, clk(), func(cp *checkpoint.Checkpoint) (err error) {
			if err := abandon.CheckRedraft(e.root, cp, c.Chapter); err != nil {
				return err
			}
			r, err = abandon.RedraftChapter(e.root, cp, c.Chapter)
			return err
		}); err != nil {
			return err
		}
	}
	out := RedraftOutput{Redraft: r, Checkpoint: e.cp.Summarize()}
	ctx.Result(out, func() string {
		stage := "null"
		if s := out.Checkpoint.Stage; s != nil {
			stage = *s
		}
		switch {
		case !r.Changed:
			return errs.Text(e.s.Language, fmt.Sprintf("第 %d 章无需改动（pipeline_stage=%s）", r.Chapter, stage),
				fmt.Sprintf("chapter %d: nothing to change (pipeline_stage %s)", r.Chapter, stage))
		case r.MovedTo == nil:
			return errs.Text(e.s.Language, fmt.Sprintf("第 %d 章回到 pipeline_stage=%s，可重新起草", r.Chapter, stage),
				fmt.Sprintf("chapter %d is back at pipeline_stage %s, ready to be drafted again", r.Chapter, stage))
		}
		return errs.Text(e.s.Language, fmt.Sprintf("第 %d 章回到 pipeline_stage=%s，%d 个由旧稿得出的产物移至 %s", r.Chapter, stage, len(r.Moved), *r.MovedTo),
			fmt.Sprintf("chapter %d is back at pipeline_stage %s; %d products made from the old text moved to %s", r.Chapter, stage, len(r.Moved), *r.MovedTo))
	})
	return nil
}

type failCmd struct {
	Step    string `required:"" help:"The step that failed." placeholder:"STEP"`
	Error   string `required:"" help:"What went wrong." placeholder:"MSG"`
	Code    string `help:"The underlying error's code (E_…), kept in last_error." placeholder:"CODE"`
	Hint    string `help:"What to do about it (e.g. restore the files a write-boundary violation lists)." placeholder:"TEXT"`
	Details string `help:"The underlying error's details as a JSON object (e.g. server_message)." placeholder:"JSON"`
}

var errorCode = lazyre.New(`^E_[A-Z0-9_]+$`)

// cause checks the optional parts of the underlying error before any write.
func (c failCmd) cause() (json.RawMessage, error) {
	if c.Code != "" && !errorCode().MatchString(c.Code) {
		return nil, errs.Newf(errs.Usage, "--code %q 不是错误代码（形如 E_AGENT）", "--code %q is not an error code (like E_AGENT)", c.Code).
			With("code", c.Code).Hint("传入底层错误的 code 字段", "pass the underlying error's code field")
	}
	if c.Details == "" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if jsonio.Decode([]byte(c.Details), "--details", &obj) != nil || obj == nil {
		return nil, errs.Newf(errs.Usage, "--details 必须是 JSON 对象", "--details must be a JSON object").
			Hint("传入底层错误的 details 对象，例如 '{\"server_message\":\"…\"}'", "pass the underlying error's details object, e.g. '{\"server_message\":\"…\"}'")
	}
	return json.RawMessage(c.Details), nil
}

// StateOutput is the output of fail, retry and volume.
type StateOutput struct {
	Checkpoint  checkpoint.Summary    `json:"checkpoint"`
	LastError   *checkpoint.LastError `json:"last_error"`
	NextCommand string                `json:"next_command"`
}

func (c failCmd) Run(ctx *cli.Context) error {
	st, err := stepid.Parse(c.Step)
	if err != nil {
		return err
	}
	details, err := c.cause()
	if err != nil {
		return err
	}
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	if err := update(ctx, e, current(e.cp), clk(), func(cp *checkpoint.Checkpoint) error {
		step.Fail(cp, st, c.Error, clk())
		cp.LastError.Code, cp.LastError.Hint, cp.LastError.Details = c.Code, c.Hint, details
		return nil
	}); err != nil {
		return err
	}
	out := StateOutput{Checkpoint: e.cp.Summarize(), LastError: e.cp.LastError, NextCommand: "novel-step retry"}
	ctx.Result(out, func() string {
		return errs.Text(e.s.Language, "已记录失败："+st.String()+"（ERROR_RETRY），排除故障后运行 novel-step retry",
			"failure recorded: "+st.String()+" (ERROR_RETRY); fix the cause and run novel-step retry")
	})
	return nil
}

type retryCmd struct{}

func (retryCmd) Run(ctx *cli.Context) error {
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	if err := step.Retry(e.cp.Clone()); err != nil {
		return err
	}
	if err := update(ctx, e, current(e.cp), clk(), step.Retry); err != nil {
		return err
	}
	out := StateOutput{Checkpoint: e.cp.Summarize(), NextCommand: "novel-step next"}
	ctx.Result(out, func() string {
		return errs.Text(e.s.Language, "已恢复为 "+e.cp.State+"，运行 novel-step next 继续", "restored to "+e.cp.State+"; run novel-step next to continue")
	})
	return nil
}

type volumeCmd struct {
	Next bool `required:"" help:"Finish the volume review and start planning the next volume."`
}

func (c volumeCmd) Run(ctx *cli.Context) error {
	e, err := load(ctx)
	if err != nil {
		return err
	}
	clk, err := now(ctx)
	if err != nil {
		return err
	}
	if err := step.VolumeNext(e.cp.Clone()); err != nil {
		return err
	}
	if err := update(ctx, e, 0, clk(), step.VolumeNext); err != nil {
		return err
	}
	cmd := "novel instructions volume:" + layout.PadVol(e.cp.CurrentVolume) + ":plan"
	out := StateOutput{Checkpoint: e.cp.Summarize(), NextCommand: cmd}
	ctx.Result(out, func() string {
		return errs.Text(e.s.Language, fmt.Sprintf("进入第 %d 卷规划（VOL_PLANNING），下一步：%s", e.cp.CurrentVolume, cmd),
			fmt.Sprintf("planning volume %d (VOL_PLANNING); next: %s", e.cp.CurrentVolume, cmd))
	})
	return nil
}
