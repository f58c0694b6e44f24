// Package novelmigrate is the command surface of novel-migrate (SPEC §22):
// check a plugin or TypeScript-CLI project and apply what it needs.
package novelmigrate

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/migrate"
	"github.com/novelsuite/novel/internal/project"
)

type grammar struct {
	cli.Globals `embed:""`
	DryRun      bool `name:"dry-run" help:"Only list what the project needs; write nothing."`
}

// Main runs novel-migrate.
func Main() int {
	return cli.Main("novel-migrate", "Check a project made by the plugin or the TypeScript CLI and apply what the suite needs (state file, quick-start plan, last_completed_chapter; journaled); chapters, summaries and evals are never rewritten.", &grammar{})
}

func (g *grammar) Run(ctx *cli.Context) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	return journal.Command[*migrate.Journal, *migrate.Result]{
		Kind:    journal.Migrate,
		Load:    func() (*migrate.Journal, error) { return migrate.Load(root) },
		Prepare: func() (*migrate.Journal, error) { return migrate.Prepare(root, now) },
		Plan: func(j *migrate.Journal) ([]journal.PlanStep, *migrate.Result) {
			res := j.Result
			res.DryRun = g.DryRun
			return j.Plan, &res
		},
		// Nothing to apply writes nothing, not even the lock.
		Idle: func(j *migrate.Journal) bool { return j.Result.Changes == 0 },
		// No Read: under the lock it plans again from what is there now
		// (another writer may have moved the checkpoint).
		Execute: func(j *migrate.Journal, fresh bool) (*migrate.Result, error) {
			return migrate.Execute(root, j, fresh, journal.CrashHook(ctx.Getenv))
		},
		Text:    text,
		DryText: text,
	}.Run(ctx, root, guard(ctx, root, s.LockStaleMinutes), g.DryRun)
}

// guard locks with lock.Guard: the checkpoint may still be a plugin's,
// which migrate itself rewrites, so nothing re-reads it under the lock.
func guard(ctx *cli.Context, root *project.Root, staleMinutes int) journal.Locker {
	return func(_ []byte, fn func(moved bool) error) error {
		release, err := lock.Guard(root, ctx.Getenv, 0, staleMinutes)
		if err != nil {
			if e := errs.As(err); e != nil {
				e.Hint("先用 novel migrate --dry-run 查看；插件会话结束后运行 novel-lock break --force 再迁移", "check with novel migrate --dry-run; once the plugin session is gone, run novel-lock break --force and migrate again")
			}
			return err
		}
		defer release()
		return fn(true)
	}
}

// text is one line per finding (with the code of a failed check), then
// the count of changes.
func text(r *migrate.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(strings.TrimSpace(f.Action+" "+f.ID+" "+f.File+" "+f.Code) + "\n")
	}
	verb := "applied"
	if r.DryRun {
		verb = "to apply"
	}
	b.WriteString(strconv.Itoa(r.Changes) + " change(s) " + verb)
	return b.String()
}
