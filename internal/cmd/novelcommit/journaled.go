package novelcommit

import (
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// journaled is one journaled command (chapter commit, rollback, volume
// commit): an unfinished journal is resumed, otherwise a fresh one is
// prepared (validated before the lock, so a refused run writes nothing).
type journaled[J, O any] struct {
	resume  bool
	load    func() (J, error)                 // the unfinished journal, when resume
	prepare func() (J, error)                 // a fresh journal
	dryRun  func(J) (any, []journal.PlanStep) // the --dry-run document and its plan
	chapter int                               // the chapter lock.Guard records (0: none)
	read    func(J) checkpoint.Snapshot       // the checkpoint a fresh journal was prepared from (nil: prepare again under the lock)
	execute func(J, bool) (O, error)          // runs the journal; the bool says it is fresh
	text    func(O) string                    // the --text line of the result
}

// run loads or prepares the journal, prints the plan on --dry-run, or
// executes it inside checkpoint.Update and prints the result.
func (r journaled[J, O]) run(ctx *cli.Context, root *project.Root, s settings.Settings, dry bool) error {
	var j J
	var err error
	if r.resume {
		j, err = r.load()
	} else {
		j, err = r.prepare()
	}
	if err != nil {
		return err
	}
	if dry {
		doc, plan := r.dryRun(j)
		ctx.Result(doc, func() string { return planText(plan) })
		return nil
	}
	// The journal's steps write the checkpoint themselves (their
	// checkpoint step), so Update only locks, re-reads and re-checks:
	// a fresh journal is prepared again when another writer moved the
	// checkpoint since; a resumed one skips the preconditions (SPEC §8.1).
	var first checkpoint.Snapshot
	if !r.resume && r.read != nil {
		first = r.read(j)
	}
	var out O
	w := checkpoint.Writer{Root: root, Getenv: ctx.Getenv, Chapter: r.chapter, StaleMinutes: s.LockStaleMinutes}
	if _, err := checkpoint.Update(w, first, func(_ *checkpoint.Checkpoint, moved bool) (bool, error) {
		if !r.resume && moved {
			if j, err = r.prepare(); err != nil {
				return false, err
			}
		}
		out, err = r.execute(j, !r.resume)
		return false, err
	}); err != nil {
		return err
	}
	ctx.Result(out, func() string { return r.text(out) })
	return nil
}

// planText is the --text line of a dry run: the step names in order.
func planText(plan []journal.PlanStep) string {
	names := make([]string, len(plan))
	for i, p := range plan {
		names[i] = p.Name
	}
	return "plan: " + strings.Join(names, " → ")
}
