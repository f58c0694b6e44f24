package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
)

type backfillCmd struct {
	Chapter int  `type:"chapter" name:"chapter" required:"" help:"The imported chapter to commit (last_completed+1, listed in logs/import.json)."`
	DryRun  bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

func (b *backfillCmd) Run(ctx *cli.Context) error {
	root, s, now, err := setup(ctx)
	if err != nil {
		return err
	}
	env := commit.Env{Root: root, Settings: s, Now: now, Crash: journal.CrashHook(ctx.Getenv)}
	if err := commit.PendingRollbackError(root); err != nil {
		return err
	}
	if err := commit.PendingAmendError(root); err != nil {
		return err
	}
	pending, err := commit.PendingJournal(root)
	if err != nil {
		return err
	}
	if pending != 0 && pending != b.Chapter {
		return errs.Newf(errs.State, "第 %d 章的提交尚未完成（%s）", "the commit of chapter %d is unfinished (%s)", pending, layout.CommitJournal(pending)).
			With("journal", layout.CommitJournal(pending)).With("chapter", pending).WithExit(errs.ExitFailed).
			Hint("先运行 novel-commit --chapter "+strconv.Itoa(pending)+" 完成它", "run novel-commit --chapter "+strconv.Itoa(pending)+" first to finish it")
	}
	resume := pending == b.Chapter
	return journaled[*commit.Journal, *commit.Output]{
		resume:  resume,
		load:    func() (*commit.Journal, error) { return commit.LoadJournal(root, b.Chapter) },
		prepare: func() (*commit.Journal, error) { return commit.PrepareBackfill(env, b.Chapter) },
		dryRun: func(j *commit.Journal) (any, []journal.PlanStep) {
			return commit.DryRun{DryRun: true, Resume: resume, Plan: j.Plan, Output: j.Output}, j.Plan
		},
		chapter: b.Chapter,
		read:    (*commit.Journal).Read,
		execute: func(j *commit.Journal, fresh bool) (*commit.Output, error) { return commit.Execute(env, j, fresh) },
		text: func(out *commit.Output) string {
			return "第 " + strconv.Itoa(out.Chapter) + " 章已回填（" + strconv.Itoa(out.WordCount) + " 字），state_version " + strconv.Itoa(out.StateVersion)
		},
	}.run(ctx, root, s, b.DryRun)
}
