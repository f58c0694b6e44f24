package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

func load(t *testing.T, file string, env map[string]string) (Settings, error) {
	t.Helper()
	dir := t.TempDir()
	if file != "" {
		os.WriteFile(filepath.Join(dir, "settings.json"), []byte(file), 0o644)
	}
	root, _ := project.New(dir)
	return Load(root, func(k string) string { return env[k] })
}

func TestDefaultsAndOverrides(t *testing.T) {
	s, err := load(t, "", nil)
	if err != nil || s != Defaults() {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = load(t, `{"logic_review_policy":"blocking","logic_review_min_score":80,"max_revisions":3,"gate_thresholds":{"pass":4.5}}`,
		map[string]string{"NOVEL_LOGIC_REVIEW_MIN_SCORE": "60"})
	if err != nil || s.LogicReviewPolicy != PolicyBlocking || s.LogicReviewMinScore != 60 || s.MaxRevisions != 3 || s.GateThresholds.Pass != 4.5 {
		t.Fatalf("%+v %v", s, err)
	}
	if s, err = load(t, `{"continuity_audit":"agent"}`, nil); err != nil || s.ContinuityAudit != AuditAgent {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = load(t, `{"logic_review_policy":"blocking"}`, map[string]string{"NOVEL_LOGIC_REVIEW_POLICY": "off"})
	if err != nil || s.LogicReviewPolicy != PolicyOff {
		t.Fatalf("%+v %v", s, err)
	}
}

// lock_stale_minutes is bounded by a week: a huge value once overflowed the
// age comparison and made every lock stale at once (field trial C4).
func TestLockStaleMinutesRange(t *testing.T) {
	for _, n := range []int{1, 30, 10080} {
		s, err := load(t, fmt.Sprintf(`{"lock_stale_minutes":%d}`, n), nil)
		if err != nil || s.LockStaleMinutes != n {
			t.Errorf("%d: %+v %v", n, s, err)
		}
	}
	_, err := load(t, `{"lock_stale_minutes":525600000}`, nil)
	e := errs.As(err)
	if e == nil || e.Code != errs.Config || e.Details["source"] != "settings.json" || e.Details["key"] != "lock_stale_minutes" ||
		e.En != "invalid setting lock_stale_minutes (from settings.json): must be an integer 1..10080 (minutes, at most a week)" {
		t.Fatalf("got %#v", e)
	}
}

func TestInvalid(t *testing.T) {
	cases := []struct {
		file string
		env  map[string]string
		key  string
	}{
		{`{"logic_review_policy":"BLOCKING"}`, nil, "logic_review_policy"},
		{`{"logic_review_min_score":80.5}`, nil, "logic_review_min_score"},
		{`{"logic_review_min_score":150}`, nil, "logic_review_min_score"},
		{`{"logic_review_min_score":"75"}`, nil, "logic_review_min_score"},
		{`{"gate_thresholds":{"pass":3.0,"polish":3.5}}`, nil, "gate_thresholds"},
		{`{"gate_thresholds":{"revise":"x"}}`, nil, "gate_thresholds.revise"},
		{`{"max_revisions":-1}`, nil, "max_revisions"},
		{`{"lock_stale_minutes":0}`, nil, "lock_stale_minutes"},
		{`{"lock_stale_minutes":10081}`, nil, "lock_stale_minutes"},
		{`{"lock_stale_minutes":525600000}`, nil, "lock_stale_minutes"},
		{`{"lock_stale_minutes":1e20}`, nil, "lock_stale_minutes"},
		{`{"language":"fr"}`, nil, "language"},
		{`{"continuity_audit":"llm"}`, nil, "continuity_audit"},
		{`{"continuity_audit":true}`, nil, "continuity_audit"},
		{`{"platform":"douyin"}`, nil, "platform"},
		{`{"platform":"Fanqie"}`, nil, "platform"},
		{`{"words_per_chapter":499}`, nil, "words_per_chapter"},
		{`{"words_per_chapter":3000.5}`, nil, "words_per_chapter"},
		{`{"words_per_chapter":"3000"}`, nil, "words_per_chapter"},
		{`{"quote_style":"「」"}`, nil, "quote_style"},
		{``, map[string]string{"NOVEL_LOGIC_REVIEW_POLICY": "BLOCKING"}, "NOVEL_LOGIC_REVIEW_POLICY"},
		{``, map[string]string{"NOVEL_LOGIC_REVIEW_MIN_SCORE": "80.5"}, "NOVEL_LOGIC_REVIEW_MIN_SCORE"},
		{``, map[string]string{"NOVEL_LOGIC_REVIEW_MIN_SCORE": "150"}, "NOVEL_LOGIC_REVIEW_MIN_SCORE"},
	}
	for _, c := range cases {
		_, err := load(t, c.file, c.env)
		e := errs.As(err)
		if e == nil || e.Code != errs.Config || e.Details["key"] != c.key {
			t.Errorf("%s %v: got %v", c.file, c.env, err)
		} else if en := e.Message("en"); !isASCII(en) {
			// A project in English gets an English sentence throughout.
			t.Errorf("%s %v: English message has non-English text: %s", c.file, c.env, en)
		}
	}
	if _, err := load(t, `{bad`, nil); !errs.Is(err, errs.InvalidJSON) {
		t.Errorf("malformed: %v", err)
	}
	if _, err := load(t, `[]`, nil); !errs.Is(err, errs.Schema) && !errs.Is(err, errs.Config) {
		t.Errorf("array: %v", err)
	}
}

func FuzzSettings(f *testing.F) {
	f.Add(`{"logic_review_policy":"blocking","gate_thresholds":{"pass":4}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, file string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "settings.json"), []byte(file), 0o644)
		root, _ := project.New(dir)
		s, err := Load(root, func(string) string { return "" })
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		th := s.GateThresholds
		if !(th.Pass > th.Polish && th.Polish > th.Revise && th.Revise > th.Review) {
			t.Fatalf("accepted non-descending thresholds %+v", th)
		}
	})
}

func isASCII(s string) bool {
	for _, r := range s {
		if r > 0x7e && r != '≥' && r != '…' {
			return false
		}
	}
	return true
}

func TestJudgeWeights(t *testing.T) {
	s, err := load(t, "", nil)
	if err != nil || s.Weights()["plot_logic"] != 0.16 || s.Weights()["tonal_variance"] != 0.10 || len(s.Weights()) != 9 {
		t.Fatalf("defaults %v %v", s.Weights(), err)
	}
	// Named weights replace the defaults; the rest keep theirs.
	s, err = load(t, `{"judge":{"weights":{"pacing":0.3,"immersion":0}}}`, nil)
	w := s.Weights()
	if err != nil || w["pacing"] != 0.3 || w["immersion"] != 0 || w["character"] != 0.16 {
		t.Fatalf("%v %v", w, err)
	}
	if s, err = load(t, `{"judge":{}}`, nil); err != nil || s != Defaults() {
		t.Fatalf("empty judge: %+v %v", s, err)
	}
	zero := `{"judge":{"weights":{"plot_logic":0,"character":0,"immersion":0,"foreshadowing":0,"pacing":0,"style_naturalness":0,"emotional_impact":0,"storyline_coherence":0,"tonal_variance":0}}}`
	for file, key := range map[string]string{
		`{"judge":[]}`:                               "judge",
		`{"judge":{"weights":[0.1]}}`:                "judge.weights",
		`{"judge":{"weights":{"pacing":1.5}}}`:       "judge.weights.pacing",
		`{"judge":{"weights":{"pacing":-0.1}}}`:      "judge.weights.pacing",
		`{"judge":{"weights":{"pacing":"0.1"}}}`:     "judge.weights.pacing",
		`{"judge":{"weights":{"prose":0.1,"zz":1}}}`: "judge.weights.prose",
		zero: "judge.weights",
	} {
		_, err := load(t, file, nil)
		if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != key {
			t.Errorf("%s: %v, want E_CONFIG naming %s", file, err, key)
		}
	}
}

func TestLLMDefaultsAndEnv(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	l, err := LoadLLM(root, func(string) string { return "" })
	if err != nil || !l.Stream || l.IdleTimeoutS != 120 || l.TimeoutS != 900 || l.JSONMode != JSONAuto {
		t.Fatalf("%+v %v", l, err)
	}
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"llm":{"stream":false,"timeout_s":60,
		"prices":{"deepseek-chat":{"input_per_mtok":2,"output_per_mtok":8,"currency":"CNY"}}}}`), 0o644)
	env := map[string]string{"NOVEL_LLM_STREAM": "true", "NOVEL_LLM_TIMEOUT": "30", "NOVEL_LLM_JSON_MODE": "off"}
	l, err = LoadLLM(root, func(k string) string { return env[k] })
	if err != nil || !l.Stream || l.TimeoutS != 30 || l.JSONMode != JSONOff || l.Prices["deepseek-chat"].CacheHitInputPerMtok != 2 {
		t.Fatalf("%+v %v", l, err)
	}
	env = map[string]string{"NOVEL_LLM_IDLE_TIMEOUT": "0"}
	_, err = LoadLLM(root, func(k string) string { return env[k] })
	if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != "NOVEL_LLM_IDLE_TIMEOUT" {
		t.Fatal(err)
	}
}

// llm.provider and llm.roles.{role}.thinking (SPEC §26): known values
// only; NOVEL_LLM_PROVIDER overrides the file.
func TestLLMProviderAndThinking(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"llm":{"provider":"glm","roles":{"summarizer":{"thinking":"off"}}}}`), 0o644)
	l, err := LoadLLM(root, func(string) string { return "" })
	if err != nil || l.Provider != "glm" || l.Roles["summarizer"].Thinking != "off" {
		t.Fatalf("%+v %v", l, err)
	}
	l, err = LoadLLM(root, func(k string) string { return map[string]string{"NOVEL_LLM_PROVIDER": "kimi"}[k] })
	if err != nil || l.Provider != "kimi" {
		t.Fatalf("%+v %v", l, err)
	}
	for file, key := range map[string]string{
		`{"llm":{"provider":"zhipu"}}`:                             "llm.provider",
		`{"llm":{"provider":1}}`:                                   "llm.provider",
		`{"llm":{"roles":{"summarizer":{"thinking":true}}}}`:       "llm.roles.summarizer.thinking",
		`{"llm":{"roles":{"summarizer":{"thinking":"disabled"}}}}`: "llm.roles.summarizer.thinking",
	} {
		os.WriteFile(filepath.Join(dir, "settings.json"), []byte(file), 0o644)
		_, err := LoadLLM(root, func(string) string { return "" })
		if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != key {
			t.Errorf("%s: %v, want E_CONFIG naming %s", file, err, key)
		}
	}
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{}`), 0o644)
	_, err = LoadLLM(root, func(k string) string { return map[string]string{"NOVEL_LLM_PROVIDER": "x"}[k] })
	if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != "NOVEL_LLM_PROVIDER" {
		t.Fatal(err)
	}
}

func TestLintSettings(t *testing.T) {
	s, err := load(t, "", nil)
	if err != nil || s.Platform != "" || s.WordsPerChapter != 0 || s.QuoteStyle != QuoteCorner {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = load(t, `{"platform":"jinjiang","words_per_chapter":4000,"quote_style":"curly"}`, nil)
	if err != nil || s.Platform != "jinjiang" || s.WordsPerChapter != 4000 || s.QuoteStyle != QuoteCurly {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestContextBudgets(t *testing.T) {
	s := Defaults()
	if s.Budget("draft") != 24000 || s.Budget("summarize") != 16000 || s.Budget("setup") != 16000 || s.Budget("nope") != 0 {
		t.Fatalf("defaults: %d %d %d %d", s.Budget("draft"), s.Budget("summarize"), s.Budget("setup"), s.Budget("nope"))
	}
	if err := s.applyContext(map[string]any{"context": map[string]any{"budget_tokens": map[string]any{"judge": float64(500)}}}, "settings.json"); err != nil {
		t.Fatal(err)
	}
	if s.Budget("judge") != 500 || s.Budget("draft") != 24000 {
		t.Errorf("override: judge %d draft %d", s.Budget("judge"), s.Budget("draft"))
	}
	for _, bad := range []any{"x", map[string]any{"budget_tokens": 3}, map[string]any{"budget_tokens": map[string]any{"draft": 1.5}},
		map[string]any{"budget_tokens": map[string]any{"draft": float64(0)}}, map[string]any{"budget_tokens": map[string]any{"writer": float64(9)}}} {
		if err := s.applyContext(map[string]any{"context": bad}, "settings.json"); err == nil {
			t.Errorf("context %v: want E_CONFIG", bad)
		}
	}
}

// SPEC §25: without continuity_audit in settings.json a model executor
// (openai, command) gets the agent review and replay the deterministic
// one; a value the author wrote holds for every executor.
func TestAuditFor(t *testing.T) {
	cases := []struct {
		file, backend, want string
	}{
		{``, "openai", AuditAgent},
		{``, "command", AuditAgent},
		// the agent route: the caller of novel next is the model (SPEC §25, §27)
		{``, "agent", AuditAgent},
		{``, "mcp", AuditAgent},
		{``, "replay", AuditDeterministic},
		{`{"continuity_audit":"deterministic"}`, "mcp", AuditDeterministic},
		{``, "", AuditDeterministic},
		{`{"continuity_audit":"deterministic"}`, "openai", AuditDeterministic},
		{`{"continuity_audit":"agent"}`, "replay", AuditAgent},
	}
	for _, c := range cases {
		s, err := load(t, c.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AuditFor(c.backend); got != c.want {
			t.Errorf("settings %q, backend %q: %s, want %s", c.file, c.backend, got, c.want)
		}
	}
}

// context.recall_tokens bounds the recall of draft and judge packets
// (SPEC §25): 2,500 by default, an integer 1..1,000,000 when set.
func TestContextRecallTokens(t *testing.T) {
	s := Defaults()
	if s.Recall() != 2500 {
		t.Fatalf("default recall tokens %d", s.Recall())
	}
	if err := s.applyContext(map[string]any{"context": map[string]any{"recall_tokens": float64(800)}}, "settings.json"); err != nil || s.Recall() != 800 {
		t.Fatalf("override: %d %v", s.Recall(), err)
	}
	for _, bad := range []any{float64(0), 1.5, "x", float64(2000000)} {
		err := s.applyContext(map[string]any{"context": map[string]any{"recall_tokens": bad}}, "settings.json")
		if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != "context.recall_tokens" {
			t.Errorf("recall_tokens %v: %v", bad, err)
		}
	}
}
