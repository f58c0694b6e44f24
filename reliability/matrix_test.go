package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A matrix row: one file the suite reads, in the fixture where its readers
// run, and the commands that read it.
type row struct {
	fixture string // "judged" or "gated"
	rel     string
	kind    string // json, md, lockinfo
	// original, when set, is written first (files the fixture lacks).
	original string
	// optional: a missing file is a documented default (exit 0).
	optional bool
	// product: a staging product; next treats an invalid one as not done
	// and proposes its step again (exit 0), every other reader errors.
	product bool
	cmds    []cmd
}

type cmd struct {
	name   string
	args   []string
	writer bool
}

func (c cmd) String() string { return c.name + " " + strings.Join(c.args, " ") }

var (
	cNext      = cmd{name: "novel-step", args: []string{"next"}}
	cDecide    = cmd{name: "novel-gate", args: []string{"decide", "--chapter", "1"}}
	cCheck     = cmd{name: "novel-gate", args: []string{"check", "--chapter", "1"}}
	cApply     = cmd{name: "novel-gate", args: []string{"decide", "--chapter", "1", "--apply"}, writer: true}
	cCommit    = cmd{name: "novel-commit", args: []string{"--chapter", "1"}, writer: true}
	cFQuery    = cmd{name: "novel-foreshadow", args: []string{"query", "--chapter", "1"}}
	cOutline   = cmd{name: "novel-outline", args: []string{"--chapter", "1"}}
	cLock      = cmd{name: "novel-lock", args: []string{"status"}}
	cValidSum  = cmd{name: "novel-step", args: []string{"validate", "chapter:001:summarize"}}
	cValidJdg  = cmd{name: "novel-step", args: []string{"validate", "chapter:001:judge"}}
	cPktDraft  = cmd{name: "novel-manifest", args: []string{"packet", "chapter:001:draft"}}
	cPktSum    = cmd{name: "novel-manifest", args: []string{"packet", "chapter:001:summarize"}}
	cPktJudge  = cmd{name: "novel-manifest", args: []string{"packet", "chapter:001:judge"}}
	cAgentJdg  = cmd{name: "novel-agent", args: []string{"--backend", "replay", "--fixtures", "REPLAY", "staging/manifests/chapter-001-judge.packet.json"}}
	cAgentDrft = cmd{name: "novel-agent", args: []string{"--backend", "replay", "--fixtures", "REPLAY", "staging/manifests/chapter-001-draft.packet.json"}, writer: true}
)

const logicReview = `{"chapter_number":1,"overall_score":88,"issues":[{"issue_type":"continuity","description":"灯册记录前后不一","severity":"low"}],"summary":"整体通顺"}` + "\n"

const acceptedRevision = `{"chapter_number":1,"status":"accepted","triggered_by":"quality_gate","revision_notes":"n","created_at":"2026-11-01T08:00:00Z","decision_at":"2026-11-01T08:30:00Z","logic_review_report_file":null,"gate_file":null}` + "\n"

var rows = []row{
	{fixture: "judged", rel: ".checkpoint.json", kind: "json", cmds: []cmd{cNext, cDecide, cPktJudge, cFQuery, cOutline, cApply}},
	{fixture: "judged", rel: "settings.json", kind: "json", optional: true, cmds: []cmd{cNext, cDecide, cPktJudge, cApply}},
	{fixture: "judged", rel: "volumes/vol-01/outline.md", kind: "md", cmds: []cmd{cOutline, cNext, cPktJudge, cDecide}},
	{fixture: "judged", rel: "volumes/vol-01/chapter-contracts/chapter-001.json", kind: "json", optional: true, cmds: []cmd{cPktDraft, cPktJudge}},
	{fixture: "judged", rel: "world/rules.json", kind: "json", optional: true, cmds: []cmd{cPktDraft, cPktJudge}},
	{fixture: "judged", rel: "characters/active/lu-zhao.json", kind: "json", optional: true, cmds: []cmd{cPktDraft, cPktJudge}},
	{fixture: "judged", rel: "volumes/vol-01/storyline-schedule.json", kind: "json", optional: true, cmds: []cmd{cNext, cDecide, cPktJudge, cApply}},
	{fixture: "judged", rel: "foreshadowing/global.json", kind: "json", optional: true, cmds: []cmd{cFQuery, cPktDraft}},
	{fixture: "judged", rel: "volumes/vol-01/foreshadowing.json", kind: "json", optional: true, cmds: []cmd{cFQuery, cPktDraft}},
	{fixture: "judged", rel: "state/current-state.json", kind: "json", cmds: []cmd{cNext, cPktSum}},
	{fixture: "judged", rel: "staging/state/chapter-001-delta.json", kind: "json", product: true, cmds: []cmd{cNext, cValidSum}},
	{fixture: "judged", rel: "staging/state/chapter-001-crossref.json", kind: "json", product: true, cmds: []cmd{cNext, cValidSum, cPktJudge}},
	{fixture: "judged", rel: "staging/evaluations/chapter-001-eval.json", kind: "json", product: true, cmds: []cmd{cNext, cDecide, cValidJdg, cApply}},
	{fixture: "judged", rel: "staging/evaluations/chapter-001-eval.secondary.json", kind: "json", product: true, cmds: []cmd{cNext, cDecide, cValidJdg}},
	{fixture: "judged", rel: "staging/reviews/chapter-001-logic-review.json", kind: "json", original: logicReview, optional: true, cmds: []cmd{cDecide, cApply}},
	{fixture: "judged", rel: "chapters/chapter-001-revision.json", kind: "json", original: acceptedRevision, optional: true, cmds: []cmd{cNext, cCheck, cPktDraft, cDecide, cApply}},
	{fixture: "judged", rel: ".novel.lock/info.json", kind: "lockinfo", cmds: []cmd{cLock, cApply}},
	{fixture: "judged", rel: "staging/manifests/chapter-001-judge.packet.json", kind: "json", cmds: []cmd{cAgentJdg}},
	{fixture: "judged", rel: "staging/manifests/chapter-001-draft.packet.json", kind: "json", cmds: []cmd{cAgentDrft}},
	{fixture: "gated", rel: ".checkpoint.json", kind: "json", cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "settings.json", kind: "json", optional: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "staging/evaluations/chapter-001-gate.json", kind: "json", product: true, cmds: []cmd{cNext, cCommit}},
	{fixture: "gated", rel: "staging/state/chapter-001-delta.json", kind: "json", product: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "staging/state/chapter-001-crossref.json", kind: "json", product: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "staging/evaluations/chapter-001-eval.json", kind: "json", product: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "staging/chapters/chapter-001.md", kind: "md", product: true, cmds: []cmd{cNext, cCommit}},
	{fixture: "gated", rel: "state/current-state.json", kind: "json", cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "foreshadowing/global.json", kind: "json", optional: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "volumes/vol-01/foreshadowing.json", kind: "json", optional: true, cmds: []cmd{cCommit}},
	{fixture: "gated", rel: "volumes/vol-01/outline.md", kind: "md", cmds: []cmd{cCommit}},
}

// The corruptions of the matrix. Each edits the file at rel inside the
// project p (orig is its valid content) and says whether it applies.
type corruption struct {
	name  string
	apply func(t *testing.T, p, rel string, orig []byte, kind string) bool
}

const tenMiB = 10 << 20

func writeAt(t *testing.T, p, rel string, data []byte) {
	t.Helper()
	abs := filepath.Join(p, filepath.FromSlash(rel))
	os.RemoveAll(abs)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wrongTypes replaces every top-level value of a JSON object with a value
// of another type (string ↔ number, list → object, object → string…).
func wrongTypes(orig []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(orig, []byte("\xef\xbb\xbf")), &m) != nil || len(m) == 0 {
		return nil, false
	}
	for k, v := range m {
		t := bytes.TrimSpace(v)
		switch {
		case len(t) == 0:
		case t[0] == '"':
			m[k] = json.RawMessage(`12345`)
		case t[0] == '[':
			m[k] = json.RawMessage(`{"x":1}`)
		case t[0] == '{':
			m[k] = json.RawMessage(`"不是对象"`)
		case t[0] == 't' || t[0] == 'f':
			m[k] = json.RawMessage(`"yes"`)
		case t[0] == 'n':
			m[k] = json.RawMessage(`[]`)
		default:
			m[k] = json.RawMessage(`"7"`)
		}
	}
	out, _ := json.Marshal(m)
	return out, true
}

var corruptions = []corruption{
	{"missing", func(t *testing.T, p, rel string, _ []byte, _ string) bool {
		os.RemoveAll(filepath.Join(p, filepath.FromSlash(rel)))
		return true
	}},
	{"empty", func(t *testing.T, p, rel string, _ []byte, _ string) bool { writeAt(t, p, rel, nil); return true }},
	{"not-json", func(t *testing.T, p, rel string, orig []byte, kind string) bool {
		if kind == "md" {
			return false
		}
		writeAt(t, p, rel, orig[:len(orig)/2])
		return true
	}},
	{"not-utf8", func(t *testing.T, p, rel string, orig []byte, kind string) bool {
		half := len(orig) / 2
		for half < len(orig) && orig[half]&0xC0 == 0x80 {
			half++
		}
		data := append(append(append([]byte{}, orig[:half]...), 0xff, 0xfe), orig[half:]...)
		if kind == "json" || kind == "lockinfo" {
			// Inside a string value, so only the encoding is wrong.
			data = append([]byte(`{"x":"`+"\xff\xfe"+`",`), bytes.TrimPrefix(bytes.TrimSpace(orig), []byte("{"))...)
		}
		writeAt(t, p, rel, data)
		return true
	}},
	{"bom", func(t *testing.T, p, rel string, orig []byte, _ string) bool {
		writeAt(t, p, rel, append([]byte("\xef\xbb\xbf"), orig...))
		return true
	}},
	{"wrong-top-type", func(t *testing.T, p, rel string, _ []byte, kind string) bool {
		if kind == "md" {
			return false
		}
		writeAt(t, p, rel, []byte("[1, \"两\", null]\n"))
		return true
	}},
	{"wrong-field-types", func(t *testing.T, p, rel string, orig []byte, kind string) bool {
		data, ok := wrongTypes(orig)
		if kind == "md" || !ok {
			return false
		}
		writeAt(t, p, rel, data)
		return true
	}},
	{"directory", func(t *testing.T, p, rel string, _ []byte, _ string) bool {
		abs := filepath.Join(p, filepath.FromSlash(rel))
		os.RemoveAll(abs)
		if err := os.MkdirAll(filepath.Join(abs, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
		return true
	}},
	{"symlink-outside", func(t *testing.T, p, rel string, orig []byte, _ string) bool {
		outside := filepath.Join(filepath.Dir(p), "outside-"+filepath.Base(rel))
		if err := os.WriteFile(outside, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		abs := filepath.Join(p, filepath.FromSlash(rel))
		os.RemoveAll(abs)
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.Symlink(outside, abs); err != nil {
			t.Fatal(err)
		}
		return true
	}},
	{"10MB-valid", func(t *testing.T, p, rel string, orig []byte, kind string) bool {
		// The same document followed by 10 MiB of whitespace: still valid,
		// under the 32 MiB cap, so it must be accepted.
		pad := bytes.Repeat([]byte(" \n"), tenMiB/2)
		if kind == "md" {
			pad = bytes.Repeat([]byte("\n"), tenMiB)
		}
		writeAt(t, p, rel, append(append([]byte{}, orig...), pad...))
		return true
	}},
	{"10MB-garbage", func(t *testing.T, p, rel string, _ []byte, kind string) bool {
		if kind == "md" {
			return false
		}
		writeAt(t, p, rel, append([]byte(`{"x":"`), bytes.Repeat([]byte("垃"), tenMiB/3)...))
		return true
	}},
	{"over-32MiB", func(t *testing.T, p, rel string, orig []byte, kind string) bool {
		// A sparse file: the size alone must be refused, before any read.
		writeAt(t, p, rel, orig)
		if err := os.Truncate(filepath.Join(p, filepath.FromSlash(rel)), 33<<20); err != nil {
			t.Fatal(err)
		}
		return true
	}},
}

// outcome of one command in one case.
type outcome struct {
	exit int
	code string
}

func (o outcome) String() string {
	if o.exit == 0 {
		return "ok"
	}
	return fmt.Sprintf("%d %s", o.exit, o.code)
}

// baseline runs every command of the matrix on an untouched copy.
func baselines(t *testing.T, judged, gated string) map[string]Result {
	out := map[string]Result{}
	seen := map[string]bool{}
	for _, r := range rows {
		for _, c := range r.cmds {
			key := r.fixture + "|" + r.original + "|" + r.rel + "|" + c.String()
			_ = key
			k := r.fixture + "|" + c.String()
			if r.original != "" {
				k += "|" + r.rel
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			src := judged
			if r.fixture == "gated" {
				src = gated
			}
			p := copyOf(t, src)
			if r.original != "" {
				writeAt(t, p, r.rel, []byte(r.original))
			}
			out[k] = runCmd(t, p, c)
		}
	}
	return out
}

func runCmd(t *testing.T, p string, c cmd) Result {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		if a == "REPLAY" {
			a = replay
		}
		args[i] = a
	}
	return runIn(t, p, nil, c.name, args...)
}
