package novelcommit

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// locker is how novel-commit's journaled commands lock (journal.Command
// runs them): the journal's steps write the checkpoint themselves (their
// checkpoint step), so checkpoint.Update only locks, re-reads and says
// whether the checkpoint moved since the unlocked preparation (SPEC §8.1).
func locker(ctx *cli.Context, root *project.Root, s settings.Settings, chapter int) journal.Locker {
	w := checkpoint.Writer{Root: root, Getenv: ctx.Getenv, Chapter: chapter, StaleMinutes: s.LockStaleMinutes,
		BeforeLock: checkpoint.RaceHook(root, ctx.Getenv)}
	return func(first []byte, fn func(moved bool) error) error {
		_, err := checkpoint.Update(w, first, func(_ *checkpoint.Checkpoint, moved bool) (bool, error) {
			return false, fn(moved)
		})
		return err
	}
}
