// Package commit is the journaled chapter commit (SPEC §8): preconditions,
// the plan, the eight idempotent steps, crash recovery from the journal,
// and rebuild of the state from the changelog.
package commit

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/textmeasure"
	"github.com/novelsuite/novel/internal/volume"
)

// Step names of the commit, backfill, rollback and amend journals
// (plan[].name; NOVEL_CRASH_AT takes one of them): one name per kind of
// write, whichever transaction makes it. Steps, rollback.Steps and
// AmendSteps give each transaction's order.
const (
	StepJournal         = journal.StepJournal
	StepMove            = "move"
	StepSummary         = "summary"
	StepMemory          = "memory"
	StepState           = "state"
	StepChangelog       = "changelog"
	StepForeshadow      = "foreshadow"
	StepUnknownEntities = "unknown_entities"
	StepRevisions       = "revisions"
	StepChapterLog      = "chapter_log"
	StepMaintenance     = "maintenance"
	StepCheckpoint      = "checkpoint"
	StepCleanup         = "cleanup"
)

// Steps lists the step names in execution order.
var Steps = []string{StepJournal, StepMove, StepState, StepForeshadow, StepUnknownEntities,
	StepChapterLog, StepMaintenance, StepCheckpoint, StepCleanup}

// Output is the commit result (SPEC §8.1), field order as documented.
type Output struct {
	Chapter           int                `json:"chapter"`
	WordCount         int                `json:"word_count"`
	OverallFinal      float64            `json:"overall_final"`
	GateDecision      string             `json:"gate_decision"`
	RevisionCount     int                `json:"revision_count"`
	AppliedOps        int                `json:"applied_ops"`
	DroppedOps        []stateops.Dropped `json:"dropped_ops"`
	Warnings          []string           `json:"warnings"`
	StateVersion      int                `json:"state_version"`
	OrchestratorState string             `json:"orchestrator_state"`
	Periodic          Periodic           `json:"periodic"`
	Maintenance       any                `json:"maintenance"`
}

// Journal is staging/commit-NNN.journal.json, written before the first
// change and deleted last (SPEC §8.4).
type Journal struct {
	JournalVersion  int                 `json:"journal_version"`
	Backfill        bool                `json:"backfill,omitempty"` // an imported chapter: no eval, gate or chapter log
	Chapter         int                 `json:"chapter"`
	Volume          int                 `json:"volume"`
	CommittedAt     string              `json:"committed_at"`
	StorylineID     string              `json:"storyline_id"`
	Plan            []journal.PlanStep  `json:"plan"`
	Moves           []journal.Move      `json:"moves"`
	MemoryHistory   string              `json:"memory_history,omitempty"`
	Eval            any                 `json:"eval"`
	State           journal.FileChange  `json:"state"`
	Foreshadow      *journal.FileChange `json:"foreshadow"`
	Changelog       journal.Append      `json:"changelog"`
	UnknownEntities *journal.Append     `json:"unknown_entities"`
	Mentions        *journal.Append     `json:"mentions,omitempty"` // state/mentions.jsonl, appended in the state step (SPEC §25)
	ChapterLog      runlog.ChapterLog   `json:"chapter_log"`
	TargetState     string              `json:"orchestrator_state"`
	Output          Output              `json:"output"`
	staged          *stagedFiles        `json:"-"`
	cpBytes         checkpoint.Snapshot
	cast            <-chan castRead // the registered characters, read ahead (nil: read when needed)
}

// Read is the checkpoint as Prepare read it (checkpoint.Update prepares
// again when another writer moved it before the lock was taken).
func (j *Journal) Read() checkpoint.Snapshot { return j.cpBytes }

// stagedFiles carries the computed big files of a fresh commit so they
// are not recomputed; a resumed commit recomputes them from the journal.
type stagedFiles struct {
	state            [][]byte // the new state in pieces (stateops.ApplyParts)
	oldState, global []byte
	// The versions Prepare read; while the files are still those, the
	// steps need not read and fingerprint megabytes again.
	stateInfo, globalInfo os.FileInfo
	// items is the foreshadowing as written (parsed for the 5th-chapter
	// brief); the maintenance step's audit reuses it instead of parsing
	// the file again. nil when the commit did not parse it.
	items []foreshadow.Item
}

// unchangedSince reports whether rel is still the version info describes.
func unchangedSince(root *project.Root, rel string, info os.FileInfo) bool {
	abs, err := root.Abs(rel)
	return err == nil && jsonio.SameVersion(abs, info)
}

// Env is what a commit needs from the process.
type Env struct {
	Root     *project.Root
	Settings settings.Settings
	Now      string
	// Crash is called after each step (the NOVEL_CRASH_AT test hook).
	Crash func(step string)
}

// Prepare checks every §8.1 precondition and computes the whole commit
// without writing anything, phase by phase: the state, foreshadowing,
// unknown entities, the chapter's products, the moves, the checkpoint
// target; then the paths and destinations it will write are checked.
func Prepare(env Env, c int) (*Journal, error) {
	root := env.Root
	// Reading and checking the multi-MiB state is the biggest single
	// cost; it runs alongside the preconditions (another core). Its
	// errors are still reported where the state is first needed, so a
	// failed precondition wins as before.
	stateCh := make(chan stateRead, 1)
	go func() { stateCh <- readState(root) }()
	castCh := preloadCast(root) // hundreds of small files: read while the rest is checked
	cp, cpBytes, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	if err := integrity.Require(root, cp.LastCompleted); err != nil {
		return nil, err
	}
	if err := preconditions(env, cp, c); err != nil {
		return nil, err
	}
	delta, err := products.ReadDelta(root, c)
	if err != nil {
		return nil, err
	}
	j := &Journal{JournalVersion: 1, Chapter: c, Volume: cp.CurrentVolume, CommittedAt: env.Now, StorylineID: delta.StorylineID, cpBytes: cpBytes, cast: castCh}
	j.Output.Chapter, j.Output.RevisionCount = c, cp.RevisionCount
	j.Output.Warnings = []string{}
	fsRaw, err := prepareState(root, j, delta, <-stateCh)
	if err != nil {
		return nil, err
	}
	merged, err := prepareForeshadow(root, j, fsRaw)
	if err != nil {
		return nil, err
	}
	if err := unknownEntities(root, j, delta); err != nil {
		return nil, err
	}
	if err := prepareProducts(root, j); err != nil {
		return nil, err
	}
	if err := prepareMoves(root, j); err != nil {
		return nil, err
	}
	if err := prepareCheckpoint(root, j, merged); err != nil {
		return nil, err
	}
	if err := checkWritePaths(root, j.Plan); err != nil {
		return nil, err
	}
	if err := checkDestinations(root, j); err != nil {
		return nil, err
	}
	return j, nil
}

// prepareState checks the delta's base version, applies its ops to the
// state and prepares the state rewrite and the changelog line; it returns
// the valid foreshadow ops for the merge.
func prepareState(root *project.Root, j *Journal, delta *products.Delta, sr stateRead) ([]json.RawMessage, error) {
	c, out := j.Chapter, &j.Output
	if sr.err != nil {
		return nil, sr.err
	}
	oldState, stateInfo, doc := sr.data, sr.info, sr.doc
	if delta.BaseStateVersion != doc.Version {
		return nil, errs.Newf(errs.StateVersion, "第 %d 章的 delta 基于 state_version %d，但当前状态是 %d", "the delta of chapter %d is based on state_version %d but the state is at %d",
			c, delta.BaseStateVersion, doc.Version).
			With("file", delta.File).With("base_state_version", delta.BaseStateVersion).With("state_version", doc.Version).
			Hint("重新运行 summarize：novel instructions "+stepid.Chapter(c, stepid.Summarize).String(),
				"rerun summarize: novel instructions "+stepid.Chapter(c, stepid.Summarize).String())
	}
	ops, static, fsRaw := validateOps(delta.Ops)
	newState, res, err := doc.ApplyParts(ops, c)
	if err != nil {
		return nil, err
	}
	out.AppliedOps = len(res.Applied)
	out.DroppedOps = append(static, res.Dropped...)
	if out.DroppedOps == nil {
		out.DroppedOps = []stateops.Dropped{}
	}
	out.Warnings = append(out.Warnings, res.Warnings...)
	out.StateVersion = doc.Version + 1
	baselineMissing := !root.Exists(layout.Baseline)
	j.State = journal.FileChange{File: layout.CurrentState, Old: sr.sum, New: journal.FingerprintParts(newState), WriteBaseline: baselineMissing}
	ops0 := res.AppliedRaw()
	line, err := jsonio.MarshalLine(changelog.Line{Chapter: c, StateVersion: doc.Version + 1, BaseStateVersion: delta.BaseStateVersion,
		StorylineID: delta.StorylineID, CommittedAt: j.CommittedAt, Ops: ops0, Dropped: out.DroppedOps})
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法编码 changelog 行：%v", "cannot encode the changelog line: %v", err)
	}
	size, err := fileSize(root, layout.Changelog)
	if err != nil {
		return nil, err
	}
	sep, err := appendSeparator(root, layout.Changelog, size)
	if err != nil {
		return nil, err
	}
	j.Changelog = journal.Append{File: layout.Changelog, SizeBefore: size, Text: sep + string(line)}
	j.staged = &stagedFiles{state: newState, oldState: oldState, stateInfo: stateInfo}
	if err := prepareMentions(root, j, doc, res.Applied); err != nil {
		return nil, err
	}
	return fsRaw, nil
}

// prepareForeshadow merges the foreshadow ops into foreshadowing/global.json
// (read only when needed) and returns the items for the quality brief.
func prepareForeshadow(root *project.Root, j *Journal, fsRaw []json.RawMessage) ([]foreshadow.Item, error) {
	c, vol, storyline := j.Chapter, j.Volume, j.StorylineID
	var err error
	// Foreshadowing: a malformed global file fails here, before any write.
	// It is read only when needed (ops to merge, or the 5th-chapter brief):
	// at 2,000 items parsing it is the most expensive read of a commit.
	var merged []foreshadow.Item
	var gf *foreshadow.File
	var oldGlobal, newGlobal []byte
	var globalInfo os.FileInfo
	if len(fsRaw) > 0 || c%5 == 0 {
		// Read once: the bytes are parsed here and fingerprinted for the
		// journal below.
		if root.Exists(layout.GlobalForeshadow) {
			if oldGlobal, globalInfo, err = readInfo(root, layout.GlobalForeshadow); err != nil {
				return nil, err
			}
			if len(fsRaw) > 0 {
				// Only the named items are parsed when the file is in its
				// written layout; the untouched ones are copied as bytes.
				if newGlobal, err = splicedMerge(root, oldGlobal, vol, fsRaw, c, storyline); err != nil {
					return nil, err
				}
			}
			switch {
			case newGlobal == nil:
				if gf, err = foreshadow.Parse(oldGlobal, layout.GlobalForeshadow); err != nil {
					return nil, err
				}
			case c%5 == 0:
				// The brief needs every item as merged: parsing the
				// spliced file gives them (it is what Merge + Encode
				// would write) without encoding a thousand items again.
				pf, err := foreshadow.Parse(newGlobal, layout.GlobalForeshadow)
				if err != nil {
					return nil, err
				}
				merged = pf.Items
			}
		} else if gf, err = foreshadow.LoadGlobalFile(root); err != nil {
			return nil, err
		}
		if gf != nil {
			merged = gf.Items
		}
	} else if data, err := root.ReadIfExists(layout.GlobalForeshadow); err != nil {
		return nil, err
	} else if data != nil {
		// Not merged this time, but a broken file is still reported now
		// rather than at the next chapter that plants something.
		var raw json.RawMessage
		if err := jsonio.Decode(data, layout.GlobalForeshadow, &raw); err != nil {
			return nil, err
		}
	}
	if len(fsRaw) > 0 {
		if newGlobal == nil {
			if newGlobal, merged, err = mergeForeshadow(root, gf, vol, fsRaw, c, storyline); err != nil {
				return nil, err
			}
		}
		oldSum := ""
		if oldGlobal != nil {
			oldSum = journal.Fingerprint(oldGlobal)
		}
		j.Foreshadow = &journal.FileChange{File: layout.GlobalForeshadow, Old: oldSum, New: journal.Fingerprint(newGlobal)}
		j.staged.global, j.staged.globalInfo = newGlobal, globalInfo
	}
	return merged, nil
}

// prepareProducts reads the chapter text, the gate file and the evals,
// and builds the committed eval and the chapter log.
func prepareProducts(root *project.Root, j *Journal) error {
	c, out := j.Chapter, &j.Output
	// Chapter text, evals, gate.
	text, err := products.ChapterText(root, layout.StagingChapter(c))
	if err != nil {
		return err
	}
	out.WordCount = textmeasure.WordCount(text)
	g, err := gate.LoadGateFile(root, c)
	if err != nil {
		return err
	}
	out.GateDecision, out.OverallFinal = g.Decision, g.OverallFinal
	runs, runWarn := runlog.Read(root, c)
	out.Warnings = append(out.Warnings, runWarn...)
	ev, err := committedEval(root, c, g, runs)
	if err != nil {
		return err
	}
	j.Eval = ev
	j.ChapterLog = chapterLog(c, j.StorylineID, out, g, ev, runs, j.CommittedAt)
	return nil
}

// prepareMoves lists the staging files moved into the project and where
// the replaced storyline memory is kept.
func prepareMoves(root *project.Root, j *Journal) error {
	c := j.Chapter
	// Moves and the memory history.
	j.Moves = []journal.Move{
		{From: layout.StagingChapter(c), To: layout.Chapter(c)},
		{From: layout.StagingSummary(c), To: layout.Summary(c)},
	}
	if root.Exists(layout.StagingCrossref(c)) {
		j.Moves = append(j.Moves, journal.Move{From: layout.StagingCrossref(c), To: layout.Crossref(c)})
	}
	j.Moves = append(j.Moves, journal.Move{From: layout.StagingMemory(j.StorylineID), To: layout.Memory(j.StorylineID)})
	if root.Exists(layout.Memory(j.StorylineID)) {
		prev, err := changelog.LastOnStoryline(root, j.StorylineID, c)
		if err != nil {
			return err
		}
		j.MemoryHistory = layout.MemoryHistory(j.StorylineID, prev)
	}
	return nil
}

// prepareCheckpoint sets the orchestrator state the commit ends in, the
// periodic briefs and the plan.
func prepareCheckpoint(root *project.Root, j *Journal, merged []foreshadow.Item) error {
	c, out := j.Chapter, &j.Output
	// Checkpoint target and periodic briefs.
	last, err := volume.LastChapter(root, j.Volume)
	if err != nil {
		return err
	}
	j.TargetState = checkpoint.Writing
	if c == last {
		j.TargetState = checkpoint.VolReview
	}
	out.OrchestratorState = j.TargetState
	out.Periodic = periodic(root, c, j.Volume, c == last, out.OverallFinal, merged)
	if j.staged != nil && merged != nil {
		j.staged.items = merged
	}
	out.Maintenance = map[string]any{}
	j.Plan = plan(j)
	return nil
}

// stateRead is the state file as read, checked and fingerprinted.
type stateRead struct {
	data []byte
	info os.FileInfo
	doc  *stateops.Doc
	sum  string
	err  error
}

func readState(root *project.Root) (r stateRead) {
	if r.data, r.info, r.err = readInfo(root, layout.CurrentState); r.err != nil {
		return r
	}
	if r.doc, r.err = stateops.Open(r.data, layout.CurrentState); r.err != nil {
		return r
	}
	r.sum = journal.Fingerprint(r.data)
	return r
}

// readInfo reads a project file with the version it read (see
// unchangedSince).
func readInfo(root *project.Root, rel string) ([]byte, os.FileInfo, error) {
	abs, err := root.Abs(rel)
	if err != nil {
		return nil, nil, err
	}
	return jsonio.ReadFileInfo(abs, rel)
}

// validateOps splits the delta's ops into valid ones, static drops, and
// the raw valid foreshadow ops (for the merge).
func validateOps(raws []json.RawMessage) ([]stateops.Op, []stateops.Dropped, []json.RawMessage) {
	var ops []stateops.Op
	var dropped []stateops.Dropped
	var fs []json.RawMessage
	for _, raw := range raws {
		v, err := stateops.Decode(raw)
		if err != nil {
			dropped = append(dropped, stateops.Dropped{Op: string(raw), Reason: "op is not valid JSON"})
			continue
		}
		op, reason := stateops.Validate(v)
		if reason != "" {
			dropped = append(dropped, stateops.Dropped{Op: v, Reason: reason})
			continue
		}
		ops = append(ops, op)
		if op.Kind == stateops.Foreshadow {
			fs = append(fs, raw)
		}
	}
	return ops, dropped, fs
}

func mergeForeshadow(root *project.Root, gf *foreshadow.File, vol int, fsRaw []json.RawMessage, c int, storyline string) ([]byte, []foreshadow.Item, error) {
	plan, err := foreshadow.LoadPlan(root, vol)
	if err != nil {
		return nil, nil, err
	}
	merged, dropped := foreshadow.Merge(gf.Items, plan, foreshadow.ParseOps(fsRaw), c, storyline)
	if len(dropped) > 0 {
		return nil, nil, refusedOp(dropped[0].Reason)
	}
	data, err := gf.Encode(merged)
	if err != nil {
		return nil, nil, errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", layout.GlobalForeshadow, err)
	}
	return data, merged, nil
}

// splicedMerge is mergeForeshadow without parsing the items the ops do
// not name (foreshadow.MergeSpliced). nil, nil when it does not apply: the
// file is not in its written layout, or the plan does not load (the full
// path then reports the errors in its usual order).
func splicedMerge(root *project.Root, data []byte, vol int, fsRaw []json.RawMessage, c int, storyline string) ([]byte, error) {
	plan, err := foreshadow.LoadPlan(root, vol)
	if err != nil {
		return nil, nil
	}
	out, dropped, ok := foreshadow.MergeSpliced(data, plan, foreshadow.ParseOps(fsRaw), c, storyline)
	if !ok {
		return nil, nil
	}
	if len(dropped) > 0 {
		return nil, refusedOp(dropped[0].Reason)
	}
	return out, nil
}

func refusedOp(reason string) error {
	// The ops were validated with the same rule; a disagreement is a bug,
	// and applying the state part without the fact layer would split them.
	return errs.Newf(errs.IO, "伏笔合并拒绝了已校验的操作：%s", "the foreshadow merge refused a validated op: %s", reason)
}

func preconditions(env Env, cp *checkpoint.Checkpoint, c int) error {
	root := env.Root
	if !cp.Writable() {
		return errs.Newf(errs.State, "当前编排状态 %s 不允许提交章节", "orchestrator state %s does not allow committing a chapter", cp.State).
			With("orchestrator_state", cp.State).Hint("先用 novel-step status 查看状态", "check novel-step status first")
	}
	if cp.Inflight != c || cp.Idle() {
		return errs.Newf(errs.StageOrder, "第 %d 章不在进行中（inflight_chapter=%s），不能提交", "chapter %d is not in flight (inflight_chapter=%s); it cannot be committed",
			c, inflightText(cp)).With("chapter", c).With("inflight_chapter", nullInt(cp.Inflight)).
			Hint("用 novel-step next 查看下一步", "run novel-step next to see the next step")
	}
	if c != cp.LastCompleted+1 {
		return errs.Newf(errs.Checkpoint, "第 %d 章不是下一章：last_completed_chapter=%d", "chapter %d is not the next chapter: last_completed_chapter=%d",
			c, cp.LastCompleted).With("chapter", c).With("last_completed_chapter", cp.LastCompleted).
			Hint("检查 .checkpoint.json，或用 novel-step next 查看下一步", "check .checkpoint.json, or run novel-step next")
	}
	if err := revision.Check(root, c); err != nil {
		return err
	}
	if st, err := revision.Load(root, c); err != nil {
		return err
	} else if st != nil && st.Status == "pending" {
		return revision.BlockedError(root, st, c, revision.InFlight)
	}
	// `advance …:polish` rewrites the gate file (pass, polished) before the
	// checkpoint; a kill between the two leaves stage polishing with a
	// finished polish, which next reads as judged (SPEC §3 rule 5), so
	// commit accepts it too instead of refusing the step next proposed.
	polished := false
	if cp.Stage == checkpoint.Polishing {
		if g, err := gate.LoadGateFile(root, c); err == nil && g != nil && g.Decision == gate.Pass && g.Polished {
			polished = true
		}
	}
	if cp.Stage != checkpoint.Judged && !polished {
		return errs.Newf(errs.StageOrder, "第 %d 章的阶段是 %s，提交需要 judged", "chapter %d is at stage %s; commit needs judged", c, cp.Stage).
			With("chapter", c).With("pipeline_stage", cp.Stage).Hint("用 novel-step next 查看下一步", "run novel-step next to see the next step")
	}
	g, err := gate.RequireGateFile(root, c)
	if err != nil {
		return err
	}
	if !g.Committable() {
		return errs.Newf(errs.StageOrder, "第 %d 章的门控结论是 %s，只有 pass 或 accepted 可以提交", "the gate decision of chapter %d is %s; only pass or accepted can be committed",
			c, g.Decision).With("file", layout.StagingGate(c)).With("decision", g.Decision).
			Hint("用 novel-step next 继续（polish/revise 后重新评审）", "continue with novel-step next (polish or revise, then judge again)")
	}
	stages := []string{stepid.Draft, stepid.Summarize, stepid.Judge}
	if env.Settings.LogicReviewPolicy == settings.PolicyBlocking {
		stages = append(stages, stepid.LogicReview)
	}
	for _, s := range stages {
		if err := products.ValidateBeforeCommit(root, cp, stepid.Chapter(c, s), env.Settings); err != nil {
			return err
		}
	}
	return nil
}

func inflightText(cp *checkpoint.Checkpoint) string {
	if cp.Inflight == 0 {
		return "null"
	}
	return strconv.Itoa(cp.Inflight)
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func plan(j *Journal) []journal.PlanStep {
	c := j.Chapter
	var moves []string
	for _, m := range j.Moves {
		moves = append(moves, m.To)
	}
	if j.MemoryHistory != "" {
		moves = append(moves, j.MemoryHistory)
	}
	logW, maintW := []string{layout.ChapterLog(c)}, []string{layout.AIBlacklist, layout.StyleDrift}
	if j.Backfill {
		logW, maintW = []string{}, []string{}
	} else {
		moves = append(moves, layout.Eval(c))
	}
	stateW := []string{layout.CurrentState, layout.Changelog}
	if j.State.WriteBaseline {
		stateW = append(stateW, layout.Baseline)
	}
	if j.Mentions != nil {
		stateW = append(stateW, layout.Mentions)
	}
	fsW := []string{}
	if j.Foreshadow != nil {
		fsW = []string{layout.GlobalForeshadow}
	}
	ueW := []string{}
	if j.UnknownEntities != nil {
		ueW = []string{layout.UnknownEntities}
	}
	return []journal.PlanStep{
		{Name: StepJournal, Writes: []string{layout.CommitJournal(c)}},
		{Name: StepMove, Writes: moves},
		{Name: StepState, Writes: stateW},
		{Name: StepForeshadow, Writes: fsW},
		{Name: StepUnknownEntities, Writes: ueW},
		{Name: StepChapterLog, Writes: logW},
		{Name: StepMaintenance, Writes: maintW},
		{Name: StepCheckpoint, Writes: []string{layout.Checkpoint}},
		{Name: StepCleanup, Writes: []string{layout.StagingChapterFiles(c), layout.CommitJournal(c)}},
	}
}

// unknownEntities prepares the log append and the ≥ 3 distinct names
// warning (counted over the whole log plus this chapter's names).
func unknownEntities(root *project.Root, j *Journal, delta *products.Delta) error {
	rel := layout.UnknownEntities
	data, err := root.ReadIfExists(rel)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, ln := range jsonio.SplitLines(data) {
		if u, ok := products.ParseUnknownEntity(ln); ok {
			names[u.Name] = true
		}
	}
	var text []byte
	for _, u := range delta.UnknownEntities {
		if u.Name == "" {
			continue
		}
		names[u.Name] = true
		b, err := jsonio.MarshalLine(struct {
			Chapter       int    `json:"chapter"`
			Name          string `json:"name"`
			Context       string `json:"context"`
			SuggestedType string `json:"suggested_type,omitempty"`
		}{j.Chapter, u.Name, u.Context, u.SuggestedType})
		if err != nil {
			return err
		}
		text = append(text, b...)
	}
	if len(text) > 0 {
		size := int64(len(data))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			text = append([]byte{'\n'}, text...) // never glue onto a torn last line
		}
		j.UnknownEntities = &journal.Append{File: rel, SizeBefore: size, Text: string(text)}
	}
	if len(names) >= 3 {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		j.Output.Warnings = append(j.Output.Warnings, "项目中有 "+strconv.Itoa(len(names))+" 个未登记实体（"+joinMax(list, 10)+
			"），请在 characters/active/ 中建档 / "+strconv.Itoa(len(names))+" unknown entities are logged in "+rel+"; add them to characters/active/")
	}
	return nil
}

func joinMax(list []string, n int) string {
	s := ""
	for i, x := range list {
		if i == n {
			return s + "…"
		}
		if i > 0 {
			s += "、"
		}
		s += x
	}
	return s
}

// Periodic is the commit output's periodic briefs (SPEC §8.1, §21); a
// brief that is not due is absent. Fields are in JSON key order.
type Periodic struct {
	Continuity   *audit.ContinuityBrief `json:"continuity,omitempty"`
	FullReview   *FullReview            `json:"full_review,omitempty"`
	Inventories  *audit.InventoryBrief  `json:"inventories,omitempty"`
	QualityBrief *QualityBrief          `json:"quality_brief,omitempty"`
	VolumeReview *VolumeReview          `json:"volume_review,omitempty"`
}

// QualityBrief is the 5-chapter brief: the scores of the last 5 committed
// chapters, their mean, the two lowest and the overdue short items.
type QualityBrief struct {
	Chapters        []ChapterScore `json:"chapters"`
	Lowest          []ChapterScore `json:"lowest"`
	MeanScore       float64        `json:"mean_score"`
	OpenHighRisk    []string       `json:"open_high_risk"`
	OpenHighRiskWhy string         `json:"open_high_risk_why"`
}

// ChapterScore is one chapter's final score in the brief.
type ChapterScore struct {
	Chapter int     `json:"chapter"`
	Overall float64 `json:"overall"`
}

// FullReview is the every-10th-chapter reminder.
type FullReview struct {
	Message string `json:"message"`
	Range   []int  `json:"range"`
}

// reviewCommand is what a volume's end points the author to (SPEC §27):
// the review, whose target defaults to the current volume; skipping it
// (novel-step volume --next) is the author's choice, never the advice.
const reviewCommand = "make -f pipeline.mk review"

// VolumeReview is the volume-end prompt.
type VolumeReview struct {
	Command string `json:"command"`
	Message string `json:"message"`
	Volume  int    `json:"volume"`
}

// periodic builds the §8.1 briefs: a quality brief every 5th chapter, a
// full-review reminder every 10th, the volume-review prompt at volume end.
func periodic(root *project.Root, c, vol int, volEnd bool, overall float64, items []foreshadow.Item) Periodic {
	var p Periodic
	if c%5 == 0 {
		var scores []ChapterScore
		for k := max(1, c-4); k < c; k++ {
			if o, ok := committedOverall(root, k); ok {
				scores = append(scores, ChapterScore{k, o})
			}
		}
		scores = append(scores, ChapterScore{c, overall})
		sum := 0.0
		for _, s := range scores {
			sum += s.Overall
		}
		low := append([]ChapterScore(nil), scores...)
		sort.SliceStable(low, func(a, b int) bool { return low[a].Overall < low[b].Overall })
		if len(low) > 2 {
			low = low[:2]
		}
		overdue := []string{}
		for i := range items {
			it := &items[i]
			if it.ID != "" && it.Status != foreshadow.Resolved && foreshadow.OverdueShort(it, c) {
				overdue = append(overdue, it.ID)
			}
		}
		sort.Strings(overdue)
		p.QualityBrief = &QualityBrief{Chapters: scores, Lowest: low, MeanScore: math.Round(sum/float64(len(scores))*100) / 100,
			OpenHighRisk: overdue, OpenHighRiskWhy: "overdue short foreshadowing"}
	}
	if c%10 == 0 {
		p.FullReview = &FullReview{Message: "已提交 " + strconv.Itoa(c) + " 章，建议做一次全面审阅 / " + strconv.Itoa(c) +
			" chapters committed: run a full review", Range: []int{max(1, c-9), c}}
	}
	if volEnd {
		p.VolumeReview = &VolumeReview{Volume: vol, Message: "第 " + strconv.Itoa(vol) + " 卷已完结，请进行卷末回顾 / volume " +
			strconv.Itoa(vol) + " is complete: review it", Command: reviewCommand}
	}
	return p
}

// committedOverall reads a committed eval's final score through the
// one reader of that file (eval.ParseCommitted); a chapter whose eval is
// missing or does not parse is left out of the brief.
func committedOverall(root *project.Root, c int) (float64, bool) {
	data, err := root.ReadFile(layout.Eval(c))
	if err != nil {
		return 0, false
	}
	ev, err := eval.ParseCommitted(data, layout.Eval(c), c)
	if err != nil {
		return 0, false
	}
	return ev.Final(), true
}
