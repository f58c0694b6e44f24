package novelcommit

import (
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
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
	if err := commit.PendingRollbackError(root); err != nil {
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
	resume := setupstep.PendingJournal(root, stage)
	return journaled[*setupstep.Journal, *setupstep.Result]{
		resume:  resume,
		load:    func() (*setupstep.Journal, error) { return setupstep.LoadJournal(root, stage) },
		prepare: func() (*setupstep.Journal, error) { return setupstep.Prepare(root, stage, c.Replace, now, next, mid) },
		dryRun: func(j *setupstep.Journal) (any, []journal.PlanStep) {
			return setupstep.DryRun{DryRun: true, Resume: resume, Plan: j.Plan, Result: j.Output}, j.Plan
		},
		execute: func(j *setupstep.Journal, fresh bool) (*setupstep.Result, error) {
			return setupstep.Execute(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		text: (*setupstep.Result).Text,
	}.run(ctx, root, s, c.DryRun)
}
