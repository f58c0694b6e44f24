package novelcommit

import (
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/setupstep"
	"github.com/novelsuite/novel/internal/stepid"
)

type setupCmd struct {
	Step    string `required:"" help:"The setup step: world, characters, book or style (setup:X also accepted)." placeholder:"X"`
	Replace bool   `help:"Replace committed files that differ; each old file is kept under staging/replaced/setup-X-N/."`
	DryRun  bool   `name:"dry-run" help:"Validate the staged outputs and print the plan without writing."`
}

func (c *setupCmd) Run(ctx *cli.Context) error {
	st, err := stepid.Parse("setup:" + strings.TrimPrefix(strings.TrimSpace(c.Step), "setup:"))
	if err != nil {
		return err
	}
	stage := st.Stage
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	next := func() string {
		n, err := setupstep.NextAfter(root, stage, cp.State == checkpoint.QuickStart)
		if err != nil {
			return ""
		}
		return n
	}
	// Changing the world or the cast while the book is being written is
	// logged so the chapters still to write follow it (SPEC §25).
	var mid *setupstep.Midbook
	if cp.State == checkpoint.Writing || cp.State == checkpoint.ChapterRewrite {
		mid = &setupstep.Midbook{Chapter: cp.LastCompleted, Volume: cp.CurrentVolume}
	}
	return journal.Command[*setupstep.Journal, *setupstep.Result]{
		Kind:    journal.Setup,
		Arg:     stage,
		Load:    func() (*setupstep.Journal, error) { return setupstep.LoadJournal(root, stage) },
		Prepare: func() (*setupstep.Journal, error) { return setupstep.Prepare(root, stage, c.Replace, now, next, mid) },
		Plan:    func(j *setupstep.Journal) ([]journal.PlanStep, *setupstep.Result) { return j.Plan, &j.Output },
		Execute: func(j *setupstep.Journal, fresh bool) (*setupstep.Result, error) {
			return setupstep.Execute(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		Text: (*setupstep.Result).Text,
	}.Run(ctx, root, locker(ctx, root, s, 0), c.DryRun)
}
