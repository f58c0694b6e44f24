package rollback

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/stateops"
)

// Steps lists the rollback step names in execution order.
var Steps = []string{commit.StepJournal, commit.StepMove, commit.StepMemory, commit.StepState, commit.StepChangelog,
	commit.StepForeshadow, commit.StepUnknownEntities, commit.StepRevisions, commit.StepCheckpoint, commit.StepCleanup}

// rolledBackNote is the decision note of revision files of rolled-back chapters.
const rolledBackNote = "rolled back"

// Output is what `novel-commit rollback` prints (SPEC §8.4).
type Output struct {
	To           int            `json:"to"`
	RolledBack   []int          `json:"rolled_back"`
	StateVersion int            `json:"state_version"`
	Moved        []journal.Move `json:"moved"`
	Warnings     []string       `json:"warnings"`
}

// Truncation pins a file cut back to its first Size bytes.
type Truncation struct {
	File string `json:"file"`
	Old  string `json:"old_sha256"`
	New  string `json:"new_sha256"`
	Size int64  `json:"size"`
}

// Journal is staging/rollback.journal.json: everything the
// rollback will do, written before the first change and deleted last, so
// a re-run after a kill finishes exactly this rollback.
type Journal struct {
	JournalVersion int                `json:"journal_version"`
	To             int                `json:"to"`
	From           int                `json:"from"`
	StartedAt      string             `json:"started_at"`
	Volume         int                `json:"current_volume"`
	Plan           []journal.PlanStep `json:"plan"`
	// Moves are the rolled-back chapters' files (and unreadable revision
	// files); MemoryMoves restore the storyline memories, in order.
	Moves           []journal.Move      `json:"moves"`
	MemoryMoves     []journal.Move      `json:"memory_moves"`
	State           *journal.FileChange `json:"state"`
	Changelog       *Truncation         `json:"changelog"`
	Foreshadow      *journal.FileChange `json:"foreshadow"`
	UnknownEntities *journal.FileChange `json:"unknown_entities"`
	Mentions        *journal.FileChange `json:"mentions,omitempty"` // cut in the changelog step (SPEC §25)
	Revisions       []int               `json:"revisions"`
	Output          Output              `json:"output"`

	cpBytes checkpoint.Snapshot
	staged  map[string][]byte // new contents computed by Prepare (not on resume)
}

// Read is the checkpoint as Prepare read it.
func (j *Journal) Read() checkpoint.Snapshot { return j.cpBytes }

// LoadJournal reads the pending rollback journal.
func LoadJournal(root *project.Root) (*Journal, error) {
	var j Journal
	if err := journal.Read(root, layout.RollbackJournal, "回滚日志", "rollback journal", &j); err != nil {
		return nil, err
	}
	if j.To < 1 || len(j.Plan) == 0 || j.State == nil {
		return nil, journal.Damaged(root, errs.Newf(errs.Schema, "%s 不是有效的回滚日志", "%s is not a valid rollback journal", layout.RollbackJournal).
			With("file", layout.RollbackJournal), layout.RollbackJournal, "回滚日志", "rollback journal")
	}
	return &j, nil
}

// Prepare checks every precondition of `rollback --to c` and
// computes the whole rollback without writing anything.
func Prepare(env commit.Env, c int) (*Journal, error) {
	root := env.Root
	if c < 1 {
		return nil, errs.New(errs.Usage, "--to 必须 ≥ 1", "--to must be ≥ 1").Hint("用 --help 查看用法", "see --help")
	}
	cp, cpBytes, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	if err := rollbackPreconditions(root, cp, c); err != nil {
		return nil, err
	}
	// The state and changelog must agree before they are cut back, or the
	// replay to c would silently drop whatever made them differ.
	if _, err := changelog.Check(root); err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.State {
			e.Hint("回滚前状态必须与 changelog 一致。"+e.HintZh, "the state must match its changelog before a rollback. "+e.HintEn)
		}
		return nil, err
	}
	last := cp.LastCompleted
	j := &Journal{JournalVersion: 1, To: c, From: last, StartedAt: env.Now, cpBytes: cpBytes, staged: map[string][]byte{}}
	out := &j.Output
	out.To, out.Warnings, out.Moved = c, []string{}, []journal.Move{}
	for k := c; k <= last; k++ {
		out.RolledBack = append(out.RolledBack, k)
	}

	touched, lastBefore, err := rollbackStateAndLog(root, j)
	if err != nil {
		return nil, err
	}
	// Each rolled-back chapter's files go to its own rolled-back folder.
	dirs := map[int]string{}
	for k := c; k <= last; k++ {
		dirs[k] = rolledBackDir(root, k)
	}
	if err := rollbackChapterFiles(root, j, dirs); err != nil {
		return nil, err
	}
	rollbackMemories(root, j, dirs, touched, lastBefore)
	if err := rollbackDerived(root, j); err != nil {
		return nil, err
	}
	vol, warn := outline.VolumeOf(root, c, cp.CurrentVolume)
	if warn != "" {
		out.Warnings = append(out.Warnings, warn)
	}
	j.Volume = vol
	j.Plan = rollbackPlan(j)
	// Every path is resolved before the journal is written, so a refusal
	// leaves nothing behind (SPEC §22.1).
	if err := commit.CheckMoves(root, "rollback_step", commit.StepMove, j.Moves); err != nil {
		return nil, err
	}
	if err := commit.CheckMoves(root, "rollback_step", commit.StepMemory, j.MemoryMoves); err != nil {
		return nil, err
	}
	if err := commit.CheckPlanPaths(root, "rollback_step", j.Plan); err != nil {
		return nil, err
	}
	return j, nil
}

// rollbackStateAndLog replays the state from the baseline and the
// changelog lines < To, and cuts the changelog there; it returns which
// storylines the rolled-back chapters wrote and each one's last chapter
// before To.
func rollbackStateAndLog(root *project.Root, j *Journal) (map[string][]int, map[string]int, error) {
	c, out := j.To, &j.Output
	// The state: baseline + changelog lines < c.
	if err := rollbackBaseline(root, c); err != nil {
		return nil, nil, err
	}
	oldState, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return nil, nil, err
	}
	newState, res, err := changelog.Replay(root, c)
	if err != nil {
		return nil, nil, err
	}
	out.StateVersion = res.StateVersion
	j.State = &journal.FileChange{File: layout.CurrentState, Old: journal.Fingerprint(oldState), New: journal.Fingerprint(newState)}
	j.staged[layout.CurrentState] = newState

	// The changelog: its prefix before the first line of chapter ≥ c, plus
	// which storylines the rolled-back chapters wrote.
	log, err := root.ReadIfExists(layout.Changelog)
	if err != nil {
		return nil, nil, err
	}
	cut, lastBefore, touched := scanChangelog(log, c, changelog.BaseVersion(root))
	if cut < int64(len(log)) {
		j.Changelog = &Truncation{File: layout.Changelog, Old: journal.Fingerprint(log), New: journal.Fingerprint(log[:cut]), Size: cut}
	}

	return touched, lastBefore, nil
}

// rollbackChapterFiles moves each rolled-back chapter's files to its
// folder, and lists its revision files to mark rejected.
func rollbackChapterFiles(root *project.Root, j *Journal, dirs map[int]string) error {
	c, last, out := j.To, j.From, &j.Output
	// An imported chapter's text is the author's manuscript, not a product
	// of its backfill commit: it stays in chapters/, so the rollback undoes
	// the backfill and `make … backfill` can redo it (field trial F27).
	imported := map[int]bool{}
	if root.Exists(layout.ImportLog) {
		list, err := commit.ImportedChapters(root)
		if err != nil {
			return err
		}
		for _, k := range list {
			imported[k] = true
		}
	}
	var kept []string
	for k := c; k <= last; k++ {
		files := []string{layout.Chapter(k), layout.Summary(k), layout.Eval(k), layout.Crossref(k), layout.ChapterLog(k), layout.LogicReview(k)}
		if imported[k] {
			files = files[1:]
			kept = append(kept, strconv.Itoa(k))
		}
		for _, rel := range files {
			if root.Exists(rel) {
				j.Moves = append(j.Moves, journal.Move{From: rel, To: dirs[k] + "/" + rel})
			}
		}
	}

	if len(kept) > 0 {
		list := strings.Join(kept, ", ")
		out.Warnings = append(out.Warnings, "导入的第 "+list+" 章正文保留在 chapters/，运行 make -f pipeline.mk backfill 重新回填 / the imported text of chapters "+
			list+" stays in chapters/; run make -f pipeline.mk backfill to commit it again")
	}

	// Audit reports (and the continuity-auditor's reviews) of windows
	// ending at a rolled-back chapter go with that chapter, and so do the "latest" copies written then (SPEC §21): they
	// describe text that is no longer committed.
	for k := c; k <= last; k++ {
		for _, rel := range []string{layout.ContinuityReport(k), layout.AgentAuditReport(k)} {
			if root.Exists(rel) {
				j.Moves = append(j.Moves, journal.Move{From: rel, To: dirs[k] + "/" + rel})
			}
		}
	}
	for _, rel := range audit.LatestPaths {
		if end := audit.WindowEnd(root, rel); end >= c && end <= last {
			j.Moves = append(j.Moves, journal.Move{From: rel, To: dirs[end] + "/" + rel})
		}
	}

	// Revision files: readable ones are marked rejected; an unreadable one
	// (which blocks every entrypoint) goes with its chapter's files.
	for k := c; k <= last; k++ {
		st, err := revision.Load(root, k)
		if err != nil {
			for _, rel := range []string{layout.Revision(k), layout.RevisionUnderscore(k)} {
				if root.Exists(rel) {
					j.Moves = append(j.Moves, journal.Move{From: rel, To: dirs[k] + "/" + rel})
					out.Warnings = append(out.Warnings, rel+" 无法读取，已随该章移走 / "+rel+" is unreadable; moved with its chapter")
				}
			}
			continue
		}
		if st != nil {
			j.Revisions = append(j.Revisions, k)
		}
	}

	return nil
}

// rollbackMemories moves each rolled-back chapter's storyline memory to
// its folder and brings back the memory from before To out of history/.
func rollbackMemories(root *project.Root, j *Journal, dirs map[int]string, touched map[string][]int, lastBefore map[string]int) {
	out := &j.Output
	// Storyline memories: each rolled-back chapter's memory goes to its
	// folder, and the memory from before chapter c comes back from history/.
	ids := make([]string, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !project.IsSlug(id) {
			out.Warnings = append(out.Warnings, "changelog storyline_id "+strconv.Quote(id)+" is not a slug; its memory is left as is")
			continue
		}
		chs := touched[id]
		for i, k := range chs {
			src := layout.MemoryHistory(id, k)
			if i == len(chs)-1 {
				src = layout.Memory(id)
			}
			if root.Exists(src) {
				j.MemoryMoves = append(j.MemoryMoves, journal.Move{From: src, To: dirs[k] + "/" + layout.Memory(id)})
			}
		}
		prev := lastBefore[id]
		if hist := layout.MemoryHistory(id, prev); root.Exists(hist) {
			j.MemoryMoves = append(j.MemoryMoves, journal.Move{From: hist, To: layout.Memory(id)})
		} else if prev > 0 {
			out.Warnings = append(out.Warnings, "缺少 "+hist+"，故事线 "+id+" 回滚后没有记忆文件 / "+hist+
				" is missing: storyline "+id+" has no memory after the rollback")
		}
	}
	out.Moved = append(append(out.Moved, j.Moves...), j.MemoryMoves...)

}

// rollbackDerived drops what the rolled-back chapters added to the
// foreshadowing and the unknown-entities log.
func rollbackDerived(root *project.Root, j *Journal) error {
	c := j.To
	// Foreshadowing: drop what the rolled-back chapters added.
	if root.Exists(layout.GlobalForeshadow) {
		cur, err := root.ReadFile(layout.GlobalForeshadow)
		if err != nil {
			return err
		}
		data, err := rollbackForeshadow(cur, c)
		if err != nil {
			return err
		}
		if !bytes.Equal(cur, data) {
			j.Foreshadow = &journal.FileChange{File: layout.GlobalForeshadow, Old: journal.Fingerprint(cur), New: journal.Fingerprint(data)}
			j.staged[layout.GlobalForeshadow] = data
		}
	}

	// Unknown entities logged by the rolled-back chapters, and the
	// mentions ledger's lines of them (SPEC §25): both are chapter-keyed
	// JSON lines, cut the same way.
	var err error
	if j.UnknownEntities, err = j.stageCut(root, layout.UnknownEntities, c); err != nil {
		return err
	}
	if j.Mentions, err = j.stageCut(root, layout.Mentions, c); err != nil {
		return err
	}

	return nil
}

func rollbackPreconditions(root *project.Root, cp *checkpoint.Checkpoint, c int) error {
	if c > cp.LastCompleted {
		return errs.Newf(errs.State, "第 %d 章尚未提交（last_completed_chapter=%d），没有可回滚的内容", "chapter %d is not committed (last_completed_chapter=%d); there is nothing to roll back",
			c, cp.LastCompleted).With("to", c).With("last_completed_chapter", cp.LastCompleted).WithExit(errs.ExitFailed).
			Hint("--to 取 1 到 "+strconv.Itoa(cp.LastCompleted)+" 之间的章节", "pass --to between 1 and "+strconv.Itoa(cp.LastCompleted))
	}
	inflight := 0
	if !cp.Idle() {
		inflight = cp.Inflight
	} else if root.Exists(layout.StagingChapter(cp.LastCompleted + 1)) {
		inflight = cp.LastCompleted + 1 // a draft finished before its advance
	}
	if inflight != 0 {
		n := strconv.Itoa(inflight)
		return errs.Newf(errs.State, "第 %d 章正在进行中，不能回滚", "chapter %d is in progress; cannot roll back", inflight).
			With("inflight_chapter", inflight).With("to", c).
			Hint("先放弃它：novel-step abandon --chapter "+n+"（暂存文件会保留在 staging/abandoned/），再回滚",
				"abandon it first: novel-step abandon --chapter "+n+" (its staging files are kept in staging/abandoned/), then roll back")
	}
	return nil
}

// rollbackBaseline refuses a rollback into chapters the baseline already
// contains: their ops are not in the changelog, so they cannot be undone.
func rollbackBaseline(root *project.Root, c int) error {
	if !root.Exists(layout.Baseline) {
		return nil
	}
	data, err := root.ReadFile(layout.Baseline)
	if err != nil {
		return err
	}
	st, _, err := stateops.DecodeState(data, layout.Baseline)
	if err != nil {
		return err
	}
	if b, _ := jsonio.Int(st["last_updated_chapter"]); b >= c {
		return errs.Newf(errs.State, "%s 已包含第 %d 章的状态，无法回滚到第 %d 章", "%s already contains chapter %d; cannot roll back to chapter %d", layout.Baseline, b, c).
			With("file", layout.Baseline).With("baseline_chapter", b).With("to", c).WithExit(errs.ExitFailed).
			Hint("只能回滚到第 "+strconv.Itoa(b+1)+" 章或之后", "roll back to chapter "+strconv.Itoa(b+1)+" or later")
	}
	return nil
}

// scanChangelog finds the byte offset of the first replayed line of a
// chapter ≥ c (the cut), the last chapter < c of each storyline, and the
// chapters ≥ c of each storyline in order.
func scanChangelog(data []byte, c, base int) (cut int64, lastBefore map[string]int, touched map[string][]int) {
	lastBefore, touched = map[string]int{}, map[string][]int{}
	cut = int64(len(data))
	found := false
	for off := 0; off < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if rl, err := changelog.ParseEntry(bytes.TrimSpace(data[off:next])); err == nil && rl.Commit {
			switch {
			case rl.StateVersion > base && rl.Chapter >= c:
				if !found {
					cut, found = int64(off), true
				}
				if rl.StorylineID != "" {
					touched[rl.StorylineID] = append(touched[rl.StorylineID], rl.Chapter)
				}
			case !found && rl.StorylineID != "":
				// Replay stops at the cut, so only lines before it count.
				lastBefore[rl.StorylineID] = max(lastBefore[rl.StorylineID], rl.Chapter)
			}
		}
		off = next
	}
	for id, chs := range touched {
		sort.Ints(chs)
		touched[id] = chs
	}
	return cut, lastBefore, touched
}

// rolledBackDir is staging/rolled-back/chapter-NNN, or chapter-NNN-2, -3…
// when an earlier rollback already used it (nothing is overwritten).
func rolledBackDir(root *project.Root, k int) string {
	dir := layout.RolledBack(k)
	for n := 2; root.Exists(dir); n++ {
		dir = layout.RolledBack(k) + "-" + strconv.Itoa(n)
	}
	return dir
}

func rollbackForeshadow(cur []byte, c int) ([]byte, error) {
	gf, err := foreshadow.Parse(cur, layout.GlobalForeshadow)
	if err != nil {
		return nil, err
	}
	data, err := gf.Encode(foreshadow.Rollback(gf.Items, c))
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", layout.GlobalForeshadow, err)
	}
	return data, nil
}

// filterUnknown drops the lines of chapters ≥ c; lines it cannot read are
// kept (they are not the rolled-back chapters' to remove).
func filterUnknown(data []byte, c int) []byte {
	var out []byte
	for _, ln := range jsonio.SplitLines(data) {
		var e struct {
			Chapter *int `json:"chapter"`
		}
		if json.Unmarshal(ln, &e) == nil && e.Chapter != nil && *e.Chapter >= c {
			continue
		}
		out = append(append(out, ln...), '\n')
	}
	return out
}

func rollbackPlan(j *Journal) []journal.PlanStep {
	moved := func(ms []journal.Move) []string {
		w := []string{}
		for _, m := range ms {
			w = append(w, m.To)
		}
		return w
	}
	opt := func(ok bool, rel string) []string {
		if ok {
			return []string{rel}
		}
		return []string{}
	}
	revs := []string{}
	for _, k := range j.Revisions {
		revs = append(revs, layout.Revision(k))
	}
	return []journal.PlanStep{
		{Name: commit.StepJournal, Writes: []string{layout.RollbackJournal}},
		{Name: commit.StepMove, Writes: moved(j.Moves)},
		{Name: commit.StepMemory, Writes: moved(j.MemoryMoves)},
		{Name: commit.StepState, Writes: opt(j.State.Old != j.State.New, layout.CurrentState)},
		{Name: commit.StepChangelog, Writes: append(opt(j.Changelog != nil, layout.Changelog), opt(j.Mentions != nil, layout.Mentions)...)},
		{Name: commit.StepForeshadow, Writes: opt(j.Foreshadow != nil, layout.GlobalForeshadow)},
		{Name: commit.StepUnknownEntities, Writes: opt(j.UnknownEntities != nil, layout.UnknownEntities)},
		{Name: commit.StepRevisions, Writes: revs},
		{Name: commit.StepCheckpoint, Writes: []string{layout.Checkpoint}},
		{Name: commit.StepCleanup, Writes: []string{layout.RollbackJournal}},
	}
}

// Execute writes the journal (fresh rollbacks) and runs every
// step. Each step is idempotent, so a resumed rollback runs them all again.
func Execute(env commit.Env, j *Journal, fresh bool) (*Output, error) {
	root := env.Root
	steps := []journal.Step{
		{Name: commit.StepMove, Run: func() error { return moveAll(root, j.Moves) }},
		{Name: commit.StepMemory, Run: func() error { return moveAll(root, j.MemoryMoves) }},
		{Name: commit.StepState, Run: func() error { return rollbackState(root, j) }},
		{Name: commit.StepChangelog, Run: func() error {
			if err := rollbackChangelog(root, j.Changelog); err != nil {
				return err
			}
			return rewrite(root, j, j.Mentions, func(cur []byte) ([]byte, error) { return filterUnknown(cur, j.To), nil })
		}},
		{Name: commit.StepForeshadow, Run: func() error {
			return rewrite(root, j, j.Foreshadow, func(cur []byte) ([]byte, error) { return rollbackForeshadow(cur, j.To) })
		}},
		{Name: commit.StepUnknownEntities, Run: func() error {
			return rewrite(root, j, j.UnknownEntities, func(cur []byte) ([]byte, error) { return filterUnknown(cur, j.To), nil })
		}},
		{Name: commit.StepRevisions, Run: func() error {
			for _, k := range j.Revisions {
				if _, err := revision.SetStatus(root, k, revision.StatusRejected, rolledBackNote, j.StartedAt); err != nil {
					return err
				}
			}
			return nil
		}},
		{Name: commit.StepCheckpoint, Run: func() error { return rollbackCheckpoint(root, j) }},
		{Name: commit.StepCleanup, Run: func() error { return root.Remove(layout.RollbackJournal) }},
	}
	temps := []string{layout.CurrentState, layout.Changelog, layout.GlobalForeshadow, layout.UnknownEntities, layout.Mentions, layout.Checkpoint}
	for _, k := range j.Revisions {
		temps = append(temps, layout.Revision(k))
	}
	tx := journal.Tx{File: layout.RollbackJournal, Key: "rollback_step", Resume: "novel-commit rollback --to " + strconv.Itoa(j.To), Temps: temps}
	if err := tx.Run(root, j, fresh, env.Crash, steps); err != nil {
		return nil, err
	}
	out := j.Output
	return &out, nil
}

// moveAll renames each file into place. A move whose destination exists
// is done (the destinations are fresh folders, or a memory that an earlier
// move of the list cleared); one whose source is gone was done before.
func moveAll(root *project.Root, moves []journal.Move) error {
	for _, m := range moves {
		if _, err := root.Abs(m.From); err != nil {
			return err
		}
		if done, err := root.Lexists(m.To); err != nil || done {
			if err != nil {
				return err
			}
			continue
		}
		if there, err := root.Lexists(m.From); err != nil || !there {
			if err != nil {
				return err
			}
			continue
		}
		if err := root.Move(m.From, m.To); err != nil {
			return err
		}
	}
	return nil
}

func rollbackState(root *project.Root, j *Journal) error {
	return rewrite(root, j, j.State, func([]byte) ([]byte, error) {
		data, _, err := changelog.Replay(root, j.To)
		return data, err
	})
}

// rewrite brings fc.File from its Old to its New content: done when it
// already hashes to New, recomputed by next from the Old bytes (a resumed
// rollback has no staged copy), refused when a third party changed it.
// An empty New means the file is removed.
func rewrite(root *project.Root, j *Journal, fc *journal.FileChange, next func(cur []byte) ([]byte, error)) error {
	if fc == nil || fc.Old == fc.New {
		return nil
	}
	cur, err := root.ReadIfExists(fc.File)
	if err != nil {
		return err
	}
	if cur == nil {
		if fc.New == "" {
			return nil
		}
		return commit.ChangedErr(fc.File)
	}
	switch journal.Fingerprint(cur) {
	case fc.New:
		return nil
	case fc.Old:
	default:
		return commit.ChangedErr(fc.File)
	}
	data, ok := j.staged[fc.File]
	if !ok {
		if data, err = next(cur); err != nil {
			return err
		}
	}
	if fc.New == "" && len(data) == 0 {
		return root.Remove(fc.File)
	}
	if journal.Fingerprint(data) != fc.New {
		return commit.ChangedErr(fc.File)
	}
	return root.WriteFile(fc.File, data)
}

// rollbackChangelog cuts the changelog back to its prefix atomically
// (temp file + rename), so a kill never leaves a half-cut log.
func rollbackChangelog(root *project.Root, t *Truncation) error {
	if t == nil {
		return nil
	}
	cur, err := root.ReadIfExists(t.File)
	if err != nil {
		return err
	}
	switch h := journal.Fingerprint(cur); {
	case cur != nil && h == t.New:
		return nil
	case cur != nil && h == t.Old && int64(len(cur)) >= t.Size:
		return root.WriteFile(t.File, cur[:t.Size])
	default:
		return commit.ChangedErr(t.File)
	}
}

func rollbackCheckpoint(root *project.Root, j *Journal) error {
	return checkpoint.Edit(root, j.StartedAt, func(cp *checkpoint.Checkpoint) (bool, error) {
		cp.LastCompleted = j.To - 1
		cp.CurrentVolume = j.Volume
		cp.State = checkpoint.Writing
		cp.Stage = checkpoint.Committed
		cp.Inflight = 0
		cp.RevisionCount = 0
		cp.LastError = nil
		return true, nil
	})
}

// stageCut stages rel (chapter-keyed JSON lines) without the lines of the
// chapters after c; nil when the file is absent or keeps every line.
func (j *Journal) stageCut(root *project.Root, rel string, c int) (*journal.FileChange, error) {
	if !root.Exists(rel) {
		return nil, nil
	}
	cur, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	data := filterUnknown(cur, c)
	if bytes.Equal(cur, data) {
		return nil, nil
	}
	fc := &journal.FileChange{File: rel, Old: journal.Fingerprint(cur)}
	if len(data) > 0 {
		fc.New = journal.Fingerprint(data)
	}
	j.staged[rel] = data
	return fc, nil
}
