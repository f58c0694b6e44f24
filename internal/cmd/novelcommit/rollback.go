package novelcommit

import (
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
)

type rollbackCmd struct {
	To     int  `name:"to" required:"" help:"The first chapter to undo (1 ≤ C ≤ last_completed_chapter)."`
	DryRun bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

func (r *rollbackCmd) Run(ctx *cli.Context) error {
	if r.To < 1 {
		return cli.UsageError("--to 必须 ≥ 1", "--to must be ≥ 1")
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
	env := commit.Env{Root: root, Settings: s, Now: clk.Stamp(), Crash: func(step string) {
		if ctx.Getenv("NOVEL_CRASH_AT") == step {
			os.Exit(137) // test hook: die like kill -9 right after the step
		}
	}}
	var j *commit.RollbackJournal
	resume := commit.PendingRollback(root)
	if resume {
		if j, err = commit.LoadRollbackJournal(root); err != nil {
			return err
		}
		if j.To != r.To {
			return errs.Newf(errs.State, "回滚到第 %d 章的操作尚未完成", "the rollback to chapter %d is unfinished", j.To).
				With("journal", layout.RollbackJournal).With("to", j.To).WithExit(errs.ExitFailed).
				Hint("先运行 novel-commit rollback --to "+strconv.Itoa(j.To)+" 完成它", "run novel-commit rollback --to "+strconv.Itoa(j.To)+" first to finish it")
		}
	} else if j, err = commit.PrepareRollback(env, r.To); err != nil {
		// Checked before taking the lock, so a refused rollback leaves no trace.
		return err
	}
	if r.DryRun {
		ctx.Result(commit.RollbackDryRun{DryRun: true, Resume: resume, Plan: j.Plan, RollbackOutput: j.Output}, func() string {
			names := make([]string, len(j.Plan))
			for i, p := range j.Plan {
				names[i] = p.Name
			}
			return "plan: " + strings.Join(names, " → ")
		})
		return nil
	}
	release, err := lock.Guard(root, ctx.Getenv, r.To, s.LockStaleMinutes)
	if err != nil {
		return err
	}
	defer release()
	if !resume && j.Stale(root) {
		// Another writer moved on before the lock was ours: check again.
		if j, err = commit.PrepareRollback(env, r.To); err != nil {
			return err
		}
	}
	out, err := commit.ExecuteRollback(env, j, !resume)
	if err != nil {
		return err
	}
	ctx.Result(out, func() string {
		return "已回滚第 " + strconv.Itoa(out.To) + " 章及之后共 " + strconv.Itoa(len(out.RolledBack)) + " 章，state_version " + strconv.Itoa(out.StateVersion)
	})
	return nil
}
