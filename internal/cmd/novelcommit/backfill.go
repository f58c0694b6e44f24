package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
)

type backfillCmd struct {
	Chapter int  `type:"chapter" name:"chapter" required:"" help:"The imported chapter to commit (last_completed+1, listed in logs/import.json)."`
	DryRun  bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

func (b *backfillCmd) Run(ctx *cli.Context) error {
	return commitChapter(ctx, b.Chapter, b.DryRun, commit.PrepareBackfill, func(out *commit.Output) string {
		return "第 " + strconv.Itoa(out.Chapter) + " 章已回填（" + strconv.Itoa(out.WordCount) + " 字），state_version " + strconv.Itoa(out.StateVersion)
	})
}
