package novelcommit

import (
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/volumeplan"
)

type volumeCmd struct {
	Volume int  `name:"volume" type:"volume" required:"" help:"The volume whose staged plan (staging/volumes/vol-VV/) to validate and commit." placeholder:"VV"`
	DryRun bool `name:"dry-run" help:"Validate the staged plan and print the plan without writing."`
}

func (c *volumeCmd) Run(ctx *cli.Context) error {
	v := c.Volume
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	if err := commit.PendingRollbackError(root); err != nil {
		return err
	}
	resume := volumeplan.PendingJournal(root, v)
	return journaled[*volumeplan.Journal, *volumeplan.Result]{
		resume: resume,
		load:   func() (*volumeplan.Journal, error) { return volumeplan.LoadJournal(root, v) },
		// Validated before the lock too, so a refused plan writes nothing
		// (not even the lock's flock file).
		prepare: func() (*volumeplan.Journal, error) { return volumeplan.Prepare(root, v, now) },
		dryRun: func(j *volumeplan.Journal) (any, []journal.PlanStep) {
			return volumeplan.DryRun{DryRun: true, Resume: resume, Plan: j.Plan, Result: j.Output}, j.Plan
		},
		// No read: always prepared again under the lock.
		execute: func(j *volumeplan.Journal, fresh bool) (*volumeplan.Result, error) {
			return volumeplan.Execute(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		text: (*volumeplan.Result).Text,
	}.run(ctx, root, s, c.DryRun)
}

type volumeReviewCmd struct {
	Volume int  `name:"volume" type:"volume" required:"" help:"The finished volume whose staged review (staging/volumes/vol-VV/review.md) to keep." placeholder:"VV"`
	DryRun bool `name:"dry-run" help:"Validate the staged review and print the plan without writing."`
}

func (c *volumeReviewCmd) Run(ctx *cli.Context) error {
	v := c.Volume
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	if err := commit.PendingRollbackError(root); err != nil {
		return err
	}
	resume := volumeplan.PendingReviewJournal(root, v)
	return journaled[*volumeplan.ReviewJournal, *volumeplan.ReviewResult]{
		resume:  resume,
		load:    func() (*volumeplan.ReviewJournal, error) { return volumeplan.LoadReviewJournal(root, v) },
		prepare: func() (*volumeplan.ReviewJournal, error) { return volumeplan.PrepareReview(root, v, now) },
		dryRun: func(j *volumeplan.ReviewJournal) (any, []journal.PlanStep) {
			return volumeplan.ReviewDryRun{DryRun: true, Resume: resume, Plan: j.Plan, ReviewResult: j.Output}, j.Plan
		},
		execute: func(j *volumeplan.ReviewJournal, fresh bool) (*volumeplan.ReviewResult, error) {
			return volumeplan.ExecuteReview(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		text: (*volumeplan.ReviewResult).Text,
	}.run(ctx, root, s, c.DryRun)
}
