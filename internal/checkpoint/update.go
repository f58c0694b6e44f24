package checkpoint

import (
	"os"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/project"
)

// raceEnv names a test-only hook (RaceHook): when set, that file is
// copied over .checkpoint.json just before the lock is taken, as another
// writer finishing between the command's first read and its lock would.
const raceEnv = "NOVEL_TEST_CHECKPOINT_RACE"

// Writer is a command about to write the checkpoint and how it locks.
type Writer struct {
	Root         *project.Root
	Getenv       func(string) string // NOVEL_LOCK_TOKEN (lock.Guard)
	Chapter      int                 // recorded in the lock (0: none)
	StaleMinutes int
	Now          string // stamps last_checkpoint_time
	// BeforeLock, when set, runs just before the lock is taken: the
	// commands pass RaceHook(getenv), as they pass journal.CrashHook.
	BeforeLock func() error
}

// Update is the one way a command writes the checkpoint (SPEC §22
// "checkpoint writers re-read under the lock"): take the project lock
// (lock.Guard; a held lock named by NOVEL_LOCK_TOKEN is reused), re-read
// the checkpoint, and hand the fresh copy to fn with moved = whether it
// differs from first, the bytes the caller's unlocked checks read (nil:
// always moved). fn re-checks the caller's preconditions on the fresh
// copy (when moved, or always when that is cheap), makes the command's
// other writes and edits cp; when it returns save, Update saves cp last.
// The lock is held until Update returns.
func Update(w Writer, first Snapshot, fn func(cp *Checkpoint, moved bool) (save bool, err error)) (*Checkpoint, error) {
	if w.BeforeLock != nil {
		if err := w.BeforeLock(); err != nil {
			return nil, err
		}
	}
	release, err := lock.Guard(w.Root, w.Getenv, w.Chapter, w.StaleMinutes)
	if err != nil {
		return nil, err
	}
	defer release()
	return edit(w.Root, w.Now, func(cp *Checkpoint, snap Snapshot) (bool, error) {
		return fn(cp, first == nil || string(first) != string(snap))
	})
}

// Edit is the write half of Update for a caller that already holds the
// lock inside Update (a journal's checkpoint step): re-read, let fn edit
// the fresh copy, save it when fn says so.
func Edit(root *project.Root, now string, fn func(cp *Checkpoint) (save bool, err error)) error {
	_, err := edit(root, now, func(cp *Checkpoint, _ Snapshot) (bool, error) { return fn(cp) })
	return err
}

func edit(root *project.Root, now string, fn func(*Checkpoint, Snapshot) (bool, error)) (*Checkpoint, error) {
	cp, snap, err := LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	save, err := fn(cp, snap)
	if err != nil || !save {
		return cp, err
	}
	if err := cp.Save(root, now); err != nil {
		return nil, err
	}
	return cp, nil
}

// RaceHook is the RaceEnv hook of root read through getenv (nil getenv or
// an unset RaceEnv: it does nothing).
func RaceHook(root *project.Root, getenv func(string) string) func() error {
	return func() error {
		if getenv == nil {
			return nil
		}
		src := getenv(raceEnv)
		if src == "" {
			return nil
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return errs.Newf(errs.IO, "%s：无法读取 %s：%v", "%s: cannot read %s: %v", raceEnv, src, err)
		}
		return root.WriteFile(layout.Checkpoint, data)
	}
}
