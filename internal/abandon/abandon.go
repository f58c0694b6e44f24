// Package abandon drops the chapter in flight (SPEC §3 abandon, and
// novel-gate resolve --regen): its staging files are set aside, a pending
// revision of it is rejected, and the checkpoint returns to idle. It is a
// package of its own so both novel-step and the gate can call it (the step
// package reads gate files, so the gate cannot import it).
package abandon

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
)

// Result reports what Chapter did.
type Result struct {
	Chapter          int      `json:"chapter"`
	MovedTo          string   `json:"moved_to"`
	Moved            []string `json:"moved"`
	RevisionRejected bool     `json:"revision_rejected"`
}

// Check is the legality of abandoning chapter c: WRITING,
// CHAPTER_REWRITE or ERROR_RETRY, c in flight (or, when idle, the next
// chapter with staging files), and no commit of it under way.
func Check(root *project.Root, cp *checkpoint.Checkpoint, c int) error {
	if !cp.Writable() && cp.State != checkpoint.ErrorRetry {
		return errs.Newf(errs.State, "当前编排状态 %s 不允许放弃章节（需 WRITING、CHAPTER_REWRITE 或 ERROR_RETRY）",
			"orchestrator state %s does not allow abandoning a chapter (needs WRITING, CHAPTER_REWRITE or ERROR_RETRY)", cp.State).
			With("orchestrator_state", cp.State).Hint("运行 novel-step status 查看项目状态", "run novel-step status to see the project state")
	}
	return checkInFlight(root, cp, c, "放弃", "abandoned")
}

// checkInFlight refuses an action on chapter c while its commit is under
// way or when c is not the chapter in flight (the next one when idle);
// zh and en name the action ("不能放弃" / "cannot be abandoned").
func checkInFlight(root *project.Root, cp *checkpoint.Checkpoint, c int, zh, en string) error {
	n := strconv.Itoa(c)
	if err := journal.BlockedExit(errs.ExitBlocked, root, journal.Commit); err != nil {
		return err
	}
	if want := inflightOrNext(cp); c != want {
		return errs.New(errs.StageOrder, fmt.Sprintf("第 %d 章不在制作中（在制章节为第 %d 章），不能%s", c, want, zh),
			fmt.Sprintf("chapter %d is not in flight (the chapter in flight is %d) and cannot be %s", c, want, en)).
			With("chapter", c).With("inflight_chapter", cp.Summarize().Inflight).
			Hint("已提交的章节请用 novel-commit rollback --to "+n, "for a committed chapter use novel-commit rollback --to "+n)
	}
	return nil
}

// inflightOrNext is the chapter in flight, or when idle the next one.
func inflightOrNext(cp *checkpoint.Checkpoint) int {
	if !cp.Idle() {
		return cp.Inflight
	}
	return cp.NextChapter()
}

// Chapter drops chapter c (SPEC §3): its staging files move to
// staging/abandoned/chapter-NNN-{n}/ (same layout below staging/), a
// pending revision of c becomes rejected with note "abandoned", and the
// checkpoint returns to an idle WRITING with revision_count 0. It edits
// cp; the caller saves it after (checkpoint.Update), so files move before
// the checkpoint changes and an interrupted abandon is finished by
// running it again. The caller holds the lock and has run Check.
func Chapter(root *project.Root, cp *checkpoint.Checkpoint, c int, now string) (*Result, error) {
	files, err := products.StagingFiles(root, c)
	if err != nil {
		return nil, err
	}
	dest, moved, err := setAside(root, c, files)
	if err != nil {
		return nil, err
	}
	res := &Result{Chapter: c, MovedTo: dest, Moved: moved}
	pruneEmpty(root, layout.RevisionsDir(c))
	if st, err := revision.Load(root, c); err != nil {
		return nil, err
	} else if st != nil && st.Status == revision.StatusPending {
		if res.RevisionRejected, err = revision.SetStatus(root, c, revision.StatusRejected, "abandoned", now); err != nil {
			return nil, err
		}
	}
	cp.Inflight = 0
	cp.Stage = ""
	cp.RevisionCount = 0
	cp.State = checkpoint.Writing
	cp.LastError = nil
	return res, nil
}

// setAside moves the staging files into a free
// staging/abandoned/chapter-NNN-{n}/, keeping their layout below
// staging/, and returns that folder and the files moved, in order.
func setAside(root *project.Root, c int, files []string) (string, []string, error) {
	dest, err := freeAbandonDir(root, c)
	if err != nil {
		return "", nil, err
	}
	moved := []string{}
	for _, rel := range files {
		if err := root.Move(rel, dest+"/"+strings.TrimPrefix(rel, layout.Staging+"/")); err != nil {
			return "", nil, err
		}
		moved = append(moved, rel)
	}
	return dest, moved, nil
}

func freeAbandonDir(root *project.Root, c int) (string, error) {
	for n := 1; ; n++ {
		rel := layout.Abandoned(c, n)
		if there, err := root.Lexists(rel); err != nil {
			return "", err
		} else if !there {
			return rel, nil
		}
	}
}

// pruneEmpty removes rel and its subdirectories when they hold no files
// (the archived rounds' folders once their files moved away).
func pruneEmpty(root *project.Root, rel string) {
	abs, err := root.Abs(rel)
	if err != nil {
		return
	}
	var dirs []string
	filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, harmlessly, on a non-empty directory
	}
}
