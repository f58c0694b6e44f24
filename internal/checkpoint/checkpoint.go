// Package checkpoint reads and writes .checkpoint.json: leniently on read
// (plugin-era stage names, inflight 0, missing fields), canonically on
// write, preserving fields it does not know.
package checkpoint

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Orchestrator states.
const (
	QuickStart     = "QUICK_START"
	VolPlanning    = "VOL_PLANNING"
	Writing        = "WRITING"
	ChapterRewrite = "CHAPTER_REWRITE"
	VolReview      = "VOL_REVIEW"
	ErrorRetry     = "ERROR_RETRY"
)

// States lists the orchestrator states.
var States = []string{QuickStart, VolPlanning, Writing, ChapterRewrite, VolReview, ErrorRetry}

// Pipeline stages (the last completed stage of the inflight chapter).
const (
	Drafting  = "drafting"
	Drafted   = "drafted"
	Refined   = "refined"
	Judged    = "judged"
	Revising  = "revising"
	Polishing = "polishing"
	Committed = "committed"
)

// Stages lists the valid stage values.
var Stages = []string{Drafting, Drafted, Refined, Judged, Revising, Polishing, Committed}

// pluginStages maps the plugin's stage names onto ours (SPEC §2).
var pluginStages = map[string]string{"refining": Drafted, "summarized": Judged, "direct_fixing": Revising}

// Order ranks the ordered stages; side states and null rank 0.
func Order(stage string) int {
	switch stage {
	case Drafting:
		return 1
	case Drafted:
		return 2
	case Refined:
		return 3
	case Judged:
		return 4
	}
	return 0
}

// LastError is the record written by `novel-step fail`: the failed step
// and the underlying error (code, message, hint, details such as the
// server's message), so ERROR_RETRY says why (SPEC §22).
type LastError struct {
	Step          string          `json:"step"`
	Code          string          `json:"code,omitempty"`
	Message       string          `json:"message"`
	Hint          string          `json:"hint,omitempty"`
	Details       json.RawMessage `json:"details,omitempty"`
	At            string          `json:"at"`
	PreviousState string          `json:"previous_state,omitempty"`
}

// Checkpoint is the parsed .checkpoint.json. Zero Inflight and empty
// Stage mean null.
type Checkpoint struct {
	SchemaVersion      int
	LastCompleted      int
	CurrentVolume      int
	State              string
	Stage              string
	Inflight           int
	RevisionCount      int
	LastCheckpointTime string
	LastError          *LastError
	// PluginStage is the original plugin-era stage value, when one was
	// mapped (such chapters may lack a crossref).
	PluginStage string

	extra map[string]json.RawMessage
}

// Load reads the checkpoint of root.
func Load(root *project.Root) (*Checkpoint, error) {
	cp, _, err := LoadSnapshot(root)
	return cp, err
}

// Snapshot is the checkpoint file's bytes as a writer read them, so it
// can tell later whether another writer moved the checkpoint since.
type Snapshot []byte

// LoadSnapshot is Load that also keeps the bytes it parsed.
func LoadSnapshot(root *project.Root) (*Checkpoint, Snapshot, error) {
	data, err := root.ReadFile(layout.Checkpoint)
	if err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.MissingFile {
			e.Hint("这里不是小说项目，或检查点丢失；用 --project 指定正确的项目", "this is not a novel project or its checkpoint is lost; pass --project")
		}
		return nil, nil, err
	}
	cp, err := Parse(data)
	if e := errs.As(err); e != nil && e.Details["field"] == "last_completed_chapter" {
		delete(e.Details, "field")
		missingLastHint(root, e)
	}
	return cp, Snapshot(data), err
}

// missingLastHint points a checkpoint without last_completed_chapter at
// the highest chapter chapters/ holds, the value it most likely lost.
func missingLastHint(root *project.Root, e *errs.Error) {
	_, high, err := CommittedChapters(root)
	if err != nil || high == 0 {
		e.Hint("在 .checkpoint.json 中填写 last_completed_chapter（chapters/ 中没有已提交的章节，新项目为 0）",
			"set last_completed_chapter in .checkpoint.json (chapters/ holds no committed chapter; 0 for a new project)")
		return
	}
	rel := layout.Chapter(high)
	e.With("highest_committed_chapter", high).
		Hint(fmt.Sprintf("在 .checkpoint.json 中填写 last_completed_chapter（chapters/ 中已提交的最高章节是第 %d 章：%s）", high, rel),
			fmt.Sprintf("set last_completed_chapter in .checkpoint.json (the highest committed chapter in chapters/ is %d: %s)", high, rel))
}

// CommittedChapters counts chapters/chapter-NNN.md and finds the highest
// NNN (one unsorted directory read, no stat; 0, 0 without chapters/).
func CommittedChapters(root *project.Root) (count, highest int, err error) {
	abs, err := root.Abs("chapters")
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Open(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, 0, nil
		}
		return 0, 0, errs.Newf(errs.IO, "无法读取 chapters/：%v", "cannot read chapters/: %v", err).With("file", "chapters")
	}
	defer f.Close()
	// File.ReadDir neither sorts nor stats: the type comes from the
	// directory entry itself.
	ents, err := f.ReadDir(-1)
	if err != nil {
		return 0, 0, errs.Newf(errs.IO, "无法读取 chapters/：%v", "cannot read chapters/: %v", err).With("file", "chapters")
	}
	for _, e := range ents {
		if n, ok := CommittedNumber(e); ok {
			count++
			highest = max(highest, n)
		}
	}
	return count, highest, nil
}

// CommittedNumber is the chapter number of a chapters/ entry that counts
// as a committed chapter: a regular file chapter-N.md (N digits, any
// padding, at most 9), judged by the directory entry's type alone.
func CommittedNumber(e fs.DirEntry) (int, bool) {
	num, prefixed := strings.CutPrefix(e.Name(), "chapter-")
	num, suffixed := strings.CutSuffix(num, ".md")
	if !prefixed || !suffixed || num == "" || strings.Trim(num, "0123456789") != "" || len(num) > 9 || !e.Type().IsRegular() {
		return 0, false
	}
	n, _ := strconv.Atoi(num)
	return n, true
}

func bad(zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Checkpoint, layout.Checkpoint+" "+zh, layout.Checkpoint+" "+en, args...).
		With("file", layout.Checkpoint).
		Hint("修正 .checkpoint.json（字段见 SPEC §2）后重试", "fix .checkpoint.json (fields in SPEC §2) and retry")
}

// Parse decodes checkpoint bytes.
func Parse(data []byte) (*Checkpoint, error) {
	var raw map[string]json.RawMessage
	if err := jsonio.Decode(data, layout.Checkpoint, &raw); err != nil {
		e := errs.Coerce(err)
		if e.Code == errs.Schema || raw == nil {
			var probe any
			if jsonio.Decode(data, layout.Checkpoint, &probe) == nil {
				return nil, bad("必须是 JSON 对象，实际为 %s", "must be a JSON object, not %s", jsonio.TypeName(probe))
			}
		}
		ne := errs.New(errs.Checkpoint, e.Zh, e.En).Hint("修正 .checkpoint.json 的 JSON 语法后重试", "fix the JSON syntax of .checkpoint.json and retry")
		ne.Details = e.Details
		return nil, ne
	}
	if raw == nil {
		return nil, bad("必须是 JSON 对象，实际为 null", "must be a JSON object, not null")
	}
	cp := &Checkpoint{SchemaVersion: 2, State: Writing, extra: map[string]json.RawMessage{}}
	for k, v := range raw {
		cp.extra[k] = v
	}
	var err error
	if cp.SchemaVersion, err = intField(raw, "schema_version", 2, false); err != nil {
		return nil, err
	}
	if cp.SchemaVersion > 2 {
		// A newer suite's checkpoint: its fields may mean something else.
		return nil, bad("schema_version %d 高于本工具支持的 2", "schema_version %d is newer than the 2 this suite supports", cp.SchemaVersion).
			With("schema_version", cp.SchemaVersion).Hint("用更新版本的工具打开该项目", "open the project with a newer version of the suite")
	}
	if cp.LastCompleted, err = intField(raw, "last_completed_chapter", 0, false); err != nil {
		return nil, err
	}
	if cp.LastCompleted < 0 {
		return nil, bad("last_completed_chapter 不能为负数", "last_completed_chapter must not be negative")
	}
	if cp.CurrentVolume, err = intField(raw, "current_volume", 1, false); err != nil {
		return nil, err
	}
	if cp.RevisionCount, err = intField(raw, "revision_count", 0, true); err != nil {
		return nil, err
	}
	if cp.RevisionCount < 0 {
		return nil, bad("revision_count 不能为负数", "revision_count must not be negative")
	}
	if cp.Inflight, err = intField(raw, "inflight_chapter", 0, true); err != nil {
		return nil, err
	}
	if cp.Inflight < 0 {
		return nil, bad("inflight_chapter 不能为负数", "inflight_chapter must not be negative")
	}
	// Step ids carry numbers up to stepid.MaxNumber; beyond it no step of
	// the project could be named.
	if cp.LastCompleted >= stepid.MaxNumber || cp.Inflight > stepid.MaxNumber || cp.CurrentVolume > stepid.MaxNumber {
		return nil, bad("章节或卷号超出上限 %d", "has a chapter or volume number above the limit %d", stepid.MaxNumber)
	}
	if s, err := strField(raw, "orchestrator_state"); err != nil {
		return nil, err
	} else if s != "" {
		if !slices.Contains(States, s) {
			return nil, bad("orchestrator_state %q 未知（可选 %v）", "orchestrator_state %q is unknown (one of %v)", s, States)
		}
		cp.State = s
	}
	if s, err := strField(raw, "pipeline_stage"); err != nil {
		return nil, err
	} else if s != "" {
		if m, ok := pluginStages[s]; ok {
			cp.PluginStage, s = s, m
		}
		if !slices.Contains(Stages, s) {
			return nil, bad("pipeline_stage %q 未知（可选 %v）", "pipeline_stage %q is unknown (one of %v)", s, Stages)
		}
		cp.Stage = s
	}
	if cp.CurrentVolume < 0 || (cp.CurrentVolume == 0 && cp.State != QuickStart && cp.State != VolPlanning) {
		return nil, bad("current_volume 必须 ≥ 1（仅 QUICK_START/VOL_PLANNING 可为 0）", "current_volume must be ≥ 1 (0 only in QUICK_START/VOL_PLANNING)")
	}
	if s, err := strField(raw, "last_checkpoint_time"); err != nil {
		return nil, err
	} else {
		cp.LastCheckpointTime = s
	}
	if v, ok := raw["last_error"]; ok && string(v) != "null" {
		var le LastError
		if json.Unmarshal(v, &le) != nil {
			return nil, bad("last_error 必须是对象", "last_error must be an object")
		}
		cp.LastError = &le
	}
	if v, ok := raw["last_completed_chapter"]; !ok || string(v) == "null" {
		// Read as 0 it would send the pipeline back to chapter 1 of a
		// project that has chapters (SPEC §22); LoadSnapshot's hint names
		// the highest committed chapter. Checked last, so a field with a
		// wrong value is reported first.
		return nil, bad("缺少 last_completed_chapter", "has no last_completed_chapter").With("field", "last_completed_chapter")
	}
	return cp, nil
}

func intField(raw map[string]json.RawMessage, key string, def int, nullable bool) (int, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return def, nil
	}
	var n json.Number
	if len(v) > 0 && v[0] == '"' {
		return 0, bad("%s 必须是整数，实际为字符串 %s", "%s must be an integer, got the string %s", key, string(v))
	}
	if err := json.Unmarshal(v, &n); err != nil {
		return 0, bad("%s 必须是整数，实际为 %s", "%s must be an integer, got %s", key, string(v))
	}
	i, ok := jsonio.Int(n)
	if !ok {
		return 0, bad("%s 必须是整数，实际为 %s", "%s must be an integer, got %s", key, string(v))
	}
	return i, nil
}

func strField(raw map[string]json.RawMessage, key string) (string, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", bad("%s 必须是字符串，实际为 %s", "%s must be a string, got %s", key, string(v))
	}
	return s, nil
}

// Idle reports whether no chapter is in flight.
func (cp *Checkpoint) Idle() bool {
	return cp.Inflight == 0 || cp.Stage == "" || cp.Stage == Committed
}

// NextChapter is last_completed + 1.
func (cp *Checkpoint) NextChapter() int { return cp.LastCompleted + 1 }

// Writable reports whether the orchestrator state allows chapter work.
func (cp *Checkpoint) Writable() bool { return cp.State == Writing || cp.State == ChapterRewrite }

// Map renders the canonical JSON object (unknown fields preserved).
func (cp *Checkpoint) Map() map[string]any {
	m := map[string]any{}
	for k, v := range cp.extra {
		m[k] = v
	}
	m["schema_version"] = cp.SchemaVersion
	m["last_completed_chapter"] = cp.LastCompleted
	m["current_volume"] = cp.CurrentVolume
	m["orchestrator_state"] = cp.State
	m["pipeline_stage"] = jsonio.NullIfEmpty(cp.Stage)
	if cp.Inflight > 0 {
		m["inflight_chapter"] = cp.Inflight
	} else {
		m["inflight_chapter"] = nil
	}
	m["revision_count"] = cp.RevisionCount
	if cp.LastCheckpointTime != "" {
		m["last_checkpoint_time"] = cp.LastCheckpointTime
	}
	if cp.LastError != nil {
		m["last_error"] = cp.LastError
	} else {
		delete(m, "last_error")
	}
	return m
}

// Save writes the checkpoint atomically, stamping last_checkpoint_time.
func (cp *Checkpoint) Save(root *project.Root, now string) error {
	cp.LastCheckpointTime = now
	if cp.SchemaVersion < 2 {
		cp.SchemaVersion = 2
	}
	return root.WriteJSON(layout.Checkpoint, cp.Map())
}

// Clone returns a deep-enough copy for tentative edits.
func (cp *Checkpoint) Clone() *Checkpoint {
	c := *cp
	c.extra = map[string]json.RawMessage{}
	for k, v := range cp.extra {
		c.extra[k] = v
	}
	if cp.LastError != nil {
		le := *cp.LastError
		c.LastError = &le
	}
	return &c
}

// Summary is the checkpoint as shown in command outputs (stable order).
type Summary struct {
	LastCompleted int     `json:"last_completed_chapter"`
	CurrentVolume int     `json:"current_volume"`
	State         string  `json:"orchestrator_state"`
	Stage         *string `json:"pipeline_stage"`
	Inflight      *int    `json:"inflight_chapter"`
	RevisionCount int     `json:"revision_count"`
}

// Summarize returns the output view.
func (cp *Checkpoint) Summarize() Summary {
	s := Summary{LastCompleted: cp.LastCompleted, CurrentVolume: cp.CurrentVolume, State: cp.State, RevisionCount: cp.RevisionCount}
	if cp.Stage != "" {
		st := cp.Stage
		s.Stage = &st
	}
	if cp.Inflight > 0 {
		in := cp.Inflight
		s.Inflight = &in
	}
	return s
}
