package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
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
	return journal.Command[*volumeplan.Journal, *volumeplan.Result]{
		Kind: journal.Volume,
		Arg:  strconv.Itoa(v),
		Load: func() (*volumeplan.Journal, error) { return volumeplan.LoadJournal(root, v) },
		// Validated before the lock too, so a refused plan writes nothing
		// (not even the lock's flock file).
		Prepare: func() (*volumeplan.Journal, error) { return volumeplan.Prepare(root, v, now) },
		Plan:    func(j *volumeplan.Journal) ([]journal.PlanStep, *volumeplan.Result) { return j.Plan, &j.Output },
		// No Read: always prepared again under the lock.
		Execute: func(j *volumeplan.Journal, fresh bool) (*volumeplan.Result, error) {
			return volumeplan.Execute(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		Text: (*volumeplan.Result).Text,
	}.Run(ctx, root, locker(ctx, root, s, 0), c.DryRun)
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
	return journal.Command[*volumeplan.ReviewJournal, *volumeplan.ReviewResult]{
		Kind:    journal.VolumeReview,
		Arg:     strconv.Itoa(v),
		Load:    func() (*volumeplan.ReviewJournal, error) { return volumeplan.LoadReviewJournal(root, v) },
		Prepare: func() (*volumeplan.ReviewJournal, error) { return volumeplan.PrepareReview(root, v, now) },
		Plan: func(j *volumeplan.ReviewJournal) ([]journal.PlanStep, *volumeplan.ReviewResult) {
			return j.Plan, &j.Output
		},
		Execute: func(j *volumeplan.ReviewJournal, fresh bool) (*volumeplan.ReviewResult, error) {
			return volumeplan.ExecuteReview(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		Text: (*volumeplan.ReviewResult).Text,
	}.Run(ctx, root, locker(ctx, root, s, 0), c.DryRun)
}
