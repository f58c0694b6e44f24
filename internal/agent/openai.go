package agent

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/provider"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// OpenAI talks to any OpenAI-compatible chat-completions endpoint
// (DeepSeek, Qwen, Moonshot, Ollama, vLLM, llama.cpp server, …).
type OpenAI struct {
	BaseURL string // API base including its version path, e.g. http://127.0.0.1:11434/v1
	APIKey  string
	Model   string
	Getenv  func(string) string // per-agent model overrides
	Root    *project.Root
	LLM     settings.LLM // request settings (SPEC §18)
	Client  *http.Client
	Retries int           // extra attempts on 429, 5xx and network errors
	Backoff time.Duration // first retry delay, doubled each time
	// RetryAfterMax caps a server's Retry-After (SPEC §18: 120 s).
	RetryAfterMax time.Duration
	// Sleep waits between retries (tests record the waits instead).
	Sleep func(time.Duration)
	// Record receives one usage line per HTTP request, failed ones too.
	Record func(any) error
	// Warn prints a warning (missing usage) on stderr.
	Warn func(zh, en string)
	// Profile is the provider's table (SPEC §26): llm.provider, else
	// detected from the base URL.
	Profile *provider.Profile

	previous   string // the last answer, quoted in a re-ask
	tokens     Tokens // known counts of this Ask's requests
	jsonDenied bool   // the server refused response_format (json_mode auto)
	noted      map[string]bool
}

// note prints a one-line note once per process (a fixed temperature, a
// capped max_tokens, a thinking switch the provider lacks).
func (o *OpenAI) note(key, zh, en string) {
	if o.noted[key] || o.Warn == nil {
		return
	}
	if o.noted == nil {
		o.noted = map[string]bool{}
	}
	o.noted[key] = true
	o.Warn(zh, en)
}

// NewOpenAI configures the backend from settings.json "llm" and the
// environment: NOVEL_LLM_BASE_URL, NOVEL_LLM_API_KEY, NOVEL_LLM_MODEL,
// NOVEL_LLM_RETRIES (default 3), NOVEL_LLM_BACKOFF_MS (default 1000),
// NOVEL_LLM_RETRY_AFTER_MAX (seconds, default 120), and the overrides
// settings.LoadLLM reads (NOVEL_LLM_TIMEOUT, NOVEL_LLM_IDLE_TIMEOUT,
// NOVEL_LLM_STREAM, NOVEL_LLM_JSON_MODE).
func NewOpenAI(root *project.Root, getenv func(string) string) (*OpenAI, error) {
	o, err := OpenAIConfig(root, getenv)
	if err != nil {
		return nil, err
	}
	for _, need := range []struct{ name, val, zh, en string }{
		{"NOVEL_LLM_BASE_URL", o.BaseURL, "设置为 API 地址（含版本路径），如 https://api.deepseek.com/v1 或 http://127.0.0.1:11434/v1",
			"set it to the API base including the version path, e.g. https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1"},
		{"NOVEL_LLM_API_KEY", o.APIKey, "设置 API 密钥（本地服务如 Ollama 可填任意值）", "set the API key (any value for local servers such as Ollama)"},
	} {
		if need.val == "" {
			return nil, errs.Newf(errs.Agent, "未设置 %s", "%s is not set", need.name).With("env", need.name).Hint(need.zh, need.en)
		}
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, errs.Newf(errs.Agent, "NOVEL_LLM_BASE_URL=%q 不是 http(s) 地址", "NOVEL_LLM_BASE_URL=%q is not an http(s) URL", o.BaseURL).
			With("env", "NOVEL_LLM_BASE_URL").Hint("例如 http://127.0.0.1:11434/v1", "for example http://127.0.0.1:11434/v1")
	}
	return o, nil
}

// OpenAIConfig is the backend's configuration without the checks a real
// call needs (base URL, API key): enough to render requests (--dry-run).
func OpenAIConfig(root *project.Root, getenv func(string) string) (*OpenAI, error) {
	llm, err := settings.LoadLLM(root, getenv)
	if err != nil {
		return nil, err
	}
	o := &OpenAI{BaseURL: strings.TrimRight(getenv("NOVEL_LLM_BASE_URL"), "/"), APIKey: getenv("NOVEL_LLM_API_KEY"),
		Model: getenv("NOVEL_LLM_MODEL"), Getenv: getenv, Root: root, LLM: llm, Sleep: time.Sleep}
	o.Profile = provider.Resolve(llm.Provider, o.BaseURL)
	if o.Retries, err = envInt(getenv, "NOVEL_LLM_RETRIES", 3); err != nil {
		return nil, err
	}
	ms, err := envInt(getenv, "NOVEL_LLM_BACKOFF_MS", 1000)
	if err != nil {
		return nil, err
	}
	o.Backoff = time.Duration(ms) * time.Millisecond
	capS, err := envInt(getenv, "NOVEL_LLM_RETRY_AFTER_MAX", 120)
	if err != nil {
		return nil, err
	}
	o.RetryAfterMax = time.Duration(capS) * time.Second
	// Timeouts are per request (total and idle contexts), not per client.
	o.Client = &http.Client{}
	return o, nil
}

func envInt(getenv func(string) string, name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errs.Newf(errs.Config, "%s=%q 必须是非负整数", "%s=%q must be a non-negative integer", name, v).
			With("key", name).With("source", "env "+name)
	}
	return n, nil
}

// Name implements Backend.
func (o *OpenAI) Name() string { return "openai" }

// SetRecorder implements PerRequest.
func (o *OpenAI) SetRecorder(rec func(any) error) { o.Record = rec }

// Reasks implements Backend: one re-ask quoting the validation error.
func (o *OpenAI) Reasks() int { return 1 }

// ModelFor picks the model of an agent: NOVEL_LLM_MODEL_<AGENT> (the
// secondary judge tries NOVEL_LLM_MODEL_QUALITY_JUDGE_SECONDARY first),
// else def.
func ModelFor(getenv func(string) string, agentName, mode, def string) string {
	key := "NOVEL_LLM_MODEL_" + strings.ToUpper(strings.ReplaceAll(agentName, "-", "_"))
	if mode == stepid.RoleSecondary {
		if m := getenv(key + "_SECONDARY"); m != "" {
			return m
		}
	}
	if m := getenv(key); m != "" {
		return m
	}
	return def
}

// Ask implements Backend: one answer, continued when the server cut it
// (Markdown: up to 2 continuations joined; JSON: asked again once with a
// larger max_tokens up to the model's output limit, and when the limit is
// reached a summarizer bundle is asked in two parts and a contracts batch
// in two halves). A finish reason the provider table does not know, a
// missing one and null count as cut (SPEC §26).
func (o *OpenAI) Ask(p *Packet, feedback error) (*Reply, error) {
	msgs, err := RenderPrompt(o.Root, p, feedback, o.previous)
	if err != nil {
		return nil, err
	}
	o.tokens = Tokens{}
	text, req, err := o.answer(p, msgs, feedback != nil)
	if err != nil {
		return nil, err
	}
	o.previous = text
	return &Reply{Text: []byte(text), Source: "model " + req.Model, Model: req.Model, Tokens: o.tokens, Live: true}, nil
}

// answer asks for msgs and returns the whole answer text.
func (o *OpenAI) answer(p *Packet, msgs []Message, reask bool) (string, *Request, error) {
	req, err := o.Request(p, msgs)
	if err != nil {
		return "", nil, err
	}
	kind := "ask"
	if reask {
		kind = "reask"
	}
	res, err := o.complete(req, kind)
	if err != nil {
		return "", nil, err
	}
	if o.jsonDenied && req.JSON {
		// json_mode auto dropped response_format: so do follow-ups.
		delete(req.Body, "response_format")
		req.JSON = false
	}
	text := StripThink(res.Content)
	switch p.Format() {
	case FormatMarkdown:
		for n := 0; n < 2 && o.cut(res); n++ {
			cont := req.clone()
			cont.Body["messages"] = append(append([]Message{}, msgs...),
				Message{Role: "assistant", Content: text},
				Message{Role: "user", Content: continuePrompt})
			if res, err = o.complete(cont, "continuation"); err != nil {
				return "", nil, err
			}
			text += cleanContinuation(res.Content)
		}
	default:
		if o.cut(res) {
			more := req.MaxTokens * 2
			if req.Limit > 0 {
				more = min(more, req.Limit)
			}
			if more > req.MaxTokens {
				again := req.clone()
				again.Body["max_tokens"] = more
				again.MaxTokens = more
				if res, err = o.complete(again, "retry_max_tokens"); err != nil {
					return "", nil, err
				}
				req = again
				text = StripThink(res.Content)
			}
		}
		if o.cut(res) && req.Limit > 0 && req.MaxTokens >= req.Limit {
			// At the model's output limit: a larger max_tokens would be
			// refused (deepseek-chat: HTTP 400), so the work is split.
			if split, ok, err := o.split(p, msgs, req); ok || err != nil {
				return split, req, err
			}
		}
	}
	if err := o.finishErr(p, req, res, text); err != nil {
		return "", nil, err
	}
	return text, req, nil
}

// cut reports whether a response is unfinished: its finish reason is
// truncation, unknown, missing or null.
func (o *OpenAI) cut(res *response) bool {
	return o.Profile.FinishKind(res.Finish) == provider.Truncated
}

// continuePrompt asks for the rest of a chapter cut at max_tokens.
const continuePrompt = "你的输出在上限处被截断了。请从断开处继续写完本章：不要重复已写内容，不要加标题或任何说明，直接接着写。"

// finishErr turns what the last response's finish_reason says into an
// error: still truncated, refused by the content filter, or empty.
func (o *OpenAI) finishErr(p *Packet, req *Request, res *response, text string) error {
	reason := res.Finish
	if reason == "" {
		reason = "null"
	}
	switch o.Profile.FinishKind(res.Finish) {
	case provider.Truncated:
		hintZh, hintEn := "在 settings.json 的 llm.roles."+p.Agent.Name+".max_tokens 调大输出上限，或换用输出上限更大的模型",
			"raise llm.roles."+p.Agent.Name+".max_tokens in settings.json, or use a model with a larger output limit"
		if req.Limit > 0 && req.MaxTokens >= req.Limit {
			hintZh = "模型 " + req.Model + " 的输出上限是 " + strconv.Itoa(req.Limit) + "：换用输出上限更大的模型（llm.roles." + p.Agent.Name + ".model），或缩小这一步要写的内容"
			hintEn = "the output limit of " + req.Model + " is " + strconv.Itoa(req.Limit) + ": use a model with a larger output limit (llm.roles." + p.Agent.Name + ".model), or make this step's output smaller"
		}
		return errs.Newf(errs.Agent, "%s 的输出被截断（finish_reason=%s，max_tokens=%d），再次请求后仍未写完，未写入任何文件",
			"the output of %s was truncated (finish_reason=%s, max_tokens=%d) and still incomplete when asked again; nothing was written", p.Agent.Name, reason, req.MaxTokens).
			With("agent", p.Agent.Name).With("model", req.Model).With("finish_reason", reason).With("truncated", true).
			Hint(hintZh, hintEn)
	case provider.Filtered:
		return contentFilterErr(p.Agent.Name, req.Model, "finish_reason="+reason)
	}
	if strings.TrimSpace(text) == "" && res.Reasoning != "" {
		return errs.Newf(errs.Agent, "%s 的回答只有思考内容，正文为空（推理用完了额度）", "the answer of %s has reasoning but empty content (the reasoning used up the budget)", p.Agent.Name).
			With("agent", p.Agent.Name).With("model", req.Model).
			Hint("调大 llm.roles."+p.Agent.Name+".max_tokens，或用 llm.roles."+p.Agent.Name+".thinking: \"off\" 关闭思考",
				"raise llm.roles."+p.Agent.Name+".max_tokens, or turn thinking off with llm.roles."+p.Agent.Name+".thinking: \"off\"")
	}
	return nil
}

func contentFilterErr(agentName, model, why string) *errs.Error {
	return errs.Newf(errs.Agent, "%s 的请求被服务的内容审核拦截（%s）", "the request of %s was blocked by the provider's content filter (%s)", agentName, why).
		With("agent", agentName).With("model", model).With("content_filter", true).
		Hint("缓和该章的暴力或敏感描写（修改大纲或章节契约）后重试，或换用审核较宽松的模型",
			"soften the violent or sensitive scene (edit the outline or chapter contract) and retry, or switch to a model with a less strict filter")
}

// readLimited reads at most 32 MiB of a body.
func readLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 32<<20))
}
