package novelcommit

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volumeplan"
)

type volumeCmd struct {
	// A string: kong reads ints with base prefixes, so "08" would fail.
	Volume string `name:"volume" required:"" help:"The volume whose staged plan (staging/volumes/vol-VV/) to validate and commit." placeholder:"VV"`
	DryRun bool   `name:"dry-run" help:"Validate the staged plan and print the plan without writing."`
}

func (c *volumeCmd) Run(ctx *cli.Context) error {
	v, err := strconv.Atoi(strings.TrimSpace(c.Volume))
	if err != nil || v < 1 || v > stepid.MaxNumber {
		return cli.UsageError("--volume 必须是 ≥ 1 的整数（如 02），实际为 "+strconv.Quote(c.Volume),
			"--volume must be an integer ≥ 1 (e.g. 02), got "+strconv.Quote(c.Volume))
	}
	root, s, now, err := setup(ctx)
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
