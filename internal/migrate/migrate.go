// Package migrate checks a project made by the plugin or the TypeScript
// CLI and brings it to what the suite needs (SPEC §22 `novel migrate`):
// a state file, an adopted quick-start volume plan, an inferred
// last_completed_chapter. It lists what it keeps as it is (Markdown
// contracts, a plugin lock, files above the last committed chapter) and
// never rewrites chapters, summaries or evals.
package migrate

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/volumeplan"
)

// Finding ids (Finding.ID).
const (
	MissingState       = "missing_state"
	StateGroups        = "state_groups"
	StateLayout        = "state_layout"
	WriteBaseline      = "write_baseline"
	InferLastCompleted = "infer_last_completed"
	AdoptVolumePlan    = "adopt_volume_plan"
	QuickStartStep     = "quick_start_step"
	MarkdownContracts  = "markdown_contracts"
	PluginLock         = "plugin_lock"
	AheadOfCheckpoint  = "ahead_of_checkpoint"
	UncertainLast      = "last_completed_unknown"
	PlanNotAdopted     = "volume_plan_not_adopted"
	PlanWarning        = "volume_plan_warning"
	MissingOutline     = "missing_outline"
	BookID             = "book_id"
)

// Actions: apply (migrate writes it) or note (kept as it is).
const (
	Apply = "apply"
	Note  = "note"
)

// Finding is one thing migrate found; a finding from a failed check also
// carries the check's error code and hint.
type Finding struct {
	ID      string `json:"id"`
	Action  string `json:"action"`
	File    string `json:"file"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// Result is what `novel migrate` prints.
type Result struct {
	DryRun   bool      `json:"dry_run"`
	Resume   bool      `json:"resume"`
	Changes  int       `json:"changes"`
	Findings []Finding `json:"findings"`
	Writes   []string  `json:"writes"`
}

// Journal is staging/migrate.journal.json: the writes a migration makes,
// each idempotent (a file set to fixed bytes, checkpoint fields set to
// fixed values).
type Journal struct {
	JournalVersion int                `json:"journal_version"`
	MigratedAt     string             `json:"migrated_at"`
	Plan           []journal.PlanStep `json:"plan"`
	State          *string            `json:"state"`
	Settings       *string            `json:"settings"`
	Baseline       *string            `json:"baseline,omitempty"`
	SetCheckpoint  map[string]any     `json:"set_checkpoint"`
	DropCheckpoint []string           `json:"drop_checkpoint"`
	Result         Result             `json:"result"`
}

// Step names (plan[].name; NOVEL_CRASH_AT takes one).
const (
	StepState      = "state"
	StepSettings   = "settings"
	StepCheckpoint = "checkpoint"
	StepCleanup    = "cleanup"
)

// Steps lists the step names in execution order.
var Steps = []string{journal.StepJournal, StepState, StepSettings, StepCheckpoint, StepCleanup}

func (j *Journal) add(id, action, file, zh, en string) {
	j.Result.Findings = append(j.Result.Findings, Finding{ID: id, Action: action, File: file, Message: zh + " / " + en})
	if action == Apply {
		j.Result.Changes++
	}
}

// Prepare inspects the project and plans the migration; nothing is
// written.
func Prepare(root *project.Root, now string) (*Journal, error) {
	data, err := root.ReadFile(layout.Checkpoint)
	if err != nil {
		return nil, err
	}
	var cp map[string]json.RawMessage
	if err := jsonio.Decode(data, layout.Checkpoint, &cp); err != nil || cp == nil {
		return nil, errs.Newf(errs.Checkpoint, "%s 不是 JSON 对象，无法迁移", "%s is not a JSON object; it cannot be migrated", layout.Checkpoint).
			With("file", layout.Checkpoint).Hint("修正 .checkpoint.json 的 JSON 语法后重试", "fix the JSON syntax of .checkpoint.json and retry")
	}
	j := &Journal{JournalVersion: 1, MigratedAt: now, SetCheckpoint: map[string]any{}, DropCheckpoint: []string{}}
	j.Result.Findings = []Finding{}
	last, err := j.lastCompleted(root, cp)
	if err != nil {
		return nil, err
	}
	if err := j.state(root); err != nil {
		return nil, err
	}
	if err := j.bookID(root); err != nil {
		return nil, err
	}
	state := rawString(cp["orchestrator_state"])
	if state == checkpoint.QuickStart {
		if err := j.quickStart(root, cp, last); err != nil {
			return nil, err
		}
	} else {
		j.outline(root, cp)
	}
	if err := j.contracts(root); err != nil {
		return nil, err
	}
	j.ahead(root, last)
	j.lock(root)
	j.Plan = plan(j)
	for _, p := range j.Plan[1:] {
		j.Result.Writes = append(j.Result.Writes, p.Writes...)
	}
	if j.Result.Writes == nil || j.Result.Changes == 0 {
		j.Result.Writes = []string{} // nothing to apply writes nothing, not even a journal
	}
	// The checkpoint the migration writes must parse.
	if len(j.SetCheckpoint)+len(j.DropCheckpoint) > 0 {
		if _, err := checkpoint.Parse(editCheckpoint(cp, j)); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// lastCompleted reads last_completed_chapter, inferring a missing or null
// one from chapters/ when the files run 1..N without a gap.
func (j *Journal) lastCompleted(root *project.Root, cp map[string]json.RawMessage) (int, error) {
	raw, ok := cp["last_completed_chapter"]
	if ok && string(raw) != "null" {
		n, isInt := jsonio.Int(json.Number(strings.TrimSpace(string(raw))))
		if !isInt || n < 0 {
			return 0, errs.Newf(errs.Checkpoint, "%s 的 last_completed_chapter 必须是非负整数，实际为 %s", "%s: last_completed_chapter must be an integer ≥ 0, got %s", layout.Checkpoint, string(raw)).
				With("file", layout.Checkpoint).Hint("修正 .checkpoint.json 后重试", "fix .checkpoint.json and retry")
		}
		return n, nil
	}
	nums, err := chapterNumbers(root)
	if err != nil {
		return 0, err
	}
	for i, n := range nums {
		if n != i+1 {
			j.add(UncertainLast, Note, layout.Checkpoint, "last_completed_chapter 缺失，chapters/ 中的章节不连续（缺第 "+strconv.Itoa(i+1)+" 章），无法推断；请手动填写",
				"last_completed_chapter is missing and chapters/ has a gap (no chapter "+strconv.Itoa(i+1)+"), so it cannot be inferred; set it by hand")
			return 0, nil
		}
	}
	n := len(nums)
	j.SetCheckpoint["last_completed_chapter"] = n
	j.add(InferLastCompleted, Apply, layout.Checkpoint, "last_completed_chapter 缺失，按 chapters/ 中连续的第 1–"+strconv.Itoa(n)+" 章设为 "+strconv.Itoa(n),
		"last_completed_chapter is missing; set to "+strconv.Itoa(n)+" from chapters 1–"+strconv.Itoa(n)+" in chapters/")
	return n, nil
}

// state creates a missing state file (the empty state, which a replay of
// the empty changelog reproduces) and adds the groups a plugin state
// lacks while nothing has been committed through the suite.
func (j *Journal) state(root *project.Root) error {
	if !root.Exists(layout.CurrentState) {
		data, err := jsonio.Marshal(stateops.Empty())
		if err != nil {
			return err
		}
		s := string(data)
		j.State = &s
		j.add(MissingState, Apply, layout.CurrentState, "缺少状态文件，创建空状态（state_version 0）", "the state file is missing; the empty state (state_version 0) is created")
		return nil
	}
	if root.Exists(layout.Baseline) {
		return nil // committed through the suite: rebuild --check is the authority
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return err
	}
	st, _, err := stateops.DecodeState(data, layout.CurrentState)
	if err != nil {
		return err
	}
	var missing []string
	var orig map[string]json.RawMessage
	if json.Unmarshal(data, &orig) == nil {
		for _, g := range append(append([]string{}, stateops.Groups...), stateops.ActiveForeshadowing) {
			if _, ok := orig[g]; !ok {
				missing = append(missing, g)
			}
		}
	}
	out, err := jsonio.Marshal(st)
	if err != nil {
		return err
	}
	// A state with content and no baseline (every plugin or TypeScript-CLI
	// project, the suite's own before chapter 1) gets the state as found
	// as its baseline, so rebuild and rollback start from it instead of
	// from the empty state, and the other tools' changelog lines (already
	// in it) are not replayed again. The state is then written canonically
	// too, so rebuild --check holds right away.
	baseline := !stateops.IsEmpty(st)
	switch {
	case len(missing) > 0:
		j.add(StateGroups, Apply, layout.CurrentState, "状态文件补齐缺少的分组（"+strings.Join(missing, "、")+"）并按规范格式写出，内容不变",
			"the state gets the groups it lacks ("+strings.Join(missing, ", ")+") and is written canonically; no value changes")
	case baseline && !bytes.Equal(data, out):
		j.add(StateLayout, Apply, layout.CurrentState, "状态文件按规范格式写出（与基线逐字节一致），内容不变",
			"the state is written canonically (byte for byte its baseline); no value changes")
	default:
		out = nil // only its layout differs and no baseline needs it: not worth a rewrite
	}
	if out != nil {
		s := string(out)
		j.State = &s
	}
	if baseline {
		b, err := jsonio.Marshal(st)
		if err != nil {
			return err
		}
		s := string(b)
		j.Baseline = &s
		v, _ := jsonio.Int(st["state_version"])
		c, _ := jsonio.Int(st["last_updated_chapter"])
		j.add(WriteBaseline, Apply, layout.Baseline, "没有 state/baseline.json：把现在的状态（state_version "+strconv.Itoa(v)+"，第 "+strconv.Itoa(c)+" 章）记为基线，rebuild 与 rollback 从它开始",
			"there is no state/baseline.json: the state as found (state_version "+strconv.Itoa(v)+", chapter "+strconv.Itoa(c)+") becomes the baseline that rebuild and rollback start from")
	}
	return nil
}

// bookID gives a project whose settings.json has no book_id a random one
// (SPEC §22.1: the exported book's identity), every other setting kept.
func (j *Journal) bookID(root *project.Root) error {
	m := map[string]json.RawMessage{}
	if root.Exists(layout.Settings) {
		data, err := root.ReadFile(layout.Settings)
		if err != nil {
			return err
		}
		if err := jsonio.Decode(data, layout.Settings, &m); err != nil {
			return err
		}
		if v, ok := m["book_id"]; ok && string(v) != "null" {
			return nil
		}
	}
	id, err := settings.NewBookID()
	if err != nil {
		return err
	}
	m["book_id"], _ = json.Marshal(id)
	out, err := jsonio.Marshal(m)
	if err != nil {
		return err
	}
	str := string(out)
	j.Settings = &str
	j.add(BookID, Apply, layout.Settings, "settings.json 没有 book_id：写入一个随机 UUID，导出的书以它为标识", "settings.json has no book_id: a random UUID is written, the exported book's identifier")
	return nil
}

// quickStart adopts a plan the plugin's quick start (step F0) moved
// straight into volumes/vol-01/ as the committed plan of volume 1, once it
// passes the checks of a volume commit (volumeplan.CheckInPlace); a plan
// that fails one is noted with the check's error and nothing is changed.
func (j *Journal) quickStart(root *project.Root, cp map[string]json.RawMessage, last int) error {
	rel := layout.Outline(1)
	if root.IsFile(rel) {
		p, err := volumeplan.CheckInPlace(root, 1, last+1)
		if err != nil {
			e := errs.As(err)
			if e == nil || e.Code == errs.IO {
				return err
			}
			j.notAdopted(e, rel)
		} else {
			start, end := strconv.Itoa(p.Start), strconv.Itoa(p.End)
			j.SetCheckpoint["current_volume"] = 1
			j.SetCheckpoint["orchestrator_state"] = checkpoint.Writing
			j.add(AdoptVolumePlan, Apply, rel, "QUICK_START 中 volumes/vol-01 已有卷规划（第 "+start+"–"+end+" 章），采用为已提交的第 1 卷规划：current_volume 1，进入 WRITING",
				"volumes/vol-01 already holds a plan (chapters "+start+"–"+end+") while in QUICK_START; it is adopted as volume 1's committed plan: current_volume 1, WRITING")
			for _, w := range p.Warnings {
				j.Result.Findings = append(j.Result.Findings, Finding{ID: PlanWarning, Action: Note, File: layout.VolumeDir(1), Message: w})
			}
		}
	}
	if _, ok := cp["quick_start_step"]; ok && j.SetCheckpoint["orchestrator_state"] == checkpoint.Writing {
		j.DropCheckpoint = append(j.DropCheckpoint, "quick_start_step")
		j.add(QuickStartStep, Apply, layout.Checkpoint, "快速开始已结束，删除插件字段 quick_start_step", "quick start is over; the plugin field quick_start_step is removed")
	}
	return nil
}

// notAdopted notes a plan that fails a check: the file, code, message and
// hint are the check's own.
func (j *Journal) notAdopted(e *errs.Error, rel string) {
	if f, ok := e.Details["file"].(string); ok && f != "" {
		rel = f
	}
	hintZh, hintEn := "改好 volumes/vol-01 后运行 novel migrate 采用它", "once volumes/vol-01 is fixed, run novel migrate to adopt it"
	if e.HintZh != "" {
		hintZh = e.HintZh + "；" + hintZh
	}
	if e.HintEn != "" {
		hintEn = e.HintEn + "; " + hintEn
	}
	j.Result.Findings = append(j.Result.Findings, Finding{ID: PlanNotAdopted, Action: Note, File: rel, Code: e.Code,
		Message: "volumes/vol-01 中的卷规划未通过卷提交的检查，未采用：" + e.Zh + " / the plan in volumes/vol-01 fails a volume commit's check and is not adopted: " + e.En,
		Hint:    hintZh + " / " + hintEn})
}

// outline notes a writing project whose current volume has no outline
// (the plugin's fixture): the author plans it; migrate cannot.
func (j *Journal) outline(root *project.Root, cp map[string]json.RawMessage) {
	v, ok := jsonio.Int(json.Number(strings.TrimSpace(string(cp["current_volume"]))))
	if !ok || v < 1 {
		return
	}
	if rel := layout.VolumeDir(v) + "/outline.md"; !root.IsFile(rel) {
		j.add(MissingOutline, Note, rel, "当前卷没有大纲，下一章无法生成指令包；补上大纲（### 第 N 章: 章名 与 Storyline 等字段）后继续",
			"the current volume has no outline, so no chapter packet can be built; add it (### 第 N 章: title blocks with Storyline and the other keys) and continue")
	}
}

// contracts notes the volumes whose contracts are Markdown only: they are
// read as they are (SPEC §22) and kept.
func (j *Journal) contracts(root *project.Root) error {
	vols, err := root.ReadDir("volumes")
	if err != nil {
		return nil
	}
	for _, v := range vols {
		dir := layout.VolumesDir + "/" + v.Name() + "/" + layout.VolumeContractsDir
		ents, err := root.ReadDir(dir)
		if err != nil || !v.IsDir() {
			continue
		}
		have := map[string]bool{}
		for _, e := range ents {
			have[e.Name()] = true
		}
		var md []string
		for _, e := range ents {
			if base, ok := strings.CutSuffix(e.Name(), ".md"); ok && !have[base+".json"] {
				md = append(md, e.Name())
			}
		}
		if len(md) > 0 {
			j.add(MarkdownContracts, Note, dir, strconv.Itoa(len(md))+" 个章节契约只有 Markdown 版本（"+md[0]+" …），保留原样，按插件格式读取",
				strconv.Itoa(len(md))+" chapter contracts are Markdown only ("+md[0]+" …); kept and read in the plugin's format")
		}
	}
	return nil
}

// ahead notes committed-looking files above last_completed_chapter (a
// plugin commit that stopped halfway): kept; a commit of that chapter
// refuses to replace them (E_CONFLICT) until they are moved aside.
func (j *Journal) ahead(root *project.Root, last int) {
	var found []string
	for _, dir := range []string{"chapters", "summaries", "evaluations"} {
		ents, err := root.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n, ok := chapterOf(e.Name()); ok && n > last {
				found = append(found, dir+"/"+e.Name())
			}
		}
	}
	sort.Strings(found)
	for _, f := range found {
		j.add(AheadOfCheckpoint, Note, f, f+" 在 last_completed_chapter（"+strconv.Itoa(last)+"）之后，保留原样；提交该章前先把它移走",
			f+" is above last_completed_chapter ("+strconv.Itoa(last)+"); kept as it is: move it aside before that chapter is committed")
	}
}

// lock names a lock a plugin skill took (no host, no token): migrate never
// breaks it; a write refuses while it is held.
func (j *Journal) lock(root *project.Root) {
	rel := layout.LockDir + "/info.json"
	var info map[string]any
	if !root.IsFile(rel) || root.ReadJSON(rel, &info) != nil {
		return
	}
	if _, ours := info["token"]; ours {
		return
	}
	who, _ := json.Marshal(info)
	j.add(PluginLock, Note, rel, "插件会话持有项目锁 "+string(who)+"；确认该会话已结束后运行 novel-lock break --force",
		"a plugin session holds the project lock "+string(who)+"; once that session is gone, run novel-lock break --force")
}

func plan(j *Journal) []journal.PlanStep {
	stateW, settingsW, cpW := []string{}, []string{}, []string{}
	if j.State != nil {
		stateW = []string{layout.CurrentState}
	}
	if j.Settings != nil {
		settingsW = []string{layout.Settings}
	}
	if j.Baseline != nil {
		stateW = append(stateW, layout.Baseline)
	}
	if len(j.SetCheckpoint)+len(j.DropCheckpoint) > 0 {
		cpW = []string{layout.Checkpoint}
	}
	return []journal.PlanStep{
		{Name: journal.StepJournal, Writes: []string{layout.MigrateJournal}},
		{Name: StepState, Writes: stateW},
		{Name: StepSettings, Writes: settingsW},
		{Name: StepCheckpoint, Writes: cpW},
		{Name: StepCleanup, Writes: []string{layout.MigrateJournal}},
	}
}

// Execute writes the journal (fresh) and runs the steps.
func Execute(root *project.Root, j *Journal, fresh bool, crash func(string)) (*Result, error) {
	tx := journal.Tx{File: layout.MigrateJournal, Key: "migrate_step", Resume: "novel migrate", Temps: []string{layout.CurrentState, layout.Settings, layout.Checkpoint}}
	err := tx.Run(root, j, fresh, crash, []journal.Step{
		{Name: StepState, Run: func() error {
			if j.State != nil {
				if err := root.WriteFile(layout.CurrentState, []byte(*j.State)); err != nil {
					return err
				}
			}
			if j.Baseline != nil {
				return root.WriteFile(layout.Baseline, []byte(*j.Baseline))
			}
			return nil
		}},
		{Name: StepSettings, Run: func() error {
			if j.Settings == nil {
				return nil
			}
			return root.WriteFile(layout.Settings, []byte(*j.Settings))
		}},
		{Name: StepCheckpoint, Run: func() error {
			if len(j.SetCheckpoint)+len(j.DropCheckpoint) == 0 {
				return nil
			}
			data, err := root.ReadFile(layout.Checkpoint)
			if err != nil {
				return err
			}
			var cp map[string]json.RawMessage
			if err := jsonio.Decode(data, layout.Checkpoint, &cp); err != nil {
				return err
			}
			cp["last_checkpoint_time"], _ = json.Marshal(j.MigratedAt)
			return root.WriteFile(layout.Checkpoint, editCheckpoint(cp, j))
		}},
		{Name: StepCleanup, Run: func() error { return root.Remove(layout.MigrateJournal) }},
	})
	if err != nil {
		return nil, err
	}
	return &j.Result, nil
}

// editCheckpoint is the checkpoint with the planned fields set and
// dropped (every other field kept), canonically indented.
func editCheckpoint(cp map[string]json.RawMessage, j *Journal) []byte {
	m := map[string]any{}
	for k, v := range cp {
		m[k] = v
	}
	for k, v := range j.SetCheckpoint {
		m[k] = v
	}
	for _, k := range j.DropCheckpoint {
		delete(m, k)
	}
	out, _ := jsonio.Marshal(m)
	return out
}

// Load reads an unfinished migration's journal.
func Load(root *project.Root) (*Journal, error) {
	var j Journal
	if err := journal.Read(root, layout.MigrateJournal, "迁移日志", "migration journal", &j); err != nil {
		return nil, err
	}
	j.Result.Resume = true
	return &j, nil
}

func rawString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// chapterNumbers lists the NNN of chapters/chapter-NNN.md, ascending.
func chapterNumbers(root *project.Root) ([]int, error) {
	ents, err := root.ReadDir("chapters")
	if err != nil {
		return nil, nil
	}
	var nums []int
	for _, e := range ents {
		name := e.Name()
		if n, ok := chapterOf(name); ok && name == layout.Chapter(n)[len("chapters/"):] {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	return nums, nil
}

// chapterOf reads NNN from chapter-NNN.md, chapter-NNN-summary.md or
// chapter-NNN-eval.json.
func chapterOf(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "chapter-")
	if !ok {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end > 9 {
		return 0, false
	}
	switch rest[end:] {
	case ".md", "-summary.md", "-eval.json":
	default:
		return 0, false
	}
	n, _ := strconv.Atoi(rest[:end])
	return n, n > 0
}
