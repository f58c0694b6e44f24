// Package llmfake is a scripted OpenAI-compatible chat-completions server
// for tests. It listens on loopback only, answers from a script (status
// codes, malformed bodies, delays) and then from replay recordings, logs
// every request body, and stops by itself after a bounded lifetime.
package llmfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/stepid"
)

// Response is one scripted answer. Each behaviour imitates something a
// real provider does (SPEC §18; the source of each is noted where the
// server produces it).
type Response struct {
	Status  int    `json:"status"`   // default 200
	Content string `json:"content"`  // the assistant message content
	Raw     string `json:"raw"`      // a raw body sent as is (malformed JSON, 200 with an error object)
	DelayMS int    `json:"delay_ms"` // wait before answering (timeout tests, Ollama's slow first token)
	// Headers are sent as they are (e.g. Retry-After on a 429).
	Headers map[string]string `json:"headers"`
	// Reasoning is the model's reasoning: reasoning_content next to the
	// content (DeepSeek reasoner), or a <think> block in content (Ollama).
	Reasoning string `json:"reasoning"`
	// Finish is the finish_reason (default "stop"; "length" and
	// "content_filter" imitate truncation and moderation).
	Finish string `json:"finish"`
	// CacheHit is DeepSeek's prompt_cache_hit_tokens (of the 100 prompt tokens).
	CacheHit int `json:"cache_hit"`
	// Chunks splits a streamed content into this many deltas (default 3).
	Chunks int `json:"chunks"`
	// ChunkDelayMS waits before each streamed chunk; KeepAlives sends that
	// many ": keep-alive" comment lines first, ChunkDelayMS apart.
	ChunkDelayMS int `json:"chunk_delay_ms"`
	KeepAlives   int `json:"keep_alives"`
	// StallAfter > 0 stops a stream after that many chunks and sends
	// nothing more until the client hangs up (a dead server).
	StallAfter int `json:"stall_after"`
	// Provider overrides the script's provider for this answer.
	Provider string `json:"provider"`
	// Refuse answers with the provider's content-filter refusal instead
	// (RefuseDeepSeek, RefuseGLM).
	Refuse string `json:"refuse"`
}

// Refusal shapes the fake can answer with (Response.Refuse).
const (
	// RefuseDeepSeek is DeepSeek's content-safety refusal: HTTP 400
	// invalid_request_error "Content Exists Risk"
	// (deepseek-ai/awesome-deepseek-integration#13, 666ghj/BettaFish#108).
	RefuseDeepSeek = "deepseek"
	// RefuseGLM is Zhipu's code 1301: HTTP 400 with the Chinese notice
	// (langchain4j/langchain4j#1079).
	RefuseGLM = "glm"
)

// Providers the fake imitates.
const (
	// ProviderOpenAI is plain OpenAI-compatible behaviour (the default).
	ProviderOpenAI = "openai"
	// ProviderDeepSeek adds prompt_cache_hit_tokens/prompt_cache_miss_tokens
	// and completion_tokens_details.reasoning_tokens to usage, and
	// reasoning_content next to content (api-docs.deepseek.com, "Reasoning
	// Model" and "Context Caching"; prism-php/prism#1021); deepseek-chat
	// refuses max_tokens above 8192 with HTTP 400 "Invalid max_tokens
	// value, the valid range of max_tokens is [1, 8192]"
	// (deepseek-ai/DeepSeek-V3#69).
	ProviderDeepSeek = "deepseek"
	// ProviderDashScope refuses non-streaming calls to qwen3 models unless
	// enable_thinking is false (langchain4j/langchain4j#3974,
	// infiniflow/ragflow#8972: HTTP 400 invalid_parameter_error), and JSON
	// mode while thinking is on: "Json mode response is not supported when
	// enable_thinking is true" (presenton/presenton#184). Thinking on is
	// enable_thinking true or absent (the open-source Qwen3 default,
	// sunmh207/AI-Codereview-Gitlab#104 quoting the Bailian docs).
	ProviderDashScope = "dashscope"
	// ProviderOllama puts reasoning into content as <think>…</think> and
	// reports no usage (ollama/ollama#15288, bytedance/deer-flow#2062).
	ProviderOllama = "ollama"
	// ProviderVLLM refuses a prompt plus max_tokens over the context
	// length with HTTP 400 and its own message (vLLM serving_engine).
	ProviderVLLM = "vllm"
	// ProviderKimi is Moonshot: K2.5/K2.6 refuse any temperature but 1
	// (thinking on, the default) or 0.6 (thinking {"type":"disabled"})
	// with HTTP 400 "invalid temperature: only 1 is allowed for this
	// model" (Warma10032/VideoAdGuard#34, NoFxAiOS/nofx#1415), and a
	// stream's usage sits in choices[0].usage of the last chunk, never
	// at the top level (earendil-works/pi#2017).
	ProviderKimi = "kimi"
	// ProviderGLM is Zhipu / z.ai: finish reasons sensitive and
	// network_error are scripted with Finish (BerriAI/litellm#24373), a
	// refusal with Refuse: "glm" (code 1301), thinking is
	// {"thinking":{"type":…}} (docs.z.ai thinking-mode).
	ProviderGLM = "glm"
)

// Script drives the server: scripted responses first, in order; then
// answers from ReplayDir recordings (chapter-NNN/, volume-VV/ or setup/{agent}.{mode}.r{K}.{md|json});
// $VARS in ReplayDir are expanded, a relative one is taken from the script's folder.
type Script struct {
	Responses []Response `json:"responses"`
	ReplayDir string     `json:"replay_dir"`
	// Provider is the personality of every answer (default openai).
	Provider string `json:"provider"`
	// MaxContext is vLLM's max_model_len in tokens (prompt characters
	// count as tokens here) for ProviderVLLM.
	MaxContext int `json:"max_context"`
	// Reasoning and CacheHit are given to every replayed answer, so a
	// whole pipeline run can imitate a reasoner (reasoning_content, or
	// <think> in content for Ollama) and DeepSeek's prompt cache.
	Reasoning string `json:"reasoning"`
	CacheHit  int    `json:"cache_hit"`
	// APIKey, when set, is the one key accepted: any other is HTTP 401
	// "Authentication Fails, Your api key: ****xxxx is invalid"
	// (continuedev/continue#11820, DeepSeek's wording).
	APIKey string `json:"api_key"`
	// Models, when set, are the only model names served: any other is
	// HTTP 400 "Model Not Exist" (ConardLi/easy-dataset#9, DeepSeek).
	Models []string `json:"models"`
	// NoStream makes the server ignore "stream": true and answer one JSON
	// body, as servers that mishandle the stream field do
	// (sgl-project/mini-sglang#51 with the opposite flag,
	// UKGovernmentBEIS/inspect_ai#2915).
	NoStream bool `json:"no_stream"`
	// CutOnce names agents (or agent.mode, e.g. plot-architect.plan)
	// whose first replayed answer is cut in the middle with finish_reason
	// "length", as a model that reaches max_tokens is (deepseek-chat stops
	// at 8192, its limit).
	CutOnce []string `json:"cut_once"`
	// JudgeDrops names a rubric dimension that the first answer of each
	// quality-judge request (step, mode, round) leaves out while claiming
	// "overall": 4.9 — a lenient model that skips what it did not like
	// (issue #27); the re-ask gets the full recording.
	JudgeDrops string `json:"judge_drops"`
}

// Server is a running fake.
type Server struct {
	script Script
	cut    map[string]bool // agents whose answer CutOnce already cut
	drop   map[string]bool // judge requests whose answer JudgeDrops already cut
	log    string
	mu     sync.Mutex
	logMu  sync.Mutex // the request log's appends
	n      int
}

var (
	stepRE  = lazyre.New(`步骤：(chapter|volume|setup):(\d*)`)
	agentRE = lazyre.New(`代理：([a-z-]+)`)
	modeRE  = lazyre.New(`模式：([a-z-]+)`)
	roundRE = lazyre.New(`修订轮次：(\d+)`)
)

type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string  `json:"role"`
		Content          string  `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
	} `json:"messages"`
	Stream         bool     `json:"stream"`
	MaxTokens      int      `json:"max_tokens"`
	EnableThinking *bool    `json:"enable_thinking"`
	Temperature    *float64 `json:"temperature"`
	Thinking       *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req request
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	json.Unmarshal(body, &req)
	s.mu.Lock()
	s.n++
	n := s.n
	provider := s.script.Provider
	if len(s.script.Responses) > 0 && s.script.Responses[0].Provider != "" {
		provider = s.script.Responses[0].Provider
	}
	// A request the provider refuses for its parameters never reaches a
	// model: it does not use up a scripted answer.
	refused := r.URL.Path == "/v1/chat/completions" && (s.gatekeep(nil, r, &req) || s.refuse(nil, provider, &req))
	var resp *Response
	if len(s.script.Responses) > 0 && !refused {
		resp = &s.script.Responses[0]
		s.script.Responses = s.script.Responses[1:]
	}
	s.logRequest(n, r.URL.Path, body)
	s.mu.Unlock()

	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if refused {
		if !s.gatekeep(w, r, &req) {
			s.refuse(w, provider, &req)
		}
		return
	}
	if s.script.NoStream {
		req.Stream = false
	}
	if resp == nil && isProbe(&req) {
		// novel doctor's connection check: a one-word answer (JSON when
		// JSON mode is asked for), so every personality can be checked
		// without a script.
		resp = &Response{Content: "OK"}
		if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" {
			resp.Content = `{"ok":true}`
		}
	}
	if resp == nil {
		var ok bool
		if resp, ok = s.replayed(w, &req); !ok {
			return
		}
	}
	if resp.DelayMS > 0 {
		time.Sleep(time.Duration(resp.DelayMS) * time.Millisecond)
	}
	if resp.Provider != "" {
		provider = resp.Provider
	}
	if resp.Refuse != "" {
		refusal(w, resp.Refuse)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case resp.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, resp.Raw)
	case status != http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": resp.Content}})
	case req.Stream:
		s.stream(w, r, provider, &req, resp)
		var sent map[string]any
		if provider == ProviderKimi || req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
			sent = usage(provider, resp)
		}
		s.logUsage(n, sent)
	default:
		w.Header().Set("Content-Type", "application/json")
		// DeepSeek keeps a queued non-streaming request alive with empty
		// lines before the body (api-docs.deepseek.com, "Rate Limit").
		for i := 0; i < resp.KeepAlives; i++ {
			fmt.Fprint(w, "\n")
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			time.Sleep(time.Duration(resp.ChunkDelayMS) * time.Millisecond)
		}
		writeAnswer(w, provider, req.Model, resp)
		s.logUsage(n, usage(provider, resp))
	}
}

// replayed answers from the replay recordings: a part of the answer when
// the request asks for one (a split re-ask), the answer cut once at 60 %
// for an agent in cut_once, an eval with a dimension dropped once per
// request for judge_drops. ok is false when replay already answered w.
func (s *Server) replayed(w http.ResponseWriter, req *request) (*Response, bool) {
	content, ok := s.replay(w, req)
	if !ok {
		return nil, false
	}
	resp := &Response{Content: content, Reasoning: s.script.Reasoning, CacheHit: s.script.CacheHit}
	if m := partRE().FindStringSubmatch(lastMessage(req)); m != nil {
		resp.Content = part(content, m)
	} else if a, key := agentRE().FindStringSubmatch(req.Messages[1].Content), s.cutKey(req); a != nil && key != "" {
		s.mu.Lock()
		if !s.cut[key] {
			if s.cut == nil {
				s.cut = map[string]bool{}
			}
			s.cut[key] = true
			rs := []rune(content)
			resp.Content, resp.Finish = string(rs[:len(rs)*3/5]), "length"
		}
		s.mu.Unlock()
	} else if s.script.JudgeDrops != "" && a != nil && a[1] == stepid.QualityJudge {
		s.mu.Lock()
		key := requestKey(req.Messages[1].Content)
		if !s.drop[key] {
			if s.drop == nil {
				s.drop = map[string]bool{}
			}
			s.drop[key] = true
			resp.Content = dropDimension(content, s.script.JudgeDrops)
		}
		s.mu.Unlock()
	}
	return resp, true
}

// cutKey is the cut_once entry a request falls under: its agent.mode,
// else its agent ("" when neither is listed).
func (s *Server) cutKey(req *request) string {
	user := req.Messages[1].Content
	a, m := agentRE().FindStringSubmatch(user), modeRE().FindStringSubmatch(user)
	if a == nil {
		return ""
	}
	if m != nil && slices.Contains(s.script.CutOnce, a[1]+"."+m[1]) {
		return a[1] + "." + m[1]
	}
	if slices.Contains(s.script.CutOnce, a[1]) {
		return a[1]
	}
	return ""
}

// logUsage adds {"n","usage"} to the request log for an answered request:
// the usage object the answer carried (null when it carried none), so a
// test can check the client's token accounting against the server's.
func (s *Server) logUsage(n int, u map[string]any) {
	s.writeLog(map[string]any{"n": n, "usage": u})
}

// refuse answers the provider-specific 400s (to hw when it is not nil);
// true when the provider refuses the request.
func (s *Server) refuse(hw http.ResponseWriter, provider string, req *request) bool {
	var msg map[string]any
	switch {
	case provider == ProviderDashScope && strings.HasPrefix(req.Model, "qwen3") && !req.Stream &&
		(req.EnableThinking == nil || *req.EnableThinking):
		msg = map[string]any{"code": "invalid_parameter_error", "param": nil,
			"message": "parameter.enable_thinking must be set to false for non-streaming calls", "type": "invalid_request_error"}
	case provider == ProviderDashScope && strings.HasPrefix(req.Model, "qwen3") && req.ResponseFormat != nil &&
		req.ResponseFormat.Type == "json_object" && (req.EnableThinking == nil || *req.EnableThinking):
		msg = map[string]any{"code": "invalid_parameter_error", "param": nil,
			"message": "<400> InternalError.Algo.InvalidParameter: Json mode response is not supported when enable_thinking is true", "type": "invalid_request_error"}
	case provider == ProviderDeepSeek && sentReasoning(req):
		// reasoning_content passed back in messages (without tools) is a
		// 400 (api-docs.deepseek.com/zh-cn/guides/reasoning_model; the
		// wording: Euyug/Mirai-Gpt-Plugin#4).
		msg = map[string]any{"message": "The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic.",
			"type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}
	case provider == ProviderDeepSeek && strings.HasPrefix(req.Model, "deepseek-chat") && req.MaxTokens > 8192:
		msg = map[string]any{"message": "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",
			"type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}
	case provider == ProviderKimi && (strings.HasPrefix(req.Model, "kimi-k2.5") || strings.HasPrefix(req.Model, "kimi-k2.6")):
		allowed := 1.0
		if req.Thinking != nil && req.Thinking.Type == "disabled" {
			allowed = 0.6
		}
		if req.Temperature == nil || *req.Temperature == allowed {
			return false
		}
		msg = map[string]any{"message": fmt.Sprintf("invalid temperature: only %g is allowed for this model", allowed), "type": "invalid_request_error"}
	case provider == ProviderVLLM && s.script.MaxContext > 0:
		prompt := 0
		for _, m := range req.Messages {
			prompt += len([]rune(m.Content))
		}
		if prompt+req.MaxTokens <= s.script.MaxContext {
			return false
		}
		msg = map[string]any{"object": "error", "type": "BadRequestError", "param": nil, "code": 400,
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
				s.script.MaxContext, prompt+req.MaxTokens, prompt, req.MaxTokens)}
	default:
		return false
	}
	if hw == nil {
		return true
	}
	hw.Header().Set("Content-Type", "application/json")
	hw.WriteHeader(http.StatusBadRequest)
	if provider == ProviderVLLM {
		// vLLM's ErrorResponse sits at the top level (ogx-ai/ogx#4534).
		json.NewEncoder(hw).Encode(msg)
		return true
	}
	json.NewEncoder(hw).Encode(map[string]any{"error": msg})
	return true
}

// partRE reads a split re-ask (internal/agent split.go): the fields one
// part asks for, and for chapter_contracts the chapter range.
var partRE = lazyre.New(`【分段输出】.*字段：([a-z_、]+)(?:（第 (\d+)–(\d+) 章）)?`)

func lastMessage(req *request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// part is the recorded JSON answer reduced to the fields a split re-ask
// names (contracts to its chapter range), as a model answering in parts.
func part(recording string, m []string) string {
	var full map[string]json.RawMessage
	if json.Unmarshal([]byte(recording), &full) != nil {
		return recording
	}
	first, _ := strconv.Atoi(m[2])
	last, _ := strconv.Atoi(m[3])
	out := map[string]json.RawMessage{}
	for _, f := range strings.Split(m[1], "、") {
		v, ok := full[f]
		if !ok {
			continue
		}
		if f == "chapter_contracts" && first > 0 {
			var list []map[string]any
			json.Unmarshal(v, &list)
			var keep []map[string]any
			for _, c := range list {
				if n, _ := c["chapter"].(float64); int(n) >= first && int(n) <= last {
					keep = append(keep, c)
				}
			}
			v, _ = json.Marshal(keep)
		}
		out[f] = v
	}
	data, _ := json.Marshal(out)
	return string(data)
}

// probeMarker is the text of novel doctor's probe request
// (internal/doctor asks it); the fake answers it without a script.
const probeMarker = "novel doctor"

func isProbe(req *request) bool {
	n := len(req.Messages)
	return n > 0 && strings.Contains(req.Messages[n-1].Content, probeMarker)
}

// gatekeep answers (to w when it is not nil) a wrong key (401) or an
// unknown model (400) the way DeepSeek does; true when it refuses.
func (s *Server) gatekeep(w http.ResponseWriter, r *http.Request, req *request) bool {
	var status int
	var body map[string]any
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case s.script.APIKey != "" && key != s.script.APIKey:
		tail := key
		if len(tail) > 4 {
			tail = tail[len(tail)-4:]
		}
		status, body = http.StatusUnauthorized, map[string]any{"message": "Authentication Fails, Your api key: ****" + tail + " is invalid",
			"type": "authentication_error", "param": nil, "code": "invalid_request_error"}
	case len(s.script.Models) > 0 && !slices.Contains(s.script.Models, req.Model):
		status, body = http.StatusBadRequest, map[string]any{"message": "Model Not Exist", "type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}
	default:
		return false
	}
	if w == nil {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
	return true
}

func sentReasoning(req *request) bool {
	for _, m := range req.Messages {
		if m.ReasoningContent != nil {
			return true
		}
	}
	return false
}

// refusal writes a provider's content-filter refusal.
func refusal(w http.ResponseWriter, shape string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	body := map[string]any{"message": "Content Exists Risk", "type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}
	if shape == RefuseGLM {
		body = map[string]any{"code": "1301", "message": "系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。"}
	}
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}

// replay answers from the recordings; false when it wrote an error.
func (s *Server) replay(w http.ResponseWriter, req *request) (string, bool) {
	if len(req.Messages) < 2 || s.script.ReplayDir == "" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"no scripted response left and no replay recording"}}`)
		return "", false
	}
	user := req.Messages[1].Content
	m1, m2, m3, m4 := stepRE().FindStringSubmatch(user), agentRE().FindStringSubmatch(user), modeRE().FindStringSubmatch(user), roundRE().FindStringSubmatch(user)
	if m1 == nil || m2 == nil || m3 == nil || m4 == nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"cannot tell the step from the prompt"}}`)
		return "", false
	}
	n, _ := strconv.Atoi(m1[2])
	ext := "json"
	if (m2[1] == stepid.ChapterWriter && m3[1] != stepid.ModeFix) || m2[1] == stepid.StyleRefiner {
		ext = "md" // a targeted fix answers JSON replacements
	}
	// The replay layout (internal/agent Replay): chapter-NNN/, volume-VV/, setup/.
	dir := fmt.Sprintf("chapter-%03d", n)
	switch m1[1] {
	case "volume":
		dir = fmt.Sprintf("volume-%02d", n)
	case "setup":
		dir = "setup"
	}
	file := filepath.Join(s.script.ReplayDir, dir, fmt.Sprintf("%s.%s.r%s.%s", m2[1], m3[1], m4[1], ext))
	data, err := os.ReadFile(file)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "no recording " + file}})
		return "", false
	}
	return string(data), true
}

// requestKey names a request's step, mode and round, as its prompt states them.
func requestKey(user string) string {
	var parts []string
	for _, re := range []func() *regexp.Regexp{stepRE, modeRE, roundRE} {
		parts = append(parts, re().FindString(user))
	}
	return strings.Join(parts, "|")
}

// dropDimension removes one dimension from a recorded eval and sets its
// overall to 4.9; a recording that is not an eval is returned as is.
func dropDimension(content, dim string) string {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var ev map[string]any
	if dec.Decode(&ev) != nil {
		return content
	}
	scores, ok := ev["scores"].(map[string]any)
	if !ok {
		return content
	}
	delete(scores, dim)
	ev["overall"] = 4.9
	out, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return content
	}
	return string(out)
}

// message is the answer's content and reasoning as the provider shows them.
func message(provider string, resp *Response) (content, reasoning string) {
	if provider == ProviderOllama && resp.Reasoning != "" {
		return "<think>" + resp.Reasoning + "</think>\n" + resp.Content, ""
	}
	return resp.Content, resp.Reasoning
}

// usage is the provider's usage object (nil: the provider sends none).
func usage(provider string, resp *Response) map[string]any {
	if provider == ProviderOllama {
		return nil
	}
	content, reasoning := message(provider, resp)
	completion := len([]rune(content)) + len([]rune(reasoning))
	u := map[string]any{"prompt_tokens": 100, "completion_tokens": completion, "total_tokens": 100 + completion}
	if provider == ProviderDeepSeek {
		u["prompt_cache_hit_tokens"] = resp.CacheHit
		u["prompt_cache_miss_tokens"] = 100 - resp.CacheHit
		if reasoning != "" {
			u["completion_tokens_details"] = map[string]any{"reasoning_tokens": len([]rune(reasoning))}
		}
	}
	return u
}

// finish is the finish_reason as sent: "null" sends null and "omit"
// leaves the key out (a stream that merely ends with [DONE]).
func finish(resp *Response) any {
	switch resp.Finish {
	case "":
		return "stop"
	case "null", "omit":
		return nil
	}
	return resp.Finish
}

func writeAnswer(w http.ResponseWriter, provider, model string, resp *Response) {
	content, reasoning := message(provider, resp)
	msg := map[string]any{"role": "assistant", "content": content}
	if reasoning != "" {
		msg["reasoning_content"] = reasoning
	}
	out := map[string]any{"id": "fake", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish(resp)}}}
	if u := usage(provider, resp); u != nil {
		out["usage"] = u
	}
	json.NewEncoder(w).Encode(out)
}

// stream answers as server-sent events: reasoning deltas, content deltas,
// the finish_reason, a usage chunk when stream_options.include_usage asks
// for it, then `data: [DONE]` (OpenAI streaming; DeepSeek sends
// ": keep-alive" comments while a request waits).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, provider string, req *request, resp *Response) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	pause := func() bool {
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return false
		case <-time.After(time.Duration(resp.ChunkDelayMS) * time.Millisecond):
			return true
		}
	}
	for i := 0; i < resp.KeepAlives; i++ {
		fmt.Fprint(w, ": keep-alive\n\n")
		if !pause() {
			return
		}
	}
	content, reasoning := message(provider, resp)
	var deltas []map[string]any
	if reasoning != "" {
		deltas = append(deltas, map[string]any{"role": "assistant", "content": nil, "reasoning_content": reasoning})
	}
	for _, part := range split(content, resp.Chunks) {
		deltas = append(deltas, map[string]any{"content": part})
	}
	sent := 0
	chunk := func(v map[string]any) bool {
		if resp.StallAfter > 0 && sent >= resp.StallAfter {
			<-r.Context().Done()
			return false
		}
		sent++
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		return pause()
	}
	base := func() map[string]any {
		return map[string]any{"id": "fake", "object": "chat.completion.chunk", "model": req.Model}
	}
	for _, d := range deltas {
		c := base()
		c["choices"] = []any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}
		if !chunk(c) {
			return
		}
	}
	c := base()
	last := map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish(resp)}
	if resp.Finish == "omit" {
		delete(last, "finish_reason")
	}
	if provider == ProviderKimi {
		// Moonshot sends the usage inside the last choice, whatever
		// stream_options says (earendil-works/pi#2017).
		last["usage"] = usage(provider, resp)
	}
	c["choices"] = []any{last}
	if !chunk(c) {
		return
	}
	if u := usage(provider, resp); u != nil && provider != ProviderKimi && req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		c := base()
		c["choices"] = []any{}
		c["usage"] = u
		if !chunk(c) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// split cuts s into n pieces on rune boundaries.
func split(s string, n int) []string {
	if n <= 0 {
		n = 3
	}
	rs := []rune(s)
	if len(rs) == 0 {
		return []string{""}
	}
	n = min(n, len(rs))
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, string(rs[i*len(rs)/n:(i+1)*len(rs)/n]))
	}
	return out
}

func (s *Server) logRequest(n int, path string, body []byte) {
	if s.log == "" {
		return
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		v = string(body)
	}
	s.writeLog(map[string]any{"n": n, "path": path, "body": v})
}

func (s *Server) writeLog(rec map[string]any) {
	if s.log == "" {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false) // keep <DATA …> readable for assertions
	enc.Encode(rec)
	f, err := os.OpenFile(s.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(line.Bytes())
	f.Close()
}

// lifetime bounds how long a fake serves when nobody stops it.
const lifetime = 5 * time.Minute

// Main runs `fake-llm SCRIPT.json ADDRFILE [REQUESTLOG]`: it serves on
// 127.0.0.1 (random port), writes the base URL (…/v1) to ADDRFILE, and
// stops on SIGTERM/SIGINT or after Lifetime.
func Main() int {
	if len(os.Args) < 3 || len(os.Args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: fake-llm SCRIPT.json ADDRFILE [REQUESTLOG]")
		return 2
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := &Server{}
	if err := json.Unmarshal(data, &s.script); err != nil {
		fmt.Fprintln(os.Stderr, "script:", err)
		return 1
	}
	if len(os.Args) == 4 {
		s.log, _ = filepath.Abs(os.Args[3])
	}
	s.script.ReplayDir = os.ExpandEnv(s.script.ReplayDir)
	if s.script.ReplayDir != "" && !filepath.IsAbs(s.script.ReplayDir) {
		s.script.ReplayDir = filepath.Join(filepath.Dir(os.Args[1]), s.script.ReplayDir)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	url := fmt.Sprintf("http://%s/v1", ln.Addr().String())
	tmp := os.Args[2] + ".tmp"
	if err := os.WriteFile(tmp, []byte(url), 0o644); err != nil || os.Rename(tmp, os.Args[2]) != nil {
		fmt.Fprintln(os.Stderr, "cannot write", os.Args[2])
		return 1
	}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case <-time.After(lifetime):
	}
	srv.Close()
	return 0
}

// New makes a server handler for a script (for Go tests).
func New(script Script, requestLog string) *Server { return &Server{script: script, log: requestLog} }
