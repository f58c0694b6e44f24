package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/rollback"
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
	return journal.Command[*rollback.Journal, *rollback.Output]{
		Kind:    journal.Rollback,
		Arg:     strconv.Itoa(r.To),
		Load:    func() (*rollback.Journal, error) { return rollback.LoadJournal(root) },
		Prepare: func() (*rollback.Journal, error) { return rollback.Prepare(env, r.To) },
		Plan:    func(j *rollback.Journal) ([]journal.PlanStep, *rollback.Output) { return j.Plan, &j.Output },
		Read:    func(j *rollback.Journal) []byte { return j.Read() },
		Execute: func(j *rollback.Journal, fresh bool) (*rollback.Output, error) {
			return rollback.Execute(env, j, fresh)
		},
		Text: func(out *rollback.Output) string {
			return "已回滚第 " + strconv.Itoa(out.To) + " 章及之后共 " + strconv.Itoa(len(out.RolledBack)) + " 章，state_version " + strconv.Itoa(out.StateVersion)
		},
	}.Run(ctx, root, locker(ctx, root, s, r.To), r.DryRun)
}
