package novelcommit

import (
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/lock"
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
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	s, err := ctx.Settings()
	if err != nil {
		return err
	}
	clk, err := ctx.Clock()
	if err != nil {
		return err
	}
	if err := commit.PendingRollbackError(root); err != nil {
		return err
	}
	resume := volumeplan.PendingJournal(root, v)
	var j *volumeplan.Journal
	if resume {
		j, err = volumeplan.LoadJournal(root, v)
	} else {
		// Validated before the lock too, so a refused plan writes nothing
		// (not even the lock's flock file).
		j, err = volumeplan.Prepare(root, v, clk.Stamp())
	}
	if err != nil {
		return err
	}
	if c.DryRun {
		ctx.Result(volumeplan.DryRun{DryRun: true, Resume: resume, Plan: j.Plan, Result: j.Output}, func() string {
			names := make([]string, len(j.Plan))
			for i, p := range j.Plan {
				names[i] = p.Name
			}
			return "plan: " + strings.Join(names, " → ")
		})
		return nil
	}
	release, err := lock.Guard(root, ctx.Getenv, 0, s.LockStaleMinutes)
	if err != nil {
		return err
	}
	defer release()
	if !resume {
		// Re-check under the lock: another writer may have moved on.
		if j, err = volumeplan.Prepare(root, v, clk.Stamp()); err != nil {
			return err
		}
	}
	out, err := volumeplan.Execute(root, j, !resume, func(step string) {
		if ctx.Getenv("NOVEL_CRASH_AT") == step {
			os.Exit(137) // test hook: die like kill -9 right after the step
		}
	})
	if err != nil {
		return err
	}
	ctx.Result(out, out.Text)
	return nil
}
