package pipeline

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/clock"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stepid"
)

func TestPositionOrdersARound(t *testing.T) {
	order := []struct{ stage, role string }{{stepid.Draft, ""}, {stepid.Summarize, ""}, {stepid.Refine, ""},
		{stepid.Judge, ""}, {stepid.Judge, stepid.RoleSecondary}, {stepid.LogicReview, ""}, {stepid.Gate, ""},
		{stepid.Polish, ""}, {stepid.Commit, ""}}
	for i := 1; i < len(order); i++ {
		if position(order[i-1].stage, order[i-1].role) >= position(order[i].stage, order[i].role) {
			t.Errorf("%v should come before %v", order[i-1], order[i])
		}
	}
}

func TestParseErrorLine(t *testing.T) {
	body, last := splitLastLine([]byte("progress\n{\"error\":{\"code\":\"E_GATE_PAUSE\",\"message\":\"m\",\"hint\":\"h\",\"details\":{\"chapter\":1}}}\n"))
	if string(body) != "progress\n" {
		t.Fatalf("body %q", body)
	}
	e := errs.ParseLine(last)
	if e == nil || e.Code != "E_GATE_PAUSE" || e.Message("en") != "m" || e.HintText("zh") != "h" || e.Details["chapter"] != float64(1) {
		t.Fatalf("parsed %+v", e)
	}
	for _, bad := range []string{"", "not json", `{"error":{}}`, `{"x":1}`} {
		if errs.ParseLine([]byte(bad)) != nil {
			t.Errorf("%q parsed as an error line", bad)
		}
	}
}

func TestSummary(t *testing.T) {
	f := filepath.Join(t.TempDir(), "sum")
	data := `{"chapter":1,"word_count":3120,"overall_final":4.2,"gate_decision":"pass"}
garbage
{"chapter":2,"word_count":2980,"overall_final":3.75,"gate_decision":"accepted"}
{"chapter":3,"word_count":10,"overall_final":null,"gate_decision":"pass"}
`
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	line, res, err := Summary(f)
	if err != nil {
		t.Fatal(err)
	}
	want := "Ch 1: 3120字 4.2 pass | Ch 2: 2980字 3.8 accepted | Ch 3: 10字 - pass"
	if line != want || len(res) != 3 {
		t.Fatalf("got %q (%d results), want %q", line, len(res), want)
	}
	if line, _, err := Summary(filepath.Join(t.TempDir(), "missing")); err != nil || line != "" {
		t.Fatalf("missing file: %q %v", line, err)
	}
}

func TestStampNames(t *testing.T) {
	if got := layout.Stamp(48, stepid.Judge, 1); got != "staging/.stamps/chapter-048-judge-r1" {
		t.Fatal(got)
	}
	if got := layout.Stamp(1200, stepid.LogicReview, 0); got != "staging/.stamps/chapter-1200-logic-review-r0" {
		t.Fatal(got)
	}
}

func TestExecutorFailure(t *testing.T) {
	e := executorFailure(3, []byte("starting\n{\"error\":{\"code\":\"E_BUDGET\",\"message\":\"超出预算\",\"hint\":\"提高预算\",\"details\":{\"server_message\":\"quota\"}}}\n"))
	if e.Code != "E_BUDGET" || e.Message("zh") != "超出预算" || e.HintText("zh") != "提高预算" || e.Details["server_message"] != "quota" || e.Details["exit"] != 3 {
		t.Fatalf("%+v", e)
	}
	e = executorFailure(3, []byte("executor: model unavailable\n"))
	if e.Code != "E_AGENT" || e.Message("zh") != "执行器退出码 3：executor: model unavailable" || e.Details["stderr"] != "executor: model unavailable" {
		t.Fatalf("%+v", e)
	}
	e = executorFailure(137, nil)
	if e.Message("en") != "the executor exited with status 137" {
		t.Fatalf("%+v", e)
	}
}

// The run line of an attempt keeps every request's usage line, sums the
// known token counts and the cost per currency (SPEC §18).
func TestUsageFoldsRequests(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	lines := `{"model":"deepseek-chat","request":"ask","outcome":"E_AGENT","status":429,"prompt_tokens":null,"completion_tokens":null,"cache_hit_tokens":null,"reasoning_tokens":null,"cost":null}
{"model":"deepseek-chat","request":"ask","outcome":"ok","prompt_tokens":100,"completion_tokens":20,"cache_hit_tokens":60,"reasoning_tokens":null,"cost":{"amount":0.0001,"currency":"CNY"},"tokens":{"cache_hit":60,"completion":20,"prompt":100}}
{"model":"deepseek-chat","request":"reask","outcome":"ok","prompt_tokens":150,"completion_tokens":30,"cache_hit_tokens":100,"reasoning_tokens":null,"cost":{"amount":0.0002,"currency":"CNY"},"tokens":{"cache_hit":100,"completion":30,"prompt":150}}
`
	os.MkdirAll(filepath.Join(dir, "staging/logs"), 0o755)
	os.WriteFile(filepath.Join(dir, layout.RunUsage(1)), []byte(lines), 0o644)
	e := &Env{Root: root}
	var line runlog.Line
	e.usage(1, &line)
	if line.Model != "deepseek-chat" || string(line.Tokens) != `{"cache_hit":160,"completion":50,"prompt":250}` ||
		len(line.Requests) != 3 || line.Cost["CNY"] != 0.0003 {
		t.Fatalf("%+v %s", line, line.Tokens)
	}
}

// BUDGET is a positive decimal amount; anything else is E_USAGE.
func TestParseBudget(t *testing.T) {
	for in, ok := range map[string]bool{"12.5": true, "3": true, "0.01": true, "0": false, "0.0": false, "-1": false,
		"1e3": false, ".5": false, "12,5": false, "abc": false, "": false, "NaN": false, "Inf": false} {
		b, err := ParseBudget(in, "", -3)
		if ok != (err == nil) {
			t.Errorf("%q: err %v", in, err)
		}
		if err != nil && !errs.Is(err, errs.Usage) {
			t.Errorf("%q: %v is not E_USAGE", in, err)
		}
		if ok && b.Since != 0 {
			t.Errorf("%q: since %d", in, b.Since)
		}
	}
}

// An attempt of a non-chapter step that a killed run left in flight is
// recorded by the next attempt, as interrupted, with its executor's usage;
// a marker whose line was already written is only removed. The line's run
// id is a digest of the lock token, never the token.
func TestRecoverStep(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	env := map[string]string{"NOVEL_NOW": "2026-01-02T03:04:05Z", "NOVEL_LOCK_TOKEN": "secret-token"}
	clk, _ := clock.FromEnv(func(k string) string { return env[k] })
	e := &Env{Root: root, Getenv: func(k string) string { return env[k] }, Clock: clk, Stderr: io.Discard}
	a, err := e.beginStep("volume:02:plan", "plan", 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.line.Run == "" || strings.Contains(a.line.Run, "secret") || len(a.line.Run) != 12 {
		t.Fatalf("run id %q", a.line.Run)
	}
	os.WriteFile(filepath.Join(dir, layout.StepsRunUsage), []byte(`{"model":"m","request":"ask","outcome":"ok","cost":{"amount":0.5,"currency":"CNY"},"tokens":{"prompt":7}}`+"\n"), 0o644)
	// killed here; the next attempt (of another step) records it first
	b, err := e.beginStep("volume:02:contracts", "contracts", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.end(nil); err != nil {
		t.Fatal(err)
	}
	lines, _ := runlog.ReadSteps(root)
	if len(lines) != 2 || lines[0].Step != "volume:02:plan" || lines[0].Error != "interrupted" || lines[0].Exit != 1 ||
		lines[0].Cost["CNY"] != 0.5 || len(lines[0].Requests) != 1 || lines[1].Step != "volume:02:contracts" || lines[1].Error != "" || lines[1].Cost != nil {
		t.Fatalf("%+v", lines)
	}
	// a marker whose line is the log's last (killed between the two writes)
	if err := root.WriteJSON(layout.StepsRunPending, lines[1]); err != nil {
		t.Fatal(err)
	}
	if err := e.recoverStep(); err != nil {
		t.Fatal(err)
	}
	if again, _ := runlog.ReadSteps(root); len(again) != 2 || root.Exists(layout.StepsRunPending) {
		t.Fatalf("%+v", again)
	}
}
