package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
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
	return journal.Command[*commit.RollbackJournal, *commit.RollbackOutput]{
		Kind:    journal.Rollback,
		Arg:     strconv.Itoa(r.To),
		Load:    func() (*commit.RollbackJournal, error) { return commit.LoadRollbackJournal(root) },
		Prepare: func() (*commit.RollbackJournal, error) { return commit.PrepareRollback(env, r.To) },
		Plan:    func(j *commit.RollbackJournal) ([]journal.PlanStep, *commit.RollbackOutput) { return j.Plan, &j.Output },
		Read:    func(j *commit.RollbackJournal) []byte { return j.Read() },
		Execute: func(j *commit.RollbackJournal, fresh bool) (*commit.RollbackOutput, error) {
			return commit.ExecuteRollback(env, j, fresh)
		},
		Text: func(out *commit.RollbackOutput) string {
			return "已回滚第 " + strconv.Itoa(out.To) + " 章及之后共 " + strconv.Itoa(len(out.RolledBack)) + " 章，state_version " + strconv.Itoa(out.StateVersion)
		},
	}.Run(ctx, root, locker(ctx, root, s, r.To), r.DryRun)
}
