// Package revision reads and writes revision status files
// (chapters/chapter-NNN-revision.json) and enforces the pending-revision
// hard gate (SPEC §7.4): the smallest pending chapter blocks every chapter
// after it, and any unreadable revision file blocks everything.
package revision

import (
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
)

// Statuses.
const (
	StatusPending  = "pending"
	StatusAccepted = "accepted"
	StatusRejected = "rejected"
)

// Triggers.
const (
	QualityGate = "quality_gate"
	LogicReview = "logic_review"
	Consistency = "consistency"
	Manual      = "manual"
)

// Status is one revision status file. Fields the suite does not know are
// preserved on rewrite.
type Status struct {
	ChapterNumber         int
	Status                string
	TriggeredBy           string
	RevisionNotes         string
	CreatedAt             string
	DecisionAt            string // "" = null
	DecisionNote          string // "" = absent
	LogicReviewReportFile string // "" = null
	GateFile              string // "" = null
	// Logic-review figures recorded when the block came from a report.
	ObservedScore   *int
	MinScore        *int
	HighIssuesCount *int

	// File is the project-relative file it was read from ("" when new).
	File  string
	extra map[string]json.RawMessage
}

// Both the suite's hyphen form and the seed's underscore form are read;
// names must be anchored so near-names (.bak, ~) never count.
var (
	hyphenRE     = lazyre.New(`^chapter-([0-9]{3,})-revision\.json$`)
	underscoreRE = lazyre.New(`^chapter_([0-9]{3,})_revision\.json$`)
)

// match returns the chapter of a revision file name and whether it is the
// hyphen form. Only canonical padding counts (chapter-0003-… is a near-name).
func match(name string) (int, bool, bool) {
	hy := true
	m := hyphenRE().FindStringSubmatch(name)
	if m == nil {
		hy = false
		if m = underscoreRE().FindStringSubmatch(name); m == nil {
			return 0, false, false
		}
	}
	if len(m[1]) > 9 {
		return 0, false, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || layout.Pad(n) != m[1] {
		return 0, false, false
	}
	return n, hy, true
}

func corrupt(rel string, cause error, zh, en string) *errs.Error {
	e := errs.New(errs.Schema, "修订状态文件 "+rel+" 无法使用："+zh, "revision status file "+rel+" is unusable: "+en).
		With("file", rel).
		Hint("修正或删除该文件（若章节需重做可用 novel-commit rollback）；在此之前所有章节生成都被阻断",
			"fix or remove that file (or roll back with novel-commit rollback); every chapter is blocked until then")
	if c := errs.As(cause); c != nil {
		e.Zh = "修订状态文件 " + rel + " 无法使用：" + c.Zh
		e.En = "revision status file " + rel + " is unusable: " + c.En0()
		for _, k := range []string{"line", "column", "field"} {
			if v, ok := c.Details[k]; ok {
				e.With(k, v)
			}
		}
		e.With("cause", c.Code)
	}
	// Fail closed: whatever the target chapter, this is exit 1.
	e.Exit = errs.ExitFailed
	return e
}

// parse decodes a revision file named rel that must belong to chapter
// (the name is authoritative; a disagreeing chapter_number is an error).
func parse(data []byte, rel string, chapter int) (*Status, error) {
	var raw map[string]json.RawMessage
	if err := jsonio.Decode(data, rel, &raw); err != nil {
		if errs.Is(err, errs.Schema) {
			return nil, corrupt(rel, nil, "必须是 JSON 对象", "must be a JSON object")
		}
		return nil, corrupt(rel, err, "", "")
	}
	if raw == nil {
		return nil, corrupt(rel, nil, "必须是 JSON 对象，实际为 null", "must be a JSON object, not null")
	}
	s := &Status{File: rel, ChapterNumber: chapter, extra: map[string]json.RawMessage{}}
	for k, v := range raw {
		s.extra[k] = v
	}
	if v, ok := raw["chapter_number"]; ok && string(v) != "null" {
		var n json.Number
		i, isInt := 0, false
		if v[0] != '"' && json.Unmarshal(v, &n) == nil {
			i, isInt = jsonio.Int(n)
		}
		if !isInt {
			return nil, corrupt(rel, nil, "chapter_number 必须是整数，实际为 "+string(v), "chapter_number must be an integer, got "+string(v))
		}
		if i != chapter {
			return nil, corrupt(rel, nil, "文件名是第 "+strconv.Itoa(chapter)+" 章，但 chapter_number 为 "+strconv.Itoa(i),
				"the file name says chapter "+strconv.Itoa(chapter)+" but chapter_number is "+strconv.Itoa(i)).
				With("chapter_number", i).With("file_chapter", chapter)
		}
	}
	str := func(key string) (string, error) {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			return "", nil
		}
		var x string
		if json.Unmarshal(v, &x) != nil {
			return "", corrupt(rel, nil, key+" 必须是字符串，实际为 "+string(v), key+" must be a string, got "+string(v)).With("field", key)
		}
		return x, nil
	}
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"status", &s.Status}, {"triggered_by", &s.TriggeredBy}, {"revision_notes", &s.RevisionNotes},
		{"created_at", &s.CreatedAt}, {"decision_at", &s.DecisionAt}, {"decision_note", &s.DecisionNote},
		{"logic_review_report_file", &s.LogicReviewReportFile}, {"gate_file", &s.GateFile}} {
		if *f.dst, err = str(f.key); err != nil {
			return nil, err
		}
	}
	switch s.Status {
	case StatusPending, StatusAccepted, StatusRejected:
	default:
		return nil, corrupt(rel, nil, "status 必须是 pending、accepted 或 rejected，实际为 "+strconv.Quote(s.Status),
			"status must be pending, accepted or rejected, got "+strconv.Quote(s.Status)).With("field", "status")
	}
	if s.TriggeredBy == "" {
		// Legacy files without the field came from consistency checks.
		s.TriggeredBy = Consistency
	}
	for _, f := range []struct {
		key string
		dst **int
	}{{"observed_score", &s.ObservedScore}, {"min_score", &s.MinScore}, {"high_issues_count", &s.HighIssuesCount}} {
		v, ok := raw[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		var n json.Number
		if v[0] != '"' && json.Unmarshal(v, &n) == nil {
			if i, isInt := jsonio.Int(n); isInt {
				*f.dst = &i
				continue
			}
		}
		return nil, corrupt(rel, nil, f.key+" 必须是整数", f.key+" must be an integer").With("field", f.key)
	}
	return s, nil
}

// Load reads chapter c's revision file: the hyphen form wins over the
// seed's underscore form. nil, nil when neither exists.
func Load(root *project.Root, c int) (*Status, error) {
	for _, rel := range []string{layout.Revision(c), layout.RevisionUnderscore(c)} {
		abs, err := root.Abs(rel)
		if err != nil {
			return nil, err
		}
		if _, err := os.Lstat(abs); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
		}
		return read(root, rel, c)
	}
	return nil, nil
}

func read(root *project.Root, rel string, c int) (*Status, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, corrupt(rel, err, "", "")
	}
	return parse(data, rel, c)
}

// all reads every revision file in chapters/ with one directory listing,
// smallest chapter first. Any unreadable file is an error (fail closed).
func all(root *project.Root) ([]Status, error) {
	abs, err := root.Abs(layout.ChaptersDir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, errs.Newf(errs.IO, "无法列出 %s：%v", "cannot list %s: %v", layout.ChaptersDir, err).With("file", layout.ChaptersDir)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法列出 %s：%v", "cannot list %s: %v", layout.ChaptersDir, err).With("file", layout.ChaptersDir)
	}
	return allOf(root, names)
}

// allOf is All over names, a listing of chapters/ the caller already has
// (next lists the folder once for its integrity check): only the names
// ending in revision.json matter.
func allOf(root *project.Root, names []string) ([]Status, error) {
	type hit struct {
		c      int
		hyphen bool
		rel    string
	}
	var hits []hit
	hyphen := map[int]bool{}
	for _, n := range names {
		// Thousands of chapter files: skip the regexps for them.
		if !strings.HasSuffix(n, "revision.json") {
			continue
		}
		c, hy, ok := match(n)
		if !ok {
			continue
		}
		hits = append(hits, hit{c, hy, layout.ChaptersDir + "/" + n})
		if hy {
			hyphen[c] = true
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].c < hits[j].c })
	var out []Status
	for _, h := range hits {
		if !h.hyphen && hyphen[h.c] {
			continue // superseded by the hyphen form
		}
		s, err := read(root, h.rel, h.c)
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	return out, nil
}

// Pending lists every pending revision, smallest chapter first.
func Pending(root *project.Root) ([]Status, error) {
	all, err := all(root)
	if err != nil {
		return nil, err
	}
	return pendingOf(all), nil
}

func pendingOf(all []Status) []Status {
	var out []Status
	for _, s := range all {
		if s.Status == StatusPending {
			out = append(out, s)
		}
	}
	return out
}

// Check is the hard gate for generating chapter target: nil when allowed,
// E_PENDING_REVISION (exit 3) with the §7.4 payload when a pending revision
// of an earlier chapter exists, E_SCHEMA (exit 1) for any bad revision file.
func Check(root *project.Root, target int) error {
	pend, err := Pending(root)
	if err != nil {
		return err
	}
	return check(root, target, pend)
}

// CheckOf is Check over a listing of chapters/ the caller already has
// (AllOf).
func CheckOf(root *project.Root, target int, names []string) error {
	all, err := allOf(root, names)
	if err != nil {
		return err
	}
	return check(root, target, pendingOf(all))
}

func check(root *project.Root, target int, pend []Status) error {
	if len(pend) == 0 || target <= pend[0].ChapterNumber {
		return nil
	}
	return Blocked(root, &pend[0], target)
}

// Blocked builds the E_PENDING_REVISION error for st blocking target. The
// offered actions depend on where st's chapter stands.
func Blocked(root *project.Root, st *Status, target int) *errs.Error {
	standing := Elsewhere
	if cp, err := checkpoint.Load(root); err == nil {
		standing = StandingOf(cp, st.ChapterNumber)
	}
	return BlockedError(root, st, target, standing)
}

// IsInflight reports whether chapter c is the checkpoint's unfinished
// chapter (only then can it be revised, rejudged or regenerated).
func IsInflight(cp *checkpoint.Checkpoint, c int) bool {
	return cp.Inflight == c && cp.Stage != "" && cp.Stage != checkpoint.Committed
}

// Standing is where a revision's chapter is, which decides what can be
// done about it: an inflight chapter can be revised, rejudged or
// regenerated but not rolled back (rollback only undoes committed
// chapters); a committed one can only be accepted or rolled back.
type Standing int

// Standings.
const (
	Elsewhere Standing = iota // neither in flight nor committed
	InFlight
	Committed
)

// StandingOf places chapter c against the checkpoint.
func StandingOf(cp *checkpoint.Checkpoint, c int) Standing {
	switch {
	case IsInflight(cp, c):
		return InFlight
	case c <= cp.LastCompleted:
		return Committed
	}
	return Elsewhere
}

// Action is one suggested next action with its exact command.
type Action struct {
	Action  string `json:"action"`
	Command string `json:"command"`
}

// nextActions lists what a person can do about chapter c's pending
// revision: only commands that work where the chapter stands.
func nextActions(c int, standing Standing) []Action {
	n := strconv.Itoa(c)
	out := []Action{
		{"review", "novel-gate show --chapter " + n},
		{"accept", "novel-gate resolve --chapter " + n + " --accept"},
	}
	switch standing {
	case InFlight:
		out = append(out, Action{"revise", "novel-gate resolve --chapter " + n + " --revise"},
			Action{"rejudge", "novel-gate resolve --chapter " + n + " --rejudge"},
			Action{"regen", "novel-gate resolve --chapter " + n + " --regen"})
	case Committed:
		out = append(out, Action{"rollback", "novel-commit rollback --to " + n})
	}
	return out
}

// ReportFile is the logic review report a revision points at: its own
// field, else the committed report of that chapter when it exists.
func ReportFile(root *project.Root, st *Status) string {
	if st.LogicReviewReportFile != "" {
		return st.LogicReviewReportFile
	}
	if root != nil && root.IsFile(layout.LogicReview(st.ChapterNumber)) {
		return layout.LogicReview(st.ChapterNumber)
	}
	return ""
}

// Payload is the §7.4 details object.
func Payload(root *project.Root, st *Status, target int, standing Standing) map[string]any {
	d := map[string]any{
		"blocked_chapter":      st.ChapterNumber,
		"target_chapter":       target,
		"revision_status_file": st.File,
		"triggered_by":         st.TriggeredBy,
		"revision_notes":       st.RevisionNotes,
		"next_actions":         nextActions(st.ChapterNumber, standing),
	}
	if f := ReportFile(root, st); f != "" {
		d["logic_review_report_file"] = f
	}
	if st.ObservedScore != nil {
		d["observed_score"] = *st.ObservedScore
	}
	if st.MinScore != nil {
		d["min_score"] = *st.MinScore
	}
	if st.HighIssuesCount != nil {
		d["high_issues_count"] = *st.HighIssuesCount
	}
	return d
}

// BlockedError is Blocked with the chapter's standing already known.
func BlockedError(root *project.Root, st *Status, target int, standing Standing) *errs.Error {
	n := st.ChapterNumber
	e := errs.Newf(errs.PendingRevision, "必须先处理第 %d 章的 pending 修订", "the pending revision of chapter %d must be handled first", n).
		Hint("用 novel-gate show --chapter "+strconv.Itoa(n)+" 查看，再按 next_actions 中的命令处理",
			"inspect it with novel-gate show --chapter "+strconv.Itoa(n)+", then run one of the next_actions commands")
	e.Details = Payload(root, st, target, standing)
	return e
}

// New makes a pending revision status for chapter c.
func New(c int, trigger, notes, now string) *Status {
	return &Status{ChapterNumber: c, Status: StatusPending, TriggeredBy: trigger, RevisionNotes: notes, CreatedAt: now,
		File: layout.Revision(c), extra: map[string]json.RawMessage{}}
}

// Map renders the canonical JSON object (unknown fields preserved).
func (s *Status) Map() map[string]any {
	m := map[string]any{}
	for k, v := range s.extra {
		m[k] = v
	}
	m["chapter_number"] = s.ChapterNumber
	m["status"] = s.Status
	m["triggered_by"] = s.TriggeredBy
	m["revision_notes"] = s.RevisionNotes
	m["created_at"] = s.CreatedAt
	m["decision_at"] = jsonio.NullIfEmpty(s.DecisionAt)
	m["logic_review_report_file"] = jsonio.NullIfEmpty(s.LogicReviewReportFile)
	m["gate_file"] = jsonio.NullIfEmpty(s.GateFile)
	setOpt := func(k string, v any, present bool) {
		if present {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
	setOpt("decision_note", s.DecisionNote, s.DecisionNote != "")
	for _, f := range []struct {
		k string
		v *int
	}{{"observed_score", s.ObservedScore}, {"min_score", s.MinScore}, {"high_issues_count", s.HighIssuesCount}} {
		if f.v != nil {
			setOpt(f.k, *f.v, true)
		} else {
			setOpt(f.k, nil, false)
		}
	}
	return m
}

// Save writes the status to the hyphen form, then removes a seed-era
// underscore file of the same chapter (the hyphen form supersedes it).
func Save(root *project.Root, s *Status) error {
	if err := root.WriteJSON(layout.Revision(s.ChapterNumber), s.Map()); err != nil {
		return err
	}
	s.File = layout.Revision(s.ChapterNumber)
	old, err := root.Abs(layout.RevisionUnderscore(s.ChapterNumber))
	if err != nil {
		return err
	}
	if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return errs.Newf(errs.IO, "无法删除 %s：%v", "cannot remove %s: %v", layout.RevisionUnderscore(s.ChapterNumber), err)
	}
	return nil
}

// Decide moves the status to accepted or rejected at now, with an
// optional note.
func (s *Status) Decide(status, note, now string) {
	s.Status = status
	s.DecisionAt = now
	if note != "" {
		s.DecisionNote = note
	}
}

// SetStatus rewrites chapter c's revision file (when there is one) to
// status with note; used by abandon (rejected, "abandoned") and rollback
// (rejected, "rolled back"). It reports whether a file was changed.
func SetStatus(root *project.Root, c int, status, note, now string) (bool, error) {
	s, err := Load(root, c)
	if err != nil || s == nil {
		return false, err
	}
	if s.Status == status && (note == "" || s.DecisionNote == note) {
		return false, nil
	}
	s.Decide(status, note, now)
	return true, Save(root, s)
}
