package runlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/project"
)

// Fold totals tokens per kind (null when no line reports the kind), cost
// per currency, requests and the answered requests without a price, per
// stage and for the chapter; a retry of a stage adds up.
func TestFoldTotals(t *testing.T) {
	lines := []Line{
		{Step: "chapter:001:draft", Mode: "draft", Attempt: 1, Started: "2026-01-01T00:00:00Z", Ended: "2026-01-01T00:00:10Z", Exit: 1,
			Model: "deepseek-chat", Tokens: json.RawMessage(`{"cache_hit":60,"completion":20,"prompt":100}`),
			Requests: []json.RawMessage{json.RawMessage(`{"outcome":"E_AGENT","cost":null}`), json.RawMessage(`{"outcome":"ok","cost":{"amount":0.0001,"currency":"CNY"}}`)},
			Cost:     Cost{"CNY": 0.0001}},
		{Step: "chapter:001:draft", Mode: "draft", Attempt: 2, Started: "2026-01-01T00:01:00Z", Ended: "2026-01-01T00:01:05Z",
			Model: "deepseek-chat", Tokens: json.RawMessage(`{"cache_hit":100,"completion":30,"prompt":150}`),
			Requests: []json.RawMessage{json.RawMessage(`{"outcome":"ok","cost":{"amount":0.0002,"currency":"CNY"}}`)},
			Cost:     Cost{"CNY": 0.0002}},
		{Step: "chapter:001:judge", Mode: "primary", Attempt: 1, Started: "2026-01-01T00:02:00Z", Ended: "2026-01-01T00:02:01Z",
			Model: "llama3", Tokens: json.RawMessage(`{"completion":7,"prompt":40,"reasoning":3}`),
			Requests: []json.RawMessage{json.RawMessage(`{"outcome":"ok","cost":null}`), json.RawMessage(`{"outcome":"ok"}`)},
			Cost:     Cost{"USD": 0.5}},
		{Step: "chapter:001:refine", Mode: "refine", Attempt: 1, Started: "x", Ended: "y"},
	}
	var lg ChapterLog
	lg.Fold(lines)
	got, _ := json.Marshal(struct {
		Stages   []Stage
		Total    float64
		Requests int
		Tokens   Tokens
		Cost     Cost
		Unpriced int
	}{lg.Stages, lg.TotalDurationSeconds, lg.Requests, lg.Tokens, lg.Cost, lg.UnpricedRequests})
	want := `{"Stages":[` +
		`{"step":"chapter:001:draft","mode":"draft","round":0,"attempts":2,"duration_seconds":15,"exit":0,"model":"deepseek-chat","requests":3,"tokens":{"prompt":250,"completion":50,"cache_hit":160,"reasoning":null},"cost":{"CNY":0.0003}},` +
		`{"step":"chapter:001:judge","mode":"primary","round":0,"attempts":1,"duration_seconds":1,"exit":0,"model":"llama3","requests":2,"tokens":{"prompt":40,"completion":7,"cache_hit":null,"reasoning":3},"cost":{"USD":0.5}},` +
		`{"step":"chapter:001:refine","mode":"refine","round":0,"attempts":1,"duration_seconds":0,"exit":0}],` +
		`"Total":16,"Requests":5,"Tokens":{"prompt":290,"completion":57,"cache_hit":160,"reasoning":3},"Cost":{"CNY":0.0003,"USD":0.5},"Unpriced":2}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// No usage at all: every count null, cost null.
	var none ChapterLog
	none.Fold(lines[3:])
	b, _ := json.Marshal(struct {
		Tokens Tokens
		Cost   Cost
	}{none.Tokens, none.Cost})
	if string(b) != `{"Tokens":{"prompt":null,"completion":null,"cache_hit":null,"reasoning":null},"Cost":null}` {
		t.Fatalf("no usage: %s", b)
	}
}

// A bare-number tokens value (older or third-party executors) counts as
// total; other shapes count nothing.
func TestTokenCountsShapes(t *testing.T) {
	for raw, want := range map[string]string{
		`123`:                      `{"prompt":null,"completion":null,"cache_hit":null,"reasoning":null,"total":123}`,
		`{"prompt":5,"other":9}`:   `{"prompt":5,"completion":null,"cache_hit":null,"reasoning":null}`,
		`"many"`:                   `{"prompt":null,"completion":null,"cache_hit":null,"reasoning":null}`,
		`{"prompt":"x","total":2}`: `{"prompt":null,"completion":null,"cache_hit":null,"reasoning":null,"total":2}`,
	} {
		b, _ := json.Marshal(Line{Tokens: json.RawMessage(raw)}.TokenCounts())
		if string(b) != want {
			t.Errorf("%s → %s, want %s", raw, b, want)
		}
	}
}

// The chapter log reader takes the suite's own logs and plugin-era ones
// (storyline, revisions as a list); usage totals come back as written.
func TestParseChapterLog(t *testing.T) {
	lg, err := ParseChapterLog([]byte(`{"storyline":"a","word_count":12,"revisions":[1,2],"requests":3,"tokens":{"prompt":10,"completion":null},"cost":{"CNY":0.25,"":1,"USD":"x"},"unpriced_requests":1}`), "l.json", 4)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(lg)
	want := `{"chapter":4,"storyline_id":"a","word_count":12,"gate_decision":"","force_passed":false,"polished":false,"revisions":2,"overall_final":null,"judges":null,"stages":null,"total_duration_seconds":0,"requests":3,"tokens":{"prompt":10,"completion":null,"cache_hit":null,"reasoning":null},"cost":{"CNY":0.25},"unpriced_requests":1,"committed_at":""}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if _, err := ParseChapterLog([]byte(`[1]`), "l.json", 4); err == nil {
		t.Fatal("an array is not a chapter log")
	}
}

// Append records an attempt once (a resumed finish appends nothing) and
// Read skips a line that is not a run record, with a warning.
func TestAppendRead(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	os.MkdirAll(filepath.Join(dir, "staging/logs"), 0o755)
	l := Line{Step: "chapter:002:draft", Mode: "draft", Attempt: 1, Exit: 0}
	for i := 0; i < 2; i++ {
		if err := Append(root, 2, l); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(filepath.Join(dir, "staging/logs/chapter-002-run.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n")
	f.Close()
	l.Attempt = 2
	if err := Append(root, 2, l); err != nil {
		t.Fatal(err)
	}
	lines, warns := Read(root, 2)
	if len(lines) != 2 || lines[1].Attempt != 2 || len(warns) != 1 || warns[0] != "staging/logs/chapter-002-run.jsonl: line 2 skipped (not a run record)" {
		t.Fatalf("%+v %v", lines, warns)
	}
}

// AddUsage is the one fold of an executor's usage records into a run
// line (chapter stages and the steps run log): the last model, only the
// per-request records kept as requests, tokens summed per key (a bare
// number as total), cost per currency; junk lines are skipped.
func TestAddUsage(t *testing.T) {
	data := `{"model":"deepseek-chat","request":"ask","outcome":"E_AGENT","prompt_tokens":100,"cost":{"amount":0.0002,"currency":"CNY"},"tokens":{"prompt":100}}
not json
{"model":"deepseek-chat","request":"reask","outcome":"ok","cost":{"amount":0.0003,"currency":"CNY"},"tokens":{"completion":20,"prompt":150}}

{"model":"replay","tokens":7}
{"tokens":{"cache_hit":5}}
`
	var l Line
	l.AddUsage([]byte(data))
	got, _ := json.Marshal(struct {
		Model    string
		Tokens   json.RawMessage
		Requests int
		Cost     Cost
	}{l.Model, l.Tokens, len(l.Requests), l.Cost})
	want := `{"Model":"replay","Tokens":{"cache_hit":5,"completion":20,"prompt":250,"total":7},"Requests":2,"Cost":{"CNY":0.0005}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if string(l.Requests[1]) != `{"model":"deepseek-chat","request":"reask","outcome":"ok","cost":{"amount":0.0003,"currency":"CNY"},"tokens":{"completion":20,"prompt":150}}` {
		t.Fatalf("request kept as written: %s", l.Requests[1])
	}
	// No records: the line keeps no tokens (null totals, never 0).
	var none Line
	none.AddUsage(nil)
	if none.Tokens != nil || none.Cost != nil || none.Requests != nil {
		t.Fatalf("%+v", none)
	}
}

// The steps run log keeps every attempt, even two with the same step,
// mode and attempt number (a volume's contract batches); Fold groups them
// into one row per step and mode.
func TestAppendReadSteps(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	for _, l := range []Line{
		{Step: "volume:02:contracts", Mode: "contracts", Attempt: 1, Cost: Cost{"CNY": 0.5}, Run: "a"},
		{Step: "volume:02:contracts", Mode: "contracts", Attempt: 1, Cost: Cost{"CNY": 0.25}, Run: "a"},
		{Step: "audit:005", Mode: "audit", Attempt: 1, Exit: 1, Error: "interrupted", Run: "b"},
	} {
		if err := AppendStep(root, l); err != nil {
			t.Fatal(err)
		}
	}
	lines, warns := ReadSteps(root)
	if len(lines) != 3 || len(warns) != 0 || lines[2].Error != "interrupted" || lines[1].Run != "a" {
		t.Fatalf("%+v %v", lines, warns)
	}
	f := Fold(lines)
	if len(f.Stages) != 2 || f.Stages[0].Attempts != 2 || f.Stages[0].Cost["CNY"] != 0.75 || f.Cost["CNY"] != 0.75 || f.Stages[1].Exit != 1 {
		t.Fatalf("%+v", f)
	}
}
