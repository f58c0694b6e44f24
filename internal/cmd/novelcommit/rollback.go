package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
)

type rollbackCmd struct {
	To     int  `type:"chapter" name:"to" required:"" help:"The first chapter to undo (1 ≤ C ≤ last_completed_chapter)."`
	DryRun bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

func (r *rollbackCmd) Run(ctx *cli.Context) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	env := commit.Env{Root: root, Settings: s, Now: now, Crash: journal.CrashHook(ctx.Getenv)}
	if err := commit.PendingAmendError(root); err != nil {
		return err
	}
	resume := commit.PendingRollback(root)
	return journaled[*commit.RollbackJournal, *commit.RollbackOutput]{
		resume: resume,
		load: func() (*commit.RollbackJournal, error) {
			j, err := commit.LoadRollbackJournal(root)
			if err == nil && j.To != r.To {
				return nil, errs.Newf(errs.State, "回滚到第 %d 章的操作尚未完成", "the rollback to chapter %d is unfinished", j.To).
					With("journal", layout.RollbackJournal).With("to", j.To).WithExit(errs.ExitFailed).
					Hint("先运行 novel-commit rollback --to "+strconv.Itoa(j.To)+" 完成它", "run novel-commit rollback --to "+strconv.Itoa(j.To)+" first to finish it")
			}
			return j, err
		},
		prepare: func() (*commit.RollbackJournal, error) { return commit.PrepareRollback(env, r.To) },
		dryRun: func(j *commit.RollbackJournal) (any, []journal.PlanStep) {
			return commit.RollbackDryRun{DryRun: true, Resume: resume, Plan: j.Plan, RollbackOutput: j.Output}, j.Plan
		},
		chapter: r.To,
		read:    (*commit.RollbackJournal).Read,
		execute: func(j *commit.RollbackJournal, fresh bool) (*commit.RollbackOutput, error) {
			return commit.ExecuteRollback(env, j, fresh)
		},
		text: func(out *commit.RollbackOutput) string {
			return "已回滚第 " + strconv.Itoa(out.To) + " 章及之后共 " + strconv.Itoa(len(out.RolledBack)) + " 章，state_version " + strconv.Itoa(out.StateVersion)
		},
	}.run(ctx, root, s, r.DryRun)
}
