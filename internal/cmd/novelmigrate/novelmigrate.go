// Package novelmigrate is the command surface of novel-migrate (SPEC §22):
// check a plugin or TypeScript-CLI project and apply what it needs.
package novelmigrate

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/migrate"
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
	resume := root.Exists(layout.MigrateJournal)
	load := func() (*migrate.Journal, error) {
		if resume {
			return migrate.Load(root)
		}
		return migrate.Prepare(root, now)
	}
	j, err := load()
	if err != nil {
		return err
	}
	if g.DryRun || (j.Result.Changes == 0 && !resume) {
		res := j.Result
		res.DryRun = g.DryRun
		ctx.Result(res, func() string { return text(&res) })
		return nil
	}
	release, err := lock.Guard(root, ctx.Getenv, 0, s.LockStaleMinutes)
	if err != nil {
		if e := errs.As(err); e != nil {
			e.Hint("先用 novel migrate --dry-run 查看；插件会话结束后运行 novel-lock break --force 再迁移", "check with novel migrate --dry-run; once the plugin session is gone, run novel-lock break --force and migrate again")
		}
		return err
	}
	defer release()
	// Under the lock: plan again from what is there now (another writer
	// may have moved the checkpoint), unless a journal is resumed.
	if !resume {
		if j, err = migrate.Prepare(root, now); err != nil {
			return err
		}
	}
	res, err := migrate.Execute(root, j, !resume, journal.CrashHook(ctx.Getenv))
	if err != nil {
		return err
	}
	ctx.Result(res, func() string { return text(res) })
	return nil
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
