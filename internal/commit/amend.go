package commit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// AmendSteps lists the amend step names in execution order.
var AmendSteps = []string{StepJournal, StepSummary, StepState, StepForeshadow, StepUnknownEntities, StepCleanup}

// amendWorkDir holds the recomputed state, changelog, foreshadowing and
// unknown-entity log until the journal's steps move them into place.
func amendWorkDir(c int) string { return layout.AmendWork(c) }

// amendedDir keeps every file an amend replaced (nothing committed is
// lost): staging/amended/chapter-NNN[-n]/<project path>.
func amendedDir(root *project.Root, c int) string {
	dir := layout.Amended(c, 1)
	for n := 2; root.Exists(dir); n++ {
		dir = layout.Amended(c, n)
	}
	return dir
}

// Replace puts From in place of To, keeping the old To as Backup.
type Replace struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Backup string `json:"backup"`
}

// LaterDrop is an op of a later chapter that no longer applies after the
// amend (SPEC §23); it moves to that chapter's changelog dropped list.
type LaterDrop struct {
	Chapter int    `json:"chapter"`
	Op      any    `json:"op"`
	Reason  string `json:"reason"`
}

// AmendOutput is what `novel-commit amend` prints.
type AmendOutput struct {
	Chapter        int                `json:"chapter"`
	StorylineID    string             `json:"storyline_id"`
	WordCount      int                `json:"word_count"`
	AppliedOps     int                `json:"applied_ops"`
	DroppedOps     []stateops.Dropped `json:"dropped_ops"`
	LaterDropped   []LaterDrop        `json:"later_dropped"`
	MemoryReplaced any                `json:"memory_replaced"`
	StateVersion   int                `json:"state_version"`
	Replaced       []string           `json:"replaced"`
	BackupDir      string             `json:"backup_dir"`
	// StateKept: the chapter was committed by another tool and its state
	// is part of state/baseline.json; state and changelog are unchanged.
	StateKept bool     `json:"state_kept,omitempty"`
	Warnings  []string `json:"warnings"`
}

// AmendJournal is staging/amend-NNN.journal.json. The recomputed files
// are written into amendWorkDir before it; every step is a set of
// replaces, which are repeatable (a replace whose From is gone is done).
type AmendJournal struct {
	JournalVersion int                `json:"journal_version"`
	Chapter        int                `json:"chapter"`
	AmendedAt      string             `json:"amended_at"`
	StorylineID    string             `json:"storyline_id"`
	Plan           []journal.PlanStep `json:"plan"`
	Summary        []Replace          `json:"summary"`
	State          []Replace          `json:"state"`
	Foreshadow     []Replace          `json:"foreshadow"`
	Unknown        []Replace          `json:"unknown_entities"`
	// StateKept: c's state is part of the baseline (another tool
	// committed it); KeepDelta is where the unapplied delta is kept.
	StateKept bool              `json:"state_kept,omitempty"`
	KeepDelta string            `json:"keep_delta,omitempty"`
	Output    AmendOutput       `json:"output"`
	work      map[string][]byte // work-dir file → bytes (fresh only)
	cpBytes   checkpoint.Snapshot
}

// Read is the checkpoint as PrepareAmend read it.
func (j *AmendJournal) Read() checkpoint.Snapshot { return j.cpBytes }

// LoadAmendJournal reads chapter c's unfinished amend journal.
func LoadAmendJournal(root *project.Root, c int) (*AmendJournal, error) {
	var j AmendJournal
	if err := journal.Read(root, layout.AmendJournal(c), "修订日志", "amend journal", &j); err != nil {
		return nil, err
	}
	if j.Chapter != c || len(j.Plan) == 0 {
		return nil, journal.Damaged(root, errs.Newf(errs.Schema, "%s 不是第 %d 章的修订日志", "%s is not the amend journal of chapter %d", layout.AmendJournal(c), c).
			With("file", layout.AmendJournal(c)), layout.AmendJournal(c), "修订日志", "amend journal")
	}
	return &j, nil
}

// PrepareAmend checks the amend of committed chapter c (SPEC §23) and
// computes it without writing: the new summary, crossref and memory come
// from the summarizer's staging products; the state is replayed from the
// baseline with chapter c's line replaced and every later line re-applied.
func PrepareAmend(env Env, c int) (*AmendJournal, error) {
	root := env.Root
	cp, cpBytes, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	if c > cp.LastCompleted {
		return nil, errs.Newf(errs.State, "第 %d 章尚未提交（last_completed_chapter=%d），不能修订", "chapter %d is not committed (last_completed_chapter=%d); it cannot be amended", c, cp.LastCompleted).
			With("chapter", c).With("last_completed_chapter", cp.LastCompleted).WithExit(errs.ExitFailed).
			Hint("只有已提交的章节可以修订；未提交的章节直接修改 staging/ 中的文件", "only committed chapters can be amended; edit an uncommitted chapter in staging/")
	}
	if !cp.Idle() {
		return nil, errs.Newf(errs.State, "第 %d 章正在进行中，修订前先完成或放弃它", "chapter %d is in flight; finish or abandon it before amending", cp.Inflight).
			With("inflight_chapter", cp.Inflight).WithExit(errs.ExitBlocked).
			Hint("先运行 make -f pipeline.mk chapter 完成它，或 novel-step abandon --chapter "+strconv.Itoa(cp.Inflight),
				"finish it with make -f pipeline.mk chapter, or run novel-step abandon --chapter "+strconv.Itoa(cp.Inflight))
	}
	if _, err := changelog.Check(root); err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.State {
			e.Hint("修订前状态必须与 changelog 一致。"+e.HintZh, "the state must match the changelog before an amend. "+e.HintEn)
		}
		return nil, err
	}
	lines, idx, inBaseline, err := changelog.Records(root, c)
	if err != nil {
		return nil, err
	}
	old := lines[idx].Line
	text, err := products.ChapterText(root, layout.Chapter(c))
	if err != nil {
		return nil, err
	}
	delta, err := amendProducts(root, c, old)
	if err != nil {
		return nil, err
	}
	j := &AmendJournal{JournalVersion: 1, Chapter: c, AmendedAt: env.Now, StorylineID: old.StorylineID, cpBytes: cpBytes, work: map[string][]byte{}}
	j.Output = AmendOutput{Chapter: c, StorylineID: old.StorylineID, WordCount: textmeasure.WordCount(text), Warnings: []string{}, LaterDropped: []LaterDrop{}}
	backup := amendedDir(root, c)
	j.Output.BackupDir = backup
	if inBaseline {
		// Another tool committed c and its state changes are part of
		// state/baseline.json: the state before c is not recorded anywhere,
		// so the new ops cannot be replayed. The text products are amended;
		// the state, changelog and foreshadowing stay, and the new delta is
		// kept with the backups for the author to apply by hand.
		j.StateKept, j.KeepDelta = true, backup+"/"+layout.StagingDelta(c)
		j.Output.StateKept, j.Output.DroppedOps = true, []stateops.Dropped{}
		j.Output.StateVersion = changelog.BaseVersion(root)
		if last := lastVersion(lines); last > j.Output.StateVersion {
			j.Output.StateVersion = last
		}
		j.Output.Warnings = append(j.Output.Warnings, "第 "+strconv.Itoa(c)+" 章由其他工具提交，它的状态变化已包含在 "+layout.Baseline+
			" 中，无法重放：状态、changelog 与伏笔保持不变，新 delta 的操作未应用（保存在 "+j.KeepDelta+"）/ chapter "+strconv.Itoa(c)+
			" was committed by another tool and its state changes are part of "+layout.Baseline+", so they cannot be replayed: the state, changelog and foreshadowing are kept and the new delta's ops are not applied (kept as "+j.KeepDelta+")")
	} else {
		if err := amendState(root, j, lines, idx, delta); err != nil {
			return nil, err
		}
		if err := amendForeshadow(root, j, lines[idx:], cp.CurrentVolume); err != nil {
			return nil, err
		}
	}
	if err := amendUnknown(root, j, delta); err != nil {
		return nil, err
	}
	if err := amendChapterLog(root, j); err != nil {
		return nil, err
	}
	amendSummary(root, j, lines[idx+1:], backup)
	for _, group := range [][]Replace{j.Summary, j.State, j.Foreshadow, j.Unknown} {
		for i := range group {
			group[i].Backup = backup + "/" + group[i].To
		}
	}
	j.Output.Replaced = []string{}
	for _, group := range [][]Replace{j.Summary, j.State, j.Foreshadow, j.Unknown} {
		for _, r := range group {
			j.Output.Replaced = append(j.Output.Replaced, r.To)
		}
	}
	j.Plan = amendPlan(j)
	if err := checkWritePaths(root, j.Plan); err != nil {
		return nil, err
	}
	return j, nil
}

// amendProducts validates the summarizer's staging products for c: the
// summary, the delta (its base version and storyline those of c's line),
// the crossref and the storyline memory.
func amendProducts(root *project.Root, c int, old changelog.Line) (*products.Delta, error) {
	if err := products.CheckSummary(root, c); err != nil {
		return nil, amendRerun(err, c)
	}
	delta, err := products.ReadDelta(root, c)
	if err != nil {
		return nil, amendRerun(err, c)
	}
	if delta.StorylineID != old.StorylineID {
		return nil, errs.Newf(errs.Contract, "第 %d 章修订后的 delta 属于故事线 %s，但该章提交时属于 %s", "the amended delta of chapter %d is on storyline %s, but the chapter was committed on %s",
			c, delta.StorylineID, old.StorylineID).With("file", delta.File).With("storyline_id", delta.StorylineID).With("committed_storyline_id", old.StorylineID).
			Hint("修订不改变章节所属故事线；重新运行 make -f pipeline.mk amend C="+strconv.Itoa(c), "an amend keeps the chapter's storyline; run make -f pipeline.mk amend C="+strconv.Itoa(c)+" again")
	}
	if delta.BaseStateVersion != old.BaseStateVersion {
		return nil, errs.Newf(errs.StateVersion, "第 %d 章修订后的 delta 基于 state_version %d，但该章提交前的状态是 %d", "the amended delta of chapter %d is based on state_version %d but the state before the chapter is %d",
			c, delta.BaseStateVersion, old.BaseStateVersion).With("file", delta.File).With("base_state_version", delta.BaseStateVersion).
			With("state_version", old.BaseStateVersion).Hint("重新运行 make -f pipeline.mk amend C="+strconv.Itoa(c), "run make -f pipeline.mk amend C="+strconv.Itoa(c)+" again")
	}
	if _, err := products.ReadCrossref(root, c, false); err != nil {
		return nil, amendRerun(err, c)
	}
	if err := products.CheckMemory(root, delta.StorylineID); err != nil {
		return nil, amendRerun(err, c)
	}
	return delta, nil
}

func amendRerun(err error, c int) error {
	if e := errs.As(err); e != nil && e.HintZh == "" {
		e.Hint("运行 make -f pipeline.mk amend C="+strconv.Itoa(c)+" 重新生成摘要", "run make -f pipeline.mk amend C="+strconv.Itoa(c)+" to summarize the chapter again")
	}
	return err
}

// amendState replays the state: lines before c as they are, c's line
// from the new delta, later lines with their applied ops re-applied (an
// op that no longer applies joins that line's dropped list).
func amendState(root *project.Root, j *AmendJournal, lines []changelog.Record, idx int, delta *products.Delta) error {
	c := j.Chapter
	before, _, err := changelog.Replay(root, c)
	if err != nil {
		return err
	}
	st, _, err := stateops.DecodeState(before, layout.CurrentState)
	if err != nil {
		return err
	}
	old := lines[idx].Line
	ops, static, _ := validateOps(delta.Ops)
	res := stateops.Apply(st, ops)
	dropped := append(static, res.Dropped...)
	if dropped == nil {
		dropped = []stateops.Dropped{}
	}
	j.Output.AppliedOps, j.Output.DroppedOps = len(res.Applied), dropped
	j.Output.Warnings = append(j.Output.Warnings, res.Warnings...)
	st["state_version"], st["last_updated_chapter"] = old.StateVersion, c
	lines[idx].Line = changelog.Line{Chapter: c, StateVersion: old.StateVersion, BaseStateVersion: old.BaseStateVersion, StorylineID: old.StorylineID,
		CommittedAt: j.AmendedAt, Ops: res.AppliedRaw(), Dropped: dropped}
	lines[idx].Raw = nil
	for i := idx + 1; i < len(lines); i++ {
		if !lines[i].Commit {
			continue
		}
		l := &lines[i].Line
		var valid []stateops.Op
		for _, raw := range l.Ops {
			b, _ := json.Marshal(raw)
			v, err := stateops.Decode(b)
			if err != nil {
				continue
			}
			if op, reason := stateops.Validate(v); reason == "" {
				valid = append(valid, op)
			}
		}
		r := stateops.Apply(st, valid)
		if len(r.Dropped) > 0 {
			l.Ops = r.AppliedRaw()
			l.Dropped = append(l.Dropped, r.Dropped...)
			lines[i].Raw = nil
			for _, d := range r.Dropped {
				j.Output.LaterDropped = append(j.Output.LaterDropped, LaterDrop{Chapter: l.Chapter, Op: d.Op, Reason: d.Reason})
			}
		}
		st["state_version"], st["last_updated_chapter"] = l.StateVersion, l.Chapter
	}
	stateBytes, err := jsonio.Marshal(st)
	if err != nil {
		return errs.Newf(errs.IO, "无法编码修订后的状态：%v", "cannot encode the amended state: %v", err)
	}
	j.Output.StateVersion, _ = jsonio.Int(st["state_version"])
	var log bytes.Buffer
	for _, l := range lines {
		if l.Raw != nil {
			log.Write(l.Raw)
			log.WriteByte('\n')
			continue
		}
		b, err := jsonio.MarshalLine(l.Line)
		if err != nil {
			return errs.Newf(errs.IO, "无法编码 changelog 行：%v", "cannot encode the changelog line: %v", err)
		}
		log.Write(b)
	}
	j.stage(&j.State, layout.Changelog, log.Bytes())
	j.stage(&j.State, layout.CurrentState, stateBytes)
	return amendMentions(root, j, log.Bytes())
}

// stage records a recomputed file: written to the work dir before the
// journal, moved into place by the step.
func (j *AmendJournal) stage(group *[]Replace, to string, data []byte) {
	from := amendWorkDir(j.Chapter) + "/" + to
	j.work[from] = data
	*group = append(*group, Replace{From: from, To: to})
}

// amendForeshadow undoes what the lines from c on added to the global
// foreshadowing (as rollback does) and merges their foreshadow ops again
// in order, c's from the new delta.
func amendForeshadow(root *project.Root, j *AmendJournal, from []changelog.Record, current int) error {
	needed := root.Exists(layout.GlobalForeshadow)
	var fsOps [][]json.RawMessage
	for _, l := range from {
		var list []json.RawMessage
		for _, raw := range l.Line.Ops {
			b, _ := json.Marshal(raw)
			var head struct {
				Op string `json:"op"`
			}
			if json.Unmarshal(b, &head) == nil && head.Op == string(stateops.Foreshadow) {
				list = append(list, b)
			}
		}
		needed = needed || len(list) > 0
		fsOps = append(fsOps, list)
	}
	if !needed {
		return nil
	}
	gf, err := foreshadow.LoadGlobalFile(root)
	if err != nil {
		return err
	}
	items := foreshadow.Rollback(gf.Items, j.Chapter)
	for i, l := range from {
		if len(fsOps[i]) == 0 {
			continue
		}
		vol, _ := outline.VolumeOf(root, l.Line.Chapter, current)
		plan, err := foreshadow.LoadPlan(root, vol)
		if err != nil {
			return err
		}
		var dropped []foreshadow.Dropped
		if items, dropped = foreshadow.Merge(items, plan, foreshadow.ParseOps(fsOps[i]), l.Line.Chapter, l.Line.StorylineID); len(dropped) > 0 {
			return refusedOp(dropped[0].Reason)
		}
	}
	data, err := gf.Encode(items)
	if err != nil {
		return errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", layout.GlobalForeshadow, err)
	}
	j.stage(&j.Foreshadow, layout.GlobalForeshadow, data)
	return nil
}

// amendUnknown replaces c's lines in logs/unknown-entities.jsonl with the
// new delta's names, at c's place in chapter order.
func amendUnknown(root *project.Root, j *AmendJournal, delta *products.Delta) error {
	c := j.Chapter
	data, err := root.ReadIfExists(layout.UnknownEntities)
	if err != nil {
		return err
	}
	tmp := &Journal{Chapter: c}
	if err := unknownEntities(root, tmp, delta); err != nil {
		return err
	}
	fresh := []byte(nil)
	if tmp.UnknownEntities != nil {
		fresh = bytes.TrimLeft([]byte(tmp.UnknownEntities.Text), "\n")
	}
	if data == nil && fresh == nil {
		return nil
	}
	var out []byte
	placed := false
	for _, ln := range jsonio.SplitLines(data) {
		var e struct {
			Chapter *int `json:"chapter"`
		}
		known := json.Unmarshal(ln, &e) == nil && e.Chapter != nil
		if known && *e.Chapter == c {
			continue
		}
		if known && *e.Chapter > c && !placed {
			out, placed = append(out, fresh...), true
		}
		out = append(append(out, ln...), '\n')
	}
	if !placed {
		out = append(out, fresh...)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	j.stage(&j.Unknown, layout.UnknownEntities, out)
	return nil
}

// amendChapterLog updates the chapter log's word count to the edited
// text (the report reads it); a log that does not decode is left alone.
func amendChapterLog(root *project.Root, j *AmendJournal) error {
	rel := layout.ChapterLog(j.Chapter)
	if !root.IsFile(rel) {
		return nil
	}
	var log runlog.ChapterLog
	if err := root.ReadJSON(rel, &log); err != nil {
		j.Output.Warnings = append(j.Output.Warnings, rel+" 无法读取，字数未更新 / "+rel+" does not decode; its word count is not updated")
		return nil
	}
	if log.WordCount != nil && *log.WordCount == j.Output.WordCount {
		return nil
	}
	wc := j.Output.WordCount
	log.WordCount = &wc
	data, err := jsonio.Marshal(log)
	if err != nil {
		return err
	}
	j.stage(&j.Summary, rel, data)
	return nil
}

// amendSummary replaces the summary and crossref, and the storyline
// memory when c is the newest chapter of its line; otherwise the memory
// kept after c (history/memory-NNN.md, which a rollback restores) when
// it exists.
func amendSummary(root *project.Root, j *AmendJournal, later []changelog.Record, backup string) {
	c, sid := j.Chapter, j.StorylineID
	add := func(from, to string) {
		j.Summary = append(j.Summary, Replace{From: from, To: to})
	}
	add(layout.StagingSummary(c), layout.Summary(c))
	add(layout.StagingCrossref(c), layout.Crossref(c))
	latest := true
	for _, l := range later {
		if l.Line.StorylineID == sid {
			latest = false
			break
		}
	}
	mem := layout.Memory(sid)
	if !latest {
		mem = layout.MemoryHistory(sid, c)
		if !root.IsFile(mem) {
			j.Output.Warnings = append(j.Output.Warnings, "第 "+strconv.Itoa(c)+" 章不是故事线 "+sid+" 的最新章节，故事线记忆保持不变 / chapter "+
				strconv.Itoa(c)+" is not the newest chapter of storyline "+sid+"; its memory is kept")
			j.Output.MemoryReplaced = nil
			return
		}
	}
	j.Output.MemoryReplaced = mem
	add(layout.StagingMemory(sid), mem)
}

func amendPlan(j *AmendJournal) []journal.PlanStep {
	tos := func(g []Replace) []string {
		out := []string{}
		for _, r := range g {
			out = append(out, r.To, r.Backup)
		}
		return out
	}
	return []journal.PlanStep{
		{Name: StepJournal, Writes: []string{layout.AmendJournal(j.Chapter)}},
		{Name: StepSummary, Writes: tos(j.Summary)},
		{Name: StepState, Writes: tos(j.State)},
		{Name: StepForeshadow, Writes: tos(j.Foreshadow)},
		{Name: StepUnknownEntities, Writes: tos(j.Unknown)},
		{Name: StepCleanup, Writes: cleanupWrites(j)},
	}
}

func cleanupWrites(j *AmendJournal) []string {
	w := []string{layout.StagingChapterFiles(j.Chapter), layout.AmendJournal(j.Chapter)}
	if j.KeepDelta != "" {
		w = append(w, j.KeepDelta)
	}
	return w
}

// ExecuteAmend writes the work files and the journal (fresh amends) and
// runs every step; a resumed amend runs them all again (each is
// repeatable).
func ExecuteAmend(env Env, j *AmendJournal, fresh bool) (*AmendOutput, error) {
	root := env.Root
	if fresh {
		froms := make([]string, 0, len(j.work))
		for from := range j.work {
			froms = append(froms, from)
		}
		sort.Strings(froms)
		for _, from := range froms {
			if err := root.WriteFile(from, j.work[from]); err != nil {
				return nil, err
			}
		}
	}
	replaceAll := func(g []Replace) func() error { return func() error { return replaceFiles(root, g) } }
	tx := journal.Tx{File: layout.AmendJournal(j.Chapter), Key: "amend_step", Resume: "novel-commit amend --chapter " + strconv.Itoa(j.Chapter),
		Temps: []string{layout.CurrentState, layout.Changelog, layout.Mentions, layout.GlobalForeshadow, layout.UnknownEntities, layout.ChapterLog(j.Chapter)}}
	err := tx.Run(root, j, fresh, env.Crash, []journal.Step{
		{Name: StepSummary, Run: replaceAll(j.Summary)},
		{Name: StepState, Run: replaceAll(j.State)},
		{Name: StepForeshadow, Run: replaceAll(j.Foreshadow)},
		{Name: StepUnknownEntities, Run: replaceAll(j.Unknown)},
		{Name: StepCleanup, Run: func() error { return amendCleanup(root, j) }},
	})
	if err != nil {
		return nil, err
	}
	return &j.Output, nil
}

// replaceFiles moves each old file to its backup, then the new one into
// place. Either rename may already be done: a From that is gone means
// the replace finished; a Backup that exists means the old file is safe.
func replaceFiles(root *project.Root, g []Replace) error {
	for _, r := range g {
		there, err := root.Lexists(r.From)
		if err != nil {
			return err
		}
		if !there {
			continue
		}
		have, err := root.Lexists(r.To)
		if err != nil {
			return err
		}
		saved, err := root.Lexists(r.Backup)
		if err != nil {
			return err
		}
		if have && !saved {
			if err := root.Move(r.To, r.Backup); err != nil {
				return err
			}
		}
		if err := root.Move(r.From, r.To); err != nil {
			return err
		}
	}
	return nil
}

// amendCleanup removes what is left of the summarizer's run (the delta,
// the amend packet, the work dir), then the journal.
func amendCleanup(root *project.Root, j *AmendJournal) error {
	c := j.Chapter
	snap := layout.Snapshot(c, stepid.Summarize) // the amend packet's write-boundary snapshot
	if j.KeepDelta != "" {
		if there, err := root.Lexists(layout.StagingDelta(c)); err != nil {
			return err
		} else if there {
			if err := root.Move(layout.StagingDelta(c), j.KeepDelta); err != nil {
				return err
			}
		}
	}
	for _, rel := range []string{layout.StagingDelta(c), layout.Packet(c, amendStage), snap, snap + ".end"} {
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	if abs, err := root.Abs(amendWorkDir(c)); err == nil {
		if err := os.RemoveAll(abs); err != nil {
			return errs.AccessFailed(amendWorkDir(c), err)
		}
		os.Remove(filepath.Dir(abs)) // staging/amend/ once no other amend uses it
	}
	return root.Remove(layout.AmendJournal(c))
}

// amendStage names the amend packet file (staging/manifests/chapter-NNN-amend.packet.json).
const amendStage = "amend"

// lastVersion is the state_version of the newest commit line.
func lastVersion(lines []changelog.Record) int {
	v := 0
	for _, l := range lines {
		if l.Commit {
			v = max(v, l.Line.StateVersion)
		}
	}
	return v
}
