package commit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/maintenance"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// LoadJournal reads chapter c's journal.
func LoadJournal(root *project.Root, c int) (*Journal, error) {
	var j Journal
	if err := journal.Read(root, layout.CommitJournal(c), "提交日志", "commit journal", &j); err != nil {
		return nil, err
	}
	if j.Chapter != c || len(j.Plan) == 0 {
		return nil, journal.Damaged(root, errs.Newf(errs.Schema, "%s 不是第 %d 章的提交日志", "%s is not the commit journal of chapter %d", layout.CommitJournal(c), c).
			With("file", layout.CommitJournal(c)), layout.CommitJournal(c), "提交日志", "commit journal")
	}
	return &j, nil
}

// Execute writes the journal (fresh commits) and runs every step
// (journal.Tx). Each step is idempotent, so a resumed commit simply runs
// them all again.
func Execute(env Env, j *Journal, fresh bool) (*Output, error) {
	root := env.Root
	// Once the journal is durable, the steps' directory fsyncs are
	// batched until just before the cleanup deletes it. A power cut
	// before then leaves the journal, and every step is idempotent and
	// checks what is on disk, so the resumed commit redoes whatever did
	// not reach it.
	flush := func() {}
	defer func() { flush() }()
	out := j.Output
	out.Warnings = append([]string{}, out.Warnings...)
	steps := []journal.Step{
		{Name: StepMove, Run: func() error { flush = root.Writer().DeferDirSyncs(); return stepMove(root, j) }},
		{Name: StepState, Run: func() error { return stepState(root, j) }},
		{Name: StepForeshadow, Run: func() error { return stepForeshadow(root, j) }},
		{Name: StepUnknownEntities, Run: func() error {
			if j.UnknownEntities == nil {
				return nil
			}
			return j.UnknownEntities.Replay(root)
		}},
		{Name: StepChapterLog, Run: func() error {
			if j.Backfill {
				return nil
			}
			return root.WriteJSON(layout.ChapterLog(j.Chapter), j.ChapterLog)
		}},
		{Name: StepMaintenance, Run: func() error {
			if j.Backfill {
				return nil // no eval to learn from; the audits run on the next written chapter
			}
			ev, _ := j.Eval.(map[string]any)
			// Maintenance (SPEC §16): its errors become warnings.
			rep, warns := maintenance.Run(root, j.Chapter, ev, j.CommittedAt)
			out.Maintenance = rep
			out.Warnings = append(out.Warnings, warns...)
			var items []foreshadow.Item
			if j.staged != nil {
				items = j.staged.items
			}
			briefs, warns := audit.Periodic(root, j.Chapter, j.Volume, j.TargetState == checkpoint.VolReview, j.CommittedAt, items)
			out.Periodic.Continuity, out.Periodic.Inventories = briefs.Continuity, briefs.Inventories
			out.Warnings = append(out.Warnings, warns...)
			return nil
		}},
		{Name: StepCheckpoint, Run: func() error { return stepCheckpoint(root, j) }},
		{Name: StepCleanup, Run: func() error { flush(); return stepCleanup(root, j) }},
	}
	if err := j.tx().Run(root, j, fresh, env.Crash, steps); err != nil {
		return nil, err
	}
	return &out, nil
}

// tx is the commit's transaction: its journal, and the files whose temps
// a killed run may have left (jsonio names them .NAME.tmp-*), so a
// resumed commit leaves the same tree as an uninterrupted one.
func (j *Journal) tx() journal.Tx {
	temps := []string{layout.Eval(j.Chapter), layout.ChapterLog(j.Chapter),
		layout.CurrentState, layout.Baseline, layout.GlobalForeshadow, layout.Checkpoint, layout.AIBlacklist, layout.StyleDrift}
	if j.MemoryHistory != "" {
		temps = append(temps, j.MemoryHistory)
	}
	return journal.Tx{File: layout.CommitJournal(j.Chapter), Key: "commit_step", Resume: "novel-commit --chapter " + strconv.Itoa(j.Chapter), Temps: temps}
}

func stepMove(root *project.Root, j *Journal) error {
	for _, m := range j.Moves {
		there, err := root.Lexists(m.From)
		if err != nil {
			return err
		}
		if _, err := root.Abs(m.To); err != nil {
			return err
		}
		if !there {
			continue // moved by an earlier run of this commit
		}
		if j.MemoryHistory != "" && m.To == layout.Memory(j.StorylineID) {
			// While the staging memory exists the old memory is still in
			// place (rename is atomic), so copying it is repeatable.
			old, err := root.ReadFile(m.To)
			if err != nil {
				return err
			}
			if err := root.WriteFile(j.MemoryHistory, old); err != nil {
				return err
			}
			// Durable before the rename below replaces the only other copy.
			if abs, err := root.Abs(j.MemoryHistory); err == nil {
				root.Writer().SyncNow(filepath.Dir(abs))
			}
		}
		if err := root.Move(m.From, m.To); err != nil {
			return err
		}
	}
	if j.Backfill {
		return nil
	}
	return root.WriteJSON(layout.Eval(j.Chapter), j.Eval)
}

func ChangedErr(rel string) error {
	return errs.Newf(errs.State, "%s 在提交过程中被改动过，与提交日志不符", "%s was changed during the commit and no longer matches the commit journal", rel).
		With("file", rel).WithExit(errs.ExitFailed).
		Hint("把该文件改回提交前的内容后重新运行同一条命令；novel-commit rebuild --check 会说明能否从 changelog 重建状态", "put the file back as it was and run the same command again; novel-commit rebuild --check says whether the changelog can rebuild the state")
}

func stepState(root *project.Root, j *Journal) error {
	var cur []byte
	var h string
	if st := j.staged; st != nil && st.state != nil && unchangedSince(root, layout.CurrentState, st.stateInfo) {
		cur, h = st.oldState, j.State.Old // the bytes Prepare read and fingerprinted
	} else {
		var err error
		if cur, err = root.ReadFile(layout.CurrentState); err != nil {
			return err
		}
		h = journal.Fingerprint(cur)
	}
	var newState [][]byte
	var oldState []byte
	switch {
	case h == j.State.New:
		newState = nil // already written
	case h == j.State.Old:
		oldState = cur
		if j.staged != nil && j.staged.state != nil {
			newState = j.staged.state
		} else {
			// Resumed: recompute from the staging delta, still in place until cleanup.
			delta, err := products.ReadDelta(root, j.Chapter)
			if err != nil {
				return err
			}
			doc, err := stateops.Open(cur, layout.CurrentState)
			if err != nil {
				return err
			}
			ops, _, _ := validateOps(delta.Ops)
			if newState, _, err = doc.ApplyParts(ops, j.Chapter); err != nil {
				return err
			}
			if journal.FingerprintParts(newState) != j.State.New {
				return ChangedErr(layout.CurrentState)
			}
		}
	default:
		return ChangedErr(layout.CurrentState)
	}
	if newState != nil {
		if j.State.WriteBaseline {
			if err := root.WriteFile(layout.Baseline, oldState); err != nil {
				return err
			}
		}
		abs, err := root.Abs(layout.CurrentState)
		if err != nil {
			return err
		}
		if err := root.Writer().WriteFileParts(abs, newState); err != nil {
			return err
		}
	}
	if j.staged != nil {
		// Written: let the ≈ 12 MB of old and new state go before the
		// maintenance step's audit reads the window (peak RSS, GC).
		j.staged.state, j.staged.oldState = nil, nil
	}
	if err := j.Changelog.Replay(root); err != nil {
		return err
	}
	if j.Mentions == nil {
		return nil
	}
	return j.Mentions.Replay(root)
}

func stepForeshadow(root *project.Root, j *Journal) error {
	fc := j.Foreshadow
	if fc == nil {
		return nil
	}
	h := ""
	if st := j.staged; st != nil && st.global != nil && st.globalInfo != nil && unchangedSince(root, layout.GlobalForeshadow, st.globalInfo) {
		h = fc.Old // still the version Prepare read
	} else {
		cur, err := root.ReadIfExists(layout.GlobalForeshadow)
		if err != nil {
			return err
		}
		if cur != nil {
			h = journal.Fingerprint(cur)
		}
	}
	if h == fc.New {
		return nil
	}
	if h != fc.Old {
		return ChangedErr(layout.GlobalForeshadow)
	}
	data := []byte(nil)
	if j.staged != nil && j.staged.global != nil {
		data = j.staged.global
	} else {
		delta, err := products.ReadDelta(root, j.Chapter)
		if err != nil {
			return err
		}
		gf, err := foreshadow.LoadGlobalFile(root)
		if err != nil {
			return err
		}
		_, _, fsRaw := validateOps(delta.Ops)
		if data, _, err = mergeForeshadow(root, gf, j.Volume, fsRaw, j.Chapter, j.StorylineID); err != nil {
			return err
		}
		if journal.Fingerprint(data) != fc.New {
			return ChangedErr(layout.GlobalForeshadow)
		}
	}
	return root.WriteFile(layout.GlobalForeshadow, data)
}

func stepCheckpoint(root *project.Root, j *Journal) error {
	return checkpoint.Edit(root, j.CommittedAt, func(cp *checkpoint.Checkpoint) (bool, error) {
		cp.LastCompleted = j.Chapter
		cp.Stage = checkpoint.Committed
		cp.Inflight = 0
		cp.RevisionCount = 0
		cp.State = j.TargetState
		return true, nil
	})
}

// stepCleanup removes the chapter's staging files (products, packets,
// snapshots, stamps, run log, archived rounds), then the journal.
func stepCleanup(root *project.Root, j *Journal) error {
	c := j.Chapter
	files, err := products.StagingFiles(root, c)
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, rel := range files {
		abs, err := root.Abs(rel)
		if err != nil {
			return err
		}
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errs.AccessFailed(rel, err)
		}
	}
	for _, dir := range []string{layout.RevisionsDir(c), layout.StagingStoryline(j.StorylineID)} {
		abs, err := root.Abs(dir)
		if err != nil {
			return err
		}
		if dir == layout.RevisionsDir(c) {
			if err := os.RemoveAll(abs); err != nil {
				return errs.AccessFailed(dir, err)
			}
			continue
		}
		os.Remove(abs) // only when empty
	}
	abs, err := root.Abs(layout.CommitJournal(c))
	if err != nil {
		return err
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.AccessFailed(layout.CommitJournal(c), err)
	}
	root.Writer().SyncDir(filepath.Dir(abs))
	return nil
}
