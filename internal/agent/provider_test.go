package agent

import (
	"regexp"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/llmfake"
)

// deepseek-chat refuses max_tokens above 8192 (HTTP 400). A summarizer
// answer cut at 8192 used to be re-asked with 16384 and failed every
// time; now the bundle is asked in two parts within the limit and joined.
func TestDeepSeekCutBundleAskedInTwoParts(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: `{"summary":"林枫入宗。","delta":{"ops":[`, Finish: "length"},
		{Content: `{"summary":"林枫入宗。","memory":"记忆。"}`},
		{Content: `{"delta":{"ops":[]},"crossref":{}}`}}},
		map[string]string{"state/current-state.json": `{"state_version":3}`}, map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"})
	if _, err := c.run(t, summarizerPkt); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, u := range c.usages {
		kinds = append(kinds, u.Request)
	}
	if strings.Join(kinds, " ") != "ask split split" {
		t.Fatalf("%v", kinds)
	}
	b := c.bodies(t)
	for _, body := range b {
		if body["max_tokens"] != 8192.0 {
			t.Fatalf("max_tokens %v", body["max_tokens"])
		}
	}
	last := func(i int) string {
		m := b[i]["messages"].([]any)
		return m[len(m)-1].(map[string]any)["content"].(string)
	}
	// one conversation: the second part sees the first part's answer
	if !strings.HasSuffix(last(1), partAsk([]string{"summary", "memory"}, 0, 0)) ||
		last(2) != strings.TrimSpace(partAsk([]string{"delta", "crossref", "unknown_entities"}, 0, 0)) ||
		b[2]["messages"].([]any)[2].(map[string]any)["content"] != `{"summary":"林枫入宗。","memory":"记忆。"}` {
		t.Fatal("the parts do not say what to answer")
	}
	if got := readFile(t, c.root, "staging/summaries/chapter-001-summary.md"); got != "林枫入宗。\n" {
		t.Fatalf("%q", got)
	}
	if got := readFile(t, c.root, "staging/state/chapter-001-delta.json"); !strings.Contains(got, `"base_state_version": 3`) {
		t.Fatal(got)
	}
}

// A volume plan cut at the limit: the plan without contracts, then the
// contracts of each half of the volume, joined into one plan.
func TestDeepSeekCutPlanAskedInParts(t *testing.T) {
	pkt := `{"version":1,"step":"volume:01:plan","chapter":null,"volume":1,"revision_round":0,
	"agent":{"name":"plot-architect","kind":"agent","mode":"plan"},
	"manifest":{"inline":{"volume":1,"plan_start_chapter":1,"target_chapters":4,"contracts_in_batches":false},"paths":{}},
	"expected_outputs":[{"path":"staging/volumes/vol-01/outline.md","required":true,"via":"file"},
	{"path":"staging/volumes/vol-01/storyline-schedule.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-01/foreshadowing.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-01/chapter-contracts/chapter-NNN.json","required":false,"via":"file"}]}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: `{"outline":"# 第一卷`, Finish: "length"},
		{Content: `{"outline":"# 第一卷\n","storyline_schedule":{},"foreshadowing":{"foreshadowing":[]}}`},
		{Content: `{"chapter_contracts":[{"chapter":1},{"chapter":2}]}`},
		{Content: `{"chapter_contracts":[{"chapter":3},{"chapter":4}]}`}}},
		nil, map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"})
	out, err := c.run(t, pkt)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Written) != 7 {
		t.Fatal(out.Written)
	}
	b := c.bodies(t)
	m := b[3]["messages"].([]any)
	if len(b) != 4 || !strings.Contains(m[len(m)-1].(map[string]any)["content"].(string), "字段：chapter_contracts（第 3–4 章）") {
		t.Fatalf("%d requests", len(b))
	}
}

// Below the limit the re-ask raises max_tokens only up to it; cut there
// too, the answer is split.
func TestRaisedToLimitThenSplit(t *testing.T) {
	settings := `{"llm":{"roles":{"summarizer":{"max_tokens":6000}}}}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: `{"summary":"林`, Finish: "length"}, {Content: `{"summary":"林枫`, Finish: "length"},
		{Content: `{"summary":"林枫入宗。","memory":"记忆。"}`}, {Content: `{"delta":{"ops":[]},"crossref":{}}`}}},
		map[string]string{"settings.json": settings, "state/current-state.json": `{"state_version":3}`}, map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"})
	if _, err := c.run(t, summarizerPkt); err != nil {
		t.Fatal(err)
	}
	b := c.bodies(t)
	if len(b) != 4 || b[0]["max_tokens"] != 6000.0 || b[1]["max_tokens"] != 8192.0 || b[2]["max_tokens"] != 8192.0 || c.usages[1].Request != "retry_max_tokens" || c.usages[2].Request != "split" {
		t.Fatalf("%d requests", len(b))
	}
}

// A role max_tokens above the model's limit is lowered to it, with a note.
func TestMaxTokensCappedAtModelLimit(t *testing.T) {
	settings := `{"llm":{"roles":{"quality-judge":{"max_tokens":20000}}}}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{{Content: goodEval}}},
		map[string]string{"settings.json": settings}, map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	if b := c.bodies(t); b[0]["max_tokens"] != 8192.0 || len(c.warnings) != 1 ||
		c.warnings[0] != "the output limit of deepseek-chat is 8192; max_tokens lowered from 20000 to 8192" {
		t.Fatalf("%v %v", b[0]["max_tokens"], c.warnings)
	}
}

// A contracts batch cut at the limit is asked as two half batches.
func TestContractsBatchHalvedAtLimit(t *testing.T) {
	pkt := `{"version":1,"step":"volume:02:contracts","chapter":null,"volume":2,"revision_round":0,
	"agent":{"name":"plot-architect","kind":"agent","mode":"contracts"},
	"manifest":{"inline":{"volume":2,"batch":[7,10]},"paths":{}},
	"expected_outputs":[{"path":"staging/volumes/vol-02/chapter-contracts/chapter-007.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-02/chapter-contracts/chapter-008.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-02/chapter-contracts/chapter-009.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-02/chapter-contracts/chapter-010.json","required":true,"via":"file"}]}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: `{"chapter_contracts":[{"chapter":7},`, Finish: "length"},
		{Content: `{"chapter_contracts":[{"chapter":7,"storyline_id":"a"},{"chapter":8,"storyline_id":"a"}]}`},
		{Content: `{"chapter_contracts":[{"chapter":9,"storyline_id":"a"},{"chapter":10,"storyline_id":"a"}]}`}}},
		nil, map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"})
	out, err := c.run(t, pkt)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Written) != 4 {
		t.Fatal(out.Written)
	}
	b := c.bodies(t)
	user := func(i int) string { return b[i]["messages"].([]any)[1].(map[string]any)["content"].(string) }
	batch := func(s string) string { return regexp.MustCompile(`"batch": \[\s*(\d+),\s*(\d+)\s*\]`).FindString(s) }
	if len(b) != 3 || !strings.Contains(batch(user(0)), "7,") || !strings.Contains(batch(user(1)), "8") || strings.Contains(batch(user(1)), "10") ||
		!strings.Contains(batch(user(2)), "9,") || b[1]["max_tokens"] != 8192.0 {
		t.Fatalf("%d requests %s %s", len(b), user(1), user(2))
	}
}

// GLM's finish reasons: sensitive is the content filter (no cut chapter
// staged), network_error is transient (asked again).
func TestGLMFinishReasons(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderGLM, Responses: []llmfake.Response{
		{Content: "# 第1章 灯\n\n林枫推开", Finish: "sensitive"}}}, nil, map[string]string{"NOVEL_LLM_MODEL": "glm-4.6"})
	_, err := c.run(t, writerPkt)
	if e := errs.As(err); e == nil || e.Details["content_filter"] != true || !strings.Contains(e.HintZh, "缓和") {
		t.Fatalf("%v", err)
	}
	c = newClient(t, llmfake.Script{Provider: llmfake.ProviderGLM, Responses: []llmfake.Response{
		{Content: "# 第1章 灯\n\n林枫推开", Finish: "network_error"}, {Content: "# 第1章 灯\n\n林枫推门。\n"}}},
		nil, map[string]string{"NOVEL_LLM_MODEL": "glm-4.6"})
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != "# 第1章 灯\n\n林枫推门。\n" || c.usages[0].Outcome != errs.Agent {
		t.Fatalf("%q %+v", got, c.usages)
	}
}

// The refine step alike: a GLM refiner stopped by "sensitive" writes
// nothing, so the whole chapter stays (before, the cut text replaced it).
func TestGLMSensitiveRefineKeepsChapter(t *testing.T) {
	full := "# 第1章 灯\n\n林枫推开灯塔的门，海风灌了进来。\n"
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderGLM, Responses: []llmfake.Response{{Content: "# 第1章 灯\n\n林枫推开", Finish: "sensitive"}}},
		map[string]string{"staging/chapters/chapter-001.md": full}, map[string]string{"NOVEL_LLM_MODEL": "glm-4.6"})
	_, err := c.run(t, `{"version":1,"step":"chapter:001:refine","chapter":1,"volume":1,"revision_round":0,
	"agent":{"name":"style-refiner","kind":"agent","mode":"refine"},"manifest":{"inline":{},"paths":{"chapter_draft":"staging/chapters/chapter-001.md"}},
	"expected_outputs":[{"path":"staging/chapters/chapter-001.md","required":true,"via":"file"}]}`)
	if e := errs.As(err); e == nil || e.Details["content_filter"] != true {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != full {
		t.Fatalf("%q", got)
	}
}

// A stream that ends with [DONE] and no finish_reason, or null, is cut:
// the chapter is continued, never taken as finished; an unknown reason
// likewise.
func TestMissingFinishReasonIsTruncation(t *testing.T) {
	for _, fin := range []string{"omit", "null", "eos_token_unknown"} {
		c := newClient(t, llmfake.Script{Responses: []llmfake.Response{
			{Content: "# 第1章 灯\n\n林枫推开", Finish: fin}, {Content: "灯塔的门。\n"}}}, nil, map[string]string{"NOVEL_LLM_STREAM": "true"})
		if _, err := c.run(t, writerPkt); err != nil {
			t.Fatal(fin, err)
		}
		if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != "# 第1章 灯\n\n林枫推开灯塔的门。\n" || c.usages[1].Request != "continuation" {
			t.Fatalf("%s: %q", fin, got)
		}
	}
	cut := llmfake.Response{Content: "# 第1章 灯\n\n林枫", Finish: "null"}
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{cut, cut, cut}}, nil, nil)
	_, err := c.run(t, writerPkt)
	if e := errs.As(err); e == nil || e.Details["truncated"] != true || e.Details["finish_reason"] != "null" {
		t.Fatalf("%v", err)
	}
}

// DeepSeek "Content Exists Risk" and GLM 1301 are the content filter:
// one request, the soften-or-switch hint, not the API-key hint.
func TestRefusalShapes(t *testing.T) {
	for prov, shape := range map[string]string{llmfake.ProviderDeepSeek: llmfake.RefuseDeepSeek, llmfake.ProviderGLM: llmfake.RefuseGLM} {
		c := newClient(t, llmfake.Script{Provider: prov, Responses: []llmfake.Response{{Refuse: shape}, {Content: "# 第1章 灯\n\n林枫推门。\n"}}}, nil, nil)
		_, err := c.run(t, writerPkt)
		e := errs.As(err)
		if e == nil || e.Details["content_filter"] != true || !strings.Contains(e.HintEn, "soften") || len(c.bodies(t)) != 1 {
			t.Fatalf("%s: %v", prov, err)
		}
	}
}

// GLM answers an empty account with HTTP 429 and code 1113 (dify#5850):
// not a rate limit to wait out (before: retried, then exit 75 and the
// pipeline waited), but a failure with the top-up hint.
func TestGLMOutOfBalanceNotRetried(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderGLM, Responses: []llmfake.Response{
		{Status: 429, Raw: `{"error":{"code":"1113","message":"余额不足或无可用资源包,请充值。"}}`}, {Content: goodEval}}}, nil, nil)
	_, err := c.run(t, judgePkt)
	e := errs.As(err)
	if e == nil || e.Exit == ExitTransient || e.Details["transient"] == true || !strings.Contains(e.HintZh, "充值") || len(c.bodies(t)) != 1 || len(c.waits) != 0 {
		t.Fatalf("%v %d", err, len(c.bodies(t)))
	}
}

// Kimi K2.5: the only temperature it takes is sent (with one note), and
// the stream usage inside choices[0] is recorded, not lost.
func TestKimiTemperatureAndUsageInChoice(t *testing.T) {
	prices := `{"llm":{"prices":{"kimi-k2.5":{"input_per_mtok":4,"output_per_mtok":21,"currency":"CNY"}}}}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderKimi, Responses: []llmfake.Response{{Content: goodEval}}},
		map[string]string{"settings.json": prices}, map[string]string{"NOVEL_LLM_MODEL": "kimi-k2.5", "NOVEL_LLM_STREAM": "true"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	u := c.usages[0]
	if c.bodies(t)[0]["temperature"] != 1.0 || u.UsageEstimated || u.PromptTokens == nil || *u.PromptTokens != 100 || u.Cost == nil ||
		len(c.warnings) != 1 || c.warnings[0] != "kimi-k2.5 accepts only temperature 1; that value is sent" {
		t.Fatalf("%+v %v", u, c.warnings)
	}
	// thinking off for the role: {"thinking":{"type":"disabled"}} and 0.6
	settings := `{"llm":{"roles":{"quality-judge":{"thinking":"off"}}}}`
	c = newClient(t, llmfake.Script{Provider: llmfake.ProviderKimi, Responses: []llmfake.Response{{Content: goodEval}}},
		map[string]string{"settings.json": settings}, map[string]string{"NOVEL_LLM_MODEL": "kimi-k2.5"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, c.bodies(t)[0]["thinking"], `{"type":"disabled"}`)
	if c.bodies(t)[0]["temperature"] != 0.6 {
		t.Fatal(c.bodies(t)[0]["temperature"])
	}
}

// Qwen3 with thinking on refuses JSON mode with a 400 json_mode auto now
// recognises (drops response_format, asks again); thinking off for a role
// sends enable_thinking false.
func TestQwen3ThinkingJSONMode(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDashScope, Responses: []llmfake.Response{{Content: goodEval}}},
		nil, map[string]string{"NOVEL_LLM_MODEL": "qwen3-235b-a22b", "NOVEL_LLM_STREAM": "true"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err, errs.As(err).Details)
	}
	b := c.bodies(t)
	if len(b) != 2 || b[0]["response_format"] == nil || b[1]["response_format"] != nil {
		t.Fatalf("%d requests", len(b))
	}
	settings := `{"llm":{"roles":{"quality-judge":{"thinking":"off"}}}}`
	c = newClient(t, llmfake.Script{Provider: llmfake.ProviderDashScope, Responses: []llmfake.Response{{Content: goodEval}}},
		map[string]string{"settings.json": settings}, map[string]string{"NOVEL_LLM_MODEL": "qwen3-235b-a22b"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err, errs.As(err).Details, c.bodies(t)[0]["enable_thinking"])
	}
	if b := c.bodies(t); len(b) != 1 || b[0]["enable_thinking"] != false || b[0]["response_format"] == nil {
		t.Fatalf("%v", b)
	}
}
