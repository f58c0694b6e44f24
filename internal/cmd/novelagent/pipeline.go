package novelagent

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/pipeline"
	"github.com/novelsuite/novel/internal/stepid"
)

// pipelineCmd groups the helpers pipeline.mk runs, one per stage kind.
type pipelineCmd struct {
	Plan     planCmd     `cmd:"" help:"Read-only: the chapter's current revision round (for make's targets)."`
	Next     nextCmd     `cmd:"" help:"Whether a chapter still has work (run|done|volume_review); a blocked project writes staging/BLOCKED.json and exits 3."`
	Step     stepCmd     `cmd:"" help:"Run one agent stage: packet, pre-stage copy, executor, validate (restore on failure), one retry, advance, stamp."`
	Gate     gateCmd     `cmd:"" help:"Run novel-gate decide --apply for the round; a pause writes staging/BLOCKED.json and exits 3."`
	Commit   commitCmd   `cmd:"" help:"Run novel-commit when the chapter is ready to commit."`
	Summary  summaryCmd  `cmd:"" help:"Print the run summary (Ch 1: 3120字 4.2 pass | …) from a summary file."`
	Amend    amendCmd    `cmd:"" help:"Re-summarize committed chapter C after the author edited it (packet mode amend) and run novel-commit amend (SPEC §23)."`
	Backfill backfillCmd `cmd:"" help:"Summarize and commit each imported chapter (logs/import.json) above last_completed_chapter in order: packet mode backfill, then novel-commit backfill (SPEC §23)."`
	Volume   volumeCmd   `cmd:"" help:"Plan a volume: packet, executor, validate (novel-commit volume --dry-run), one retry, then novel-commit volume; a staged plan that validates is committed without planning again."`
	Review   reviewCmd   `cmd:"" help:"Write and commit a volume's review (VOL_REVIEW): packet, executor, novel-commit volume-review --dry-run, one retry, then novel-commit volume-review (SPEC §23)."`
	Start    startCmd    `cmd:"" help:"Start a new project (QUICK_START): every setup step whose products are missing (packet, executor, validate, one retry, novel-commit setup), then the volume-1 plan; resumable (SPEC §17)."`
	Error    errorCmd    `cmd:"" help:"Report one of pipeline.mk's own refusals as the JSON error line (exits non-zero)."`
}

func env(ctx *cli.Context) (*pipeline.Env, error) {
	root, err := ctx.Root()
	if err != nil {
		return nil, err
	}
	clk, err := ctx.Clock()
	if err != nil {
		return nil, err
	}
	return &pipeline.Env{Root: root, Getenv: ctx.Getenv, Stderr: ctx.Err, Clock: clk}, nil
}

func outcome(ctx *cli.Context, o *pipeline.Outcome) {
	ctx.Result(o, func() string { return o.Step + " " + o.Action })
}

type planCmd struct {
	Chapter int `type:"chapter" help:"Chapter (default: the inflight or next chapter)."`
}

func (c *planCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	p, err := e.PlanFor(c.Chapter)
	if err != nil {
		return err
	}
	ctx.Result(p, func() string { return fmt.Sprintf("%d r%d", p.Chapter, p.Round) })
	return nil
}

type nextCmd struct {
	Chapter  int    `type:"chapter" help:"Chapter the run is for (default: whatever is next)."`
	Strict   bool   `help:"A project in VOL_REVIEW is blocked (exit 3) instead of status volume_review."`
	Prev     string `help:"The progress value of the round the driver just ran; the same value again is an error (the round changed nothing)." placeholder:"STEP@rK"`
	Budget   string `help:"The most this run may spend (make's BUDGET): a chapter whose projected cost (mean of the last 5 chapters) exceeds what remains is not started (E_BUDGET, exit 3, staging/BLOCKED.json)." placeholder:"AMOUNT"`
	Currency string `name:"budget-currency" help:"The budget's currency (default: the one currency of settings.json llm.prices)." placeholder:"CODE"`
	Since    int    `help:"last_completed_chapter when the run started: chapters committed after it count as spent." placeholder:"N"`
}

func (c *nextCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	if c.Budget != "" {
		if e.Budget, err = pipeline.ParseBudget(c.Budget, c.Currency, c.Since); err != nil {
			return err
		}
	}
	s, err := e.Next(c.Chapter, c.Strict, c.Prev)
	if err != nil {
		return err
	}
	ctx.Result(s, func() string { return s.Status })
	return nil
}

type stepCmd struct {
	Step  string `arg:"" help:"Agent step id, e.g. chapter:001:draft."`
	Round int    `required:"" help:"Revision round the make targets were built for."`
	Agent string `required:"" help:"Executor command; run as AGENT PACKET_PATH in the project root."`
}

func (c *stepCmd) Run(ctx *cli.Context) error {
	st, err := stepid.Parse(c.Step)
	if err != nil {
		return err
	}
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Step(st, c.Round, c.Agent)
	if err != nil {
		return err
	}
	outcome(ctx, o)
	return nil
}

type gateCmd struct {
	Chapter int `type:"chapter" required:"" help:"Chapter."`
	Round   int `required:"" help:"Revision round the make targets were built for."`
}

func (c *gateCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Gate(c.Chapter, c.Round)
	if err != nil {
		return err
	}
	outcome(ctx, o)
	return nil
}

type commitCmd struct {
	Chapter int    `type:"chapter" required:"" help:"Chapter."`
	Summary string `help:"File (outside the project) collecting novel-commit's outputs for the run summary." placeholder:"FILE"`
	Agent   string `help:"Executor command for the optional continuity-auditor step audit:NNN (settings continuity_audit: agent)." placeholder:"CMD"`
}

func (c *commitCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Commit(c.Chapter, c.Summary, c.Agent)
	if err != nil {
		return err
	}
	outcome(ctx, o)
	return nil
}

type summaryCmd struct {
	File string `arg:"" help:"Summary file written by pipeline commit --summary."`
}

func (c *summaryCmd) Run(ctx *cli.Context) error {
	line, results, err := pipeline.Summary(c.File)
	if err != nil {
		return err
	}
	ctx.Result(map[string]any{"line": line, "chapters": results}, func() string { return line })
	return nil
}

type volumeCmd struct {
	Volume int    `name:"volume" type:"volume" required:"" help:"The volume to plan (VOL_PLANNING with it as current_volume, or QUICK_START for 1)." placeholder:"VV"`
	Agent  string `help:"Executor command; run as AGENT PACKET_PATH in the project root (required unless --plan)."`
	Plan   bool   `help:"Read-only: print the commands the helper runs (make -n)."`
	// Approval (SPEC §23): without --approve a plan that validates stays
	// staged and the run stops with E_AWAITING_APPROVAL (exit 3), unless
	// settings.json volume_plan_approval is "auto".
	Approve   bool   `help:"Commit the plan once it validates (make … APPROVE=1); without it the run stops with E_AWAITING_APPROVAL unless settings.json volume_plan_approval is \"auto\"."`
	Direction string `help:"The author's direction for the planner (author_direction in the plan and contracts packets)." placeholder:"TEXT"`
	Redo      bool   `help:"A staged plan that does not validate (the author's edit, or a failed run's) moves to staging/replaced/redo-N/ and the planner is asked again (make … REDO=1); without it the run stops and the plan stays as it is."`
}

func (c *volumeCmd) Run(ctx *cli.Context) error {
	v := c.Volume
	if c.Plan {
		p := pipeline.PlanVolume(v)
		ctx.Result(p, func() string { return strings.Join(p.Commands, "\n") })
		return nil
	}
	if c.Agent == "" {
		return cli.UsageError("缺少 --agent（执行器命令）", "--agent (the executor command) is required")
	}
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.VolumeWith(v, pipeline.VolumeOptions{Agent: c.Agent, Direction: c.Direction, Approve: c.Approve, Redo: c.Redo})
	if err != nil {
		return err
	}
	ctx.Result(o, func() string { return o.Commit.Text() })
	return nil
}

type startCmd struct {
	Agent string `help:"Executor command; run as AGENT PACKET_PATH in the project root (required unless --plan)."`
	Plan  bool   `help:"Read-only: print the commands the helper runs (make -n)."`
	Redo  bool   `help:"Staged outputs that do not validate (the author's, or a failed run's) move to staging/replaced/redo-N/ and the model is asked again (make … REDO=1); without it they stop the run and stay as they are."`
}

func (c *startCmd) Run(ctx *cli.Context) error {
	if c.Plan {
		p := pipeline.PlanStart()
		ctx.Result(p, func() string { return strings.Join(p.Commands, "\n") })
		return nil
	}
	if c.Agent == "" {
		return cli.UsageError("缺少 --agent（执行器命令）", "--agent (the executor command) is required")
	}
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Start(c.Agent, c.Redo)
	if err != nil {
		return err
	}
	ctx.Result(o, o.Text)
	return nil
}

type reviewCmd struct {
	Volume int    `name:"volume" type:"volume" required:"" help:"The volume to review (the current volume, in VOL_REVIEW)." placeholder:"VV"`
	Agent  string `required:"" help:"Executor command; run as AGENT PACKET_PATH in the project root."`
	Redo   bool   `help:"A staged review that does not validate (the author's, or a failed run's) moves to staging/replaced/redo-N/ and the model writes it again (make … REDO=1); without it the run stops and the review stays as it is."`
}

func (c *reviewCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Review(c.Volume, c.Agent, c.Redo)
	if err != nil {
		return err
	}
	ctx.Result(o, func() string { return "第 " + strconv.Itoa(o.Volume) + " 卷回顾已提交：" + o.Review })
	return nil
}
