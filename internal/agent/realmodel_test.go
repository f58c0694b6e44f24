package agent

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/llmfake"
)

// client is a configured OpenAI backend against a fake, with what it
// recorded: usage lines, retry waits, warnings.
type client struct {
	*OpenAI
	root     *project.Root
	log      string
	usages   []RequestUsage
	waits    []time.Duration
	warnings []string
}

// newClient starts a fake with script, writes files into a fresh project
// (settings.json, chapters, …) and configures the backend (streaming off
// unless the settings or env say otherwise).
func newClient(t *testing.T, script llmfake.Script, files map[string]string, extraEnv map[string]string) *client {
	t.Helper()
	base, log := startFake(t, script)
	dir := t.TempDir()
	for rel, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644)
	}
	root, _ := project.New(dir)
	e := map[string]string{"NOVEL_LLM_STREAM": "false"}
	// The fake listens on loopback, so the profile a real base URL would
	// select is named (llm.provider's env override).
	if prof := fakeProfiles[script.Provider]; prof != "" {
		e["NOVEL_LLM_PROVIDER"] = prof
	}
	for k, v := range extraEnv {
		e[k] = v
	}
	o, err := NewOpenAI(root, env(base, e))
	if err != nil {
		t.Fatal(err)
	}
	c := &client{OpenAI: o, root: root, log: log}
	o.Sleep = func(d time.Duration) { c.waits = append(c.waits, d) }
	o.Warn = func(zh, en string) { c.warnings = append(c.warnings, en) }
	return c
}

// fakeProfiles maps the fake's personalities to the provider profiles.
var fakeProfiles = map[string]string{llmfake.ProviderDeepSeek: "deepseek", llmfake.ProviderDashScope: "qwen",
	llmfake.ProviderOllama: "ollama", llmfake.ProviderVLLM: "vllm", llmfake.ProviderKimi: "kimi", llmfake.ProviderGLM: "glm"}

func (c *client) run(t *testing.T, pkt string) (*Outcome, error) {
	t.Helper()
	p, err := ParsePacket([]byte(pkt), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	return ExecuteRecording(c.root, p, c.OpenAI, func(u any) error {
		c.usages = append(c.usages, u.(RequestUsage))
		return nil
	}, nil)
}

func (c *client) bodies(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, r := range requests(t, c.log) {
		out = append(out, r["body"].(map[string]any))
	}
	return out
}

const (
	writerPkt = `{"version":1,"step":"chapter:001:draft","chapter":1,"volume":1,"revision_round":0,
	"agent":{"name":"chapter-writer","kind":"agent","mode":"draft"},"manifest":{"inline":{"storyline_id":"main-arc"},"paths":{}},
	"expected_outputs":[{"path":"staging/chapters/chapter-001.md","required":true,"via":"file"}]}`
	judgePkt = `{"version":1,"step":"chapter:001:judge","chapter":1,"volume":1,"revision_round":0,
	"agent":{"name":"quality-judge","kind":"agent","mode":"primary"},"manifest":{"inline":{},"paths":{}},
	"expected_outputs":[{"path":"staging/evaluations/chapter-001-eval.json","required":true,"via":"stdout"}]}`
	summarizerPkt = `{"version":1,"step":"chapter:001:summarize","chapter":1,"volume":1,"revision_round":0,
	"agent":{"name":"summarizer","kind":"agent","mode":"summarize"},"manifest":{"inline":{"storyline_id":"sect-intrigue"},"paths":{}},
	"expected_outputs":[{"path":"staging/summaries/chapter-001-summary.md","required":true,"via":"file"},
	{"path":"staging/state/chapter-001-delta.json","required":true,"via":"file"},
	{"path":"staging/state/chapter-001-crossref.json","required":true,"via":"file"},
	{"path":"staging/storylines/sect-intrigue/memory.md","required":true,"via":"file"}]}`
)

func readFile(t *testing.T, root *project.Root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root.Dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func withoutMessages(b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		if k != "messages" {
			out[k] = v
		}
	}
	return out
}

func jsonEqual(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	var gv any
	json.Unmarshal(g, &gv)
	if !reflect.DeepEqual(gv, w) {
		t.Fatalf("got  %s\nwant %s", g, want)
	}
}

// The request carries per-role settings, response_format for JSON roles
// and llm.extra_body (SPEC §18); before, it was only {model, messages}.
func TestRequestSettingsPerRole(t *testing.T) {
	settings := `{"llm":{"roles":{"quality-judge":{"model":"judge-x","temperature":0.1,"top_p":0.9}},"extra_body":{"enable_thinking":false}}}`
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: "# 第1章 灯\n\n林枫推门。\n"}, {Content: goodEval}}},
		map[string]string{"settings.json": settings}, nil)
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	b := c.bodies(t)
	jsonEqual(t, withoutMessages(b[0]), `{"model":"m","max_tokens":8192,"temperature":0.85,"stream":false,"enable_thinking":false}`)
	jsonEqual(t, withoutMessages(b[1]), `{"model":"judge-x","max_tokens":4096,"temperature":0.1,"top_p":0.9,"stream":false,
		"response_format":{"type":"json_object"},"enable_thinking":false}`)
}

func TestRequestSettingsInvalid(t *testing.T) {
	for _, tc := range []struct{ settings, key string }{
		{`{"llm":{"roles":{"chapter-writer":{"temperature":3}}}}`, "llm.roles.chapter-writer.temperature"},
		{`{"llm":{"roles":{"chapter-writer":{"max_token":100}}}}`, "llm.roles.chapter-writer.max_token"},
		{`{"llm":{"json_mode":"yes"}}`, "llm.json_mode"},
		{`{"llm":{"extra_body":[1]}}`, "llm.extra_body"},
		{`{"llm":{"prices":{"m":{"input_per_mtok":1}}}}`, "llm.prices.m.output_per_mtok"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "settings.json"), []byte(tc.settings), 0o644)
		root, _ := project.New(dir)
		_, err := NewOpenAI(root, env("http://127.0.0.1:1/v1", nil))
		if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["key"] != tc.key || e.Details["source"] != "settings.json" {
			t.Errorf("%s: %v", tc.settings, err)
		}
	}
	root, _ := project.New(t.TempDir())
	_, err := NewOpenAI(root, env("http://127.0.0.1:1/v1", map[string]string{"NOVEL_LLM_STREAM": "sometimes"}))
	if e := errs.As(err); e == nil || e.Code != errs.Config || e.Details["source"] != "env NOVEL_LLM_STREAM" {
		t.Errorf("env: %v", err)
	}
}

// json_mode auto: a server refusing response_format gets the request
// again without it, once; later requests leave it out.
func TestJSONModeAutoFallback(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{
		{Status: 400, Content: "response_format type json_object is not supported by this model"}, {Content: goodEval}}}, nil, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	b := c.bodies(t)
	if len(b) != 2 || b[0]["response_format"] == nil || b[1]["response_format"] != nil {
		t.Fatalf("%v", b)
	}
}

// Markdown hygiene: reasoning, the preamble before the heading (and the
// fence it opened) and the sign-off never reach the chapter.
func TestChapterHygiene(t *testing.T) {
	answer := "<think>先想想{人物}怎么出场</think>好的，以下是第1章的正文：\n\n```markdown\n# 第1章 灯\n\n林枫推门而入。\n\n海风灌进来。\n\n```json\n{\"hints\":[]}\n```\n```\n\n如需调整请告诉我。"
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: answer}}}, nil, nil)
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	want := "# 第1章 灯\n\n林枫推门而入。\n\n海风灌进来。\n\n```json\n{\"hints\":[]}\n```\n"
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != want {
		t.Fatalf("got %q", got)
	}
}

// A heading naming another chapter is a validation error quoted in the
// one re-ask.
func TestChapterWrongHeadingReask(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: "# 第2章 灯\n\n正文。"}, {Content: "# 第1章 灯\n\n正文。"}}}, nil, nil)
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	b := c.bodies(t)
	msgs := b[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	if !strings.Contains(last, "的标题是第 2 章，应为第 1 章") {
		t.Fatal(last)
	}
}

// JSON hygiene: braces in reasoning and chatter do not confuse it; the
// judge's chapter comes from the packet.
func TestJSONBracesInThinkAndChatter(t *testing.T) {
	answer := "<think>{人物} 的表现如何？</think>根据{设定}，评估如下：\n" + strings.Replace(goodEval, `"chapter":1`, `"chapter":7`, 1) + "\n以上是评估 {完}"
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: answer}}}, nil, nil)
	out, err := c.run(t, judgePkt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out.Stdout), `"chapter": 1,`) || len(c.bodies(t)) != 1 {
		t.Fatalf("%s", out.Stdout)
	}
}

// A judge on a 10-point scale is told exactly what was wrong.
func TestJudgeValidationReaskQuotesError(t *testing.T) {
	bad := strings.Replace(goodEval, `"overall":4.1`, `"overall":8.6`, 1)
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: bad}, {Content: goodEval}}}, nil, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	msgs := c.bodies(t)[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	if !strings.Contains(last, "未通过校验：staging/evaluations/chapter-001-eval.json：overall 必须是 0 到 5 之间的数，实际为 8.6") {
		t.Fatal(last)
	}
}

// The summarizer's bookkeeping comes from the packet: chapter,
// base_state_version (the state's), storyline_id (the memory path too);
// bare-name unknown_entities become objects.
func TestSummarizerFieldsFromPacket(t *testing.T) {
	answer := `{"summary":"林枫入宗。","delta":{"chapter":9,"base_state_version":41,"storyline_id":"zongmen-anliu","ops":[]},
	"crossref":{},"memory":"记忆。","unknown_entities":["贺九","杂役"]}`
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: answer}}},
		map[string]string{"state/current-state.json": `{"state_version":3}`}, nil)
	out, err := c.run(t, summarizerPkt)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/state/chapter-001-delta.json"); got !=
		"{\n  \"base_state_version\": 3,\n  \"chapter\": 1,\n  \"ops\": [],\n  \"storyline_id\": \"sect-intrigue\",\n  \"unknown_entities\": [\n    {\n      \"name\": \"贺九\"\n    },\n    {\n      \"name\": \"杂役\"\n    }\n  ]\n}\n" {
		t.Fatal(got)
	}
	if !reflect.DeepEqual(out.Written[3], "staging/storylines/sect-intrigue/memory.md") {
		t.Fatal(out.Written)
	}
}

// finish_reason length: a chapter is continued (up to 2 times) and
// joined; still cut after that is E_AGENT "truncated", nothing written.
func TestTruncatedChapterContinued(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{
		{Content: "# 第1章 灯\n\n林枫推开", Finish: "length"}, {Content: "好的，接着写：\n灯塔的门。\n", Finish: "stop"}}}, nil, nil)
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != "# 第1章 灯\n\n林枫推开灯塔的门。\n" {
		t.Fatalf("%q", got)
	}
	msgs := c.bodies(t)[1]["messages"].([]any)
	if msgs[2].(map[string]any)["content"] != "# 第1章 灯\n\n林枫推开" || msgs[3].(map[string]any)["content"] != continuePrompt {
		t.Fatal(msgs)
	}
	if c.usages[1].Request != "continuation" || c.usages[1].FinishReason != "stop" {
		t.Fatalf("%+v", c.usages)
	}

	cut := llmfake.Response{Content: "# 第1章 灯\n\n林枫", Finish: "length"}
	c = newClient(t, llmfake.Script{Responses: []llmfake.Response{cut, cut, cut}}, nil, nil)
	_, err := c.run(t, writerPkt)
	if e := errs.As(err); e == nil || e.Code != errs.Agent || e.Details["truncated"] != true || len(c.bodies(t)) != 3 {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(filepath.Join(c.root.Dir, "staging/chapters/chapter-001.md")); err == nil {
		t.Fatal("a truncated chapter was written")
	}
}

// A truncated JSON answer is asked again once with twice the max_tokens.
func TestTruncatedJSONLargerMaxTokens(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: `{"chapter":1,"overall":`, Finish: "length"}, {Content: goodEval}}}, nil, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	b := c.bodies(t)
	if b[0]["max_tokens"] != 4096.0 || b[1]["max_tokens"] != 8192.0 {
		t.Fatalf("%v %v", b[0]["max_tokens"], b[1]["max_tokens"])
	}
}

func TestContentFilter(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: "", Finish: "content_filter"}}}, nil, nil)
	_, err := c.run(t, writerPkt)
	if e := errs.As(err); e == nil || e.Code != errs.Agent || e.Details["content_filter"] != true || !strings.Contains(e.HintZh, "缓和") {
		t.Fatalf("%v", err)
	}
	// Bailian's moderation answers HTTP 400 data_inspection_failed (camel-ai/owl#432).
	c = newClient(t, llmfake.Script{Responses: []llmfake.Response{{Status: 400,
		Raw: `{"error":{"code":"data_inspection_failed","message":"Input data may contain inappropriate content.","type":"data_inspection_failed"}}`}}}, nil, nil)
	_, err = c.run(t, writerPkt)
	if e := errs.As(err); e == nil || e.Details["content_filter"] != true || e.Details["server_message"] != "Input data may contain inappropriate content." || len(c.bodies(t)) != 1 {
		t.Fatalf("%v", err)
	}
}

// Retry-After is honoured (capped at 120 s); without it the backoff
// doubles. Running out of retries on a transient failure exits 75.
func TestRetryAfterAndBackoff(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{
		{Status: 429, Content: "rate limited", Headers: map[string]string{"Retry-After": "7"}},
		{Status: 503, Content: "busy", Headers: map[string]string{"Retry-After": "600"}},
		{Status: 502}, {Content: goodEval}}}, nil, map[string]string{"NOVEL_LLM_BACKOFF_MS": "1000"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.waits, []time.Duration{7 * time.Second, 120 * time.Second, 4 * time.Second}) {
		t.Fatal(c.waits)
	}
	if len(c.usages) != 4 || c.usages[0].Outcome != errs.Agent || c.usages[0].PromptTokens != nil || c.usages[3].Outcome != "ok" {
		t.Fatalf("%+v", c.usages)
	}
	c = newClient(t, llmfake.Script{Responses: []llmfake.Response{{Status: 429}, {Status: 429}}}, nil, map[string]string{"NOVEL_LLM_RETRIES": "1"})
	_, err := c.run(t, judgePkt)
	if e := errs.As(err); e == nil || e.Exit != ExitTransient || e.Details["status"] != 429 {
		t.Fatalf("%v", err)
	}
}

// HTTP 200 with an error object: judged by its status, message kept.
func TestErrorBodyWith200(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{
		{Raw: `{"error":{"message":"upstream overloaded","code":503}}`},
		{Raw: `{"error":{"message":"Invalid API key","type":"authentication_error","code":401}}`}}}, nil, nil)
	_, err := c.run(t, judgePkt)
	e := errs.As(err)
	if e == nil || e.Details["server_message"] != "Invalid API key" || e.Details["status"] != 401 || e.Exit != 1 || len(c.bodies(t)) != 2 {
		t.Fatalf("%v %+v", err, e)
	}
}

// A request that timed out is retried once, not until the retries run out;
// a second total timeout is not transient (it would time out again).
func TestTimeoutRetriedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make test): real one-second timeouts run in make test-long")
	}
	slow := llmfake.Response{DelayMS: 1500, Content: goodEval}
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{slow, slow, slow}}, nil, map[string]string{"NOVEL_LLM_TIMEOUT": "1"})
	_, err := c.run(t, judgePkt)
	e := errs.As(err)
	if e == nil || e.Exit != 1 || e.Details["transient"] != nil || e.Details["timeout"] != "total" || len(c.usages) != 2 || c.usages[1].Outcome != "timeout_total" {
		t.Fatalf("%v %+v", err, c.usages)
	}
}

// SSE: reasoning_content deltas are dropped from the answer but counted,
// usage comes from the final chunk, [DONE] ends the stream; the DeepSeek
// cache-hit price applies.
func TestStreamDeepSeekReasonerUsageAndCost(t *testing.T) {
	settings := `{"llm":{"prices":{"deepseek-reasoner":{"input_per_mtok":4,"cache_hit_input_per_mtok":1,"output_per_mtok":16,"currency":"CNY"}}}}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: "# 第1章 灯\n\n林枫推门而入。", Reasoning: "先写开门。", CacheHit: 60, Chunks: 4, KeepAlives: 2}}},
		map[string]string{"settings.json": settings}, map[string]string{"NOVEL_LLM_STREAM": "true", "NOVEL_LLM_MODEL": "deepseek-reasoner"})
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != "# 第1章 灯\n\n林枫推门而入。\n" {
		t.Fatalf("%q", got)
	}
	b := c.bodies(t)[0]
	if b["stream"] != true || !reflect.DeepEqual(b["stream_options"], map[string]any{"include_usage": true}) {
		t.Fatal(b)
	}
	u := c.usages[0]
	line, _ := json.Marshal(u)
	want := `{"model":"deepseek-reasoner","request":"ask","outcome":"ok","finish_reason":"stop","prompt_tokens":100,"completion_tokens":21,"cache_hit_tokens":60,"reasoning_tokens":5,"cost":{"amount":0.000556,"currency":"CNY"},"tokens":{"cache_hit":60,"completion":21,"prompt":100,"reasoning":5}}`
	if string(line) != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
}

// The idle timeout tells a live reasoner (chunks keep coming, slower in
// total than the idle limit) from a dead server (stops sending).
func TestStreamIdleTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make test): real one-second timeouts run in make test-long")
	}
	live := llmfake.Response{Content: goodEval, Reasoning: "想一想", Chunks: 2, ChunkDelayMS: 400}
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{live}}, nil,
		map[string]string{"NOVEL_LLM_STREAM": "true", "NOVEL_LLM_IDLE_TIMEOUT": "1", "NOVEL_LLM_TIMEOUT": "30"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	dead := llmfake.Response{Content: goodEval, StallAfter: 1}
	c = newClient(t, llmfake.Script{Responses: []llmfake.Response{dead, dead, dead}}, nil,
		map[string]string{"NOVEL_LLM_STREAM": "true", "NOVEL_LLM_IDLE_TIMEOUT": "1"})
	_, err := c.run(t, judgePkt)
	e := errs.As(err)
	if e == nil || e.Details["timeout"] != "idle" || e.Exit != ExitTransient || len(c.usages) != 2 || c.usages[0].Outcome != "timeout_idle" {
		t.Fatalf("%v %+v", err, c.usages)
	}
}

// Ollama's /v1: <think> in content, no usage → tokens estimated from
// the text (§19's formula), marked usage_estimated, priced as usual, and
// one note (SPEC §26).
func TestOllamaThinkInContentNoUsage(t *testing.T) {
	prices := `{"llm":{"prices":{"m":{"input_per_mtok":1,"output_per_mtok":2,"currency":"CNY"}}}}`
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderOllama, Responses: []llmfake.Response{
		{Content: goodEval, Reasoning: "评分要看{情节}", DelayMS: 300}}}, map[string]string{"settings.json": prices}, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	u := c.usages[0]
	msgs := c.bodies(t)[0]["messages"].([]any)
	var sent []Message
	for _, m := range msgs {
		sent = append(sent, Message{Content: m.(map[string]any)["content"].(string)})
	}
	wantPrompt := EstimateTokens(sent)
	wantCompletion := EstimateTokens([]Message{{Content: "<think>评分要看{情节}</think>\n" + goodEval}})
	if !u.UsageEstimated || *u.PromptTokens != wantPrompt || *u.CompletionTokens != wantCompletion || u.Cost == nil ||
		u.Cost.Amount != math.Round((float64(wantPrompt)*1+float64(wantCompletion)*2)/1e6*1e8)/1e8 || len(c.warnings) != 1 {
		t.Fatalf("%+v %v", u, c.warnings)
	}
	// streamed, the <think> tags arrive split across deltas
	c = newClient(t, llmfake.Script{Provider: llmfake.ProviderOllama, Responses: []llmfake.Response{
		{Content: "# 第1章 灯\n\n林枫推门。", Reasoning: "开头要稳", Chunks: 9, DelayMS: 300}}}, nil, map[string]string{"NOVEL_LLM_STREAM": "true"})
	if _, err := c.run(t, writerPkt); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != "# 第1章 灯\n\n林枫推门。\n" || !c.usages[0].UsageEstimated || len(c.warnings) != 1 {
		t.Fatalf("%q %+v", got, c.usages)
	}
}

// Bailian Qwen3 refuses a non-streaming call unless extra_body turns
// thinking off; the server's message is kept.
func TestDashScopeEnableThinking(t *testing.T) {
	script := llmfake.Script{Provider: llmfake.ProviderDashScope, Responses: []llmfake.Response{{Content: goodEval}}}
	c := newClient(t, script, nil, map[string]string{"NOVEL_LLM_MODEL": "qwen3-235b-a22b"})
	_, err := c.run(t, judgePkt)
	if e := errs.As(err); e == nil || e.Details["server_message"] != "parameter.enable_thinking must be set to false for non-streaming calls" || e.Details["status"] != 400 {
		t.Fatalf("%v", err)
	}
	script.Responses = []llmfake.Response{{Content: goodEval}}
	c = newClient(t, script, map[string]string{"settings.json": `{"llm":{"extra_body":{"enable_thinking":false}}}`}, map[string]string{"NOVEL_LLM_MODEL": "qwen3-235b-a22b"})
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
}

// vLLM's context-length 400 is reported with its message, not retried.
func TestVLLMContextLength(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderVLLM, MaxContext: 2000, Responses: []llmfake.Response{{Content: goodEval}}}, nil, nil)
	_, err := c.run(t, judgePkt)
	e := errs.As(err)
	if e == nil || !strings.HasPrefix(e.Details["server_message"].(string), "This model's maximum context length is 2000 tokens.") || len(c.bodies(t)) != 1 {
		t.Fatalf("%v", err)
	}
}

// A project's prompts/{role}.md replaces the built-in; dry-run prints the
// request and calls nothing.
func TestPromptOverrideAndDryRun(t *testing.T) {
	c := newClient(t, llmfake.Script{}, map[string]string{"prompts/quality-judge.md": "项目自己的评审提示。\n"}, nil)
	p, _ := ParsePacket([]byte(judgePkt), "p.json")
	plan, err := c.Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(plan.Messages[0].Content, "\n\n项目自己的评审提示。") || plan.EstimatedTokens != EstimateTokens(plan.Messages) || plan.EstimatedTokens == 0 {
		t.Fatal(plan.Messages[0].Content)
	}
	jsonEqual(t, plan.Request, `{"model":"m","max_tokens":4096,"temperature":0.2,"stream":false,"response_format":{"type":"json_object"}}`)
	if len(c.bodies(t)) != 0 {
		t.Fatal("dry run called the server")
	}
}

func TestDumpPrompts(t *testing.T) {
	dir := t.TempDir()
	written, err := DumpPrompts(dir)
	if err != nil || len(written) == 0 {
		t.Fatal(err)
	}
	want, _ := promptFS.ReadFile("prompts/chapter-writer.md")
	if got, _ := os.ReadFile(filepath.Join(dir, "chapter-writer.md")); string(got) != string(want) {
		t.Fatal("dump differs from the built-in")
	}
	if _, err := DumpPrompts(filepath.Join(dir, "missing")); !errs.Is(err, errs.IO) {
		t.Fatal(err)
	}
}

// DeepSeek keeps a queued non-streaming request alive with empty lines
// before the JSON body; they do not disturb the answer.
func TestDeepSeekKeepAliveLines(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{{Content: goodEval, KeepAlives: 3, ChunkDelayMS: 10, CacheHit: 64}}}, nil, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	if u := c.usages[0]; u.CacheHitTokens == nil || *u.CacheHitTokens != 64 || u.ReasoningTokens != nil {
		t.Fatalf("%+v", u)
	}
}

// The polish step replaced a full chapter with half of it: a refiner
// answer still cut after two continuations writes nothing, so the chapter
// on disk stays whole.
func TestTruncatedPolishKeepsChapter(t *testing.T) {
	cut := llmfake.Response{Content: "# 第1章 灯\n\n林枫", Finish: "length"}
	full := "# 第1章 灯\n\n林枫推开灯塔的门，海风灌了进来。\n"
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{cut, cut, cut}}, map[string]string{"staging/chapters/chapter-001.md": full}, nil)
	_, err := c.run(t, `{"version":1,"step":"chapter:001:polish","chapter":1,"volume":1,"revision_round":0,
	"agent":{"name":"style-refiner","kind":"agent","mode":"polish"},"manifest":{"inline":{},"paths":{"chapter_draft":"staging/chapters/chapter-001.md"}},
	"expected_outputs":[{"path":"staging/chapters/chapter-001.md","required":true,"via":"file"}]}`)
	if e := errs.As(err); e == nil || e.Details["truncated"] != true {
		t.Fatal(err)
	}
	if got := readFile(t, c.root, "staging/chapters/chapter-001.md"); got != full {
		t.Fatalf("%q", got)
	}
	if b := c.bodies(t); len(b) != 3 || b[0]["temperature"] != 0.6 {
		t.Fatal(b[0]["temperature"])
	}
}

// DeepSeek's finish_reason insufficient_system_resource is transient:
// retried like a 503.
func TestInsufficientSystemResourceRetried(t *testing.T) {
	c := newClient(t, llmfake.Script{Provider: llmfake.ProviderDeepSeek, Responses: []llmfake.Response{
		{Content: "{\"chap", Finish: "insufficient_system_resource"}, {Content: goodEval}}}, nil, nil)
	if _, err := c.run(t, judgePkt); err != nil {
		t.Fatal(err)
	}
	if len(c.usages) != 2 || c.usages[0].Outcome != errs.Agent || c.usages[0].FinishReason != "insufficient_system_resource" || c.usages[0].PromptTokens == nil {
		t.Fatalf("%+v", c.usages)
	}
}

// A run log that cannot take the usage line fails the request: no output
// is ever written without its usage.
func TestUsageRecordFailureWritesNothing(t *testing.T) {
	c := newClient(t, llmfake.Script{Responses: []llmfake.Response{{Content: "# 第1章 灯\n\n正文。"}}}, nil, nil)
	p, _ := ParsePacket([]byte(writerPkt), "p.json")
	_, err := ExecuteRecording(c.root, p, c.OpenAI, func(any) error { return errs.New(errs.IO, "满了", "disk full") }, nil)
	if !errs.Is(err, errs.IO) {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.root.Dir, "staging/chapters/chapter-001.md")); err == nil {
		t.Fatal("written without usage")
	}
}
