package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// OpenAI talks to any OpenAI-compatible chat-completions endpoint
// (DeepSeek, Qwen, Moonshot, Ollama, vLLM, llama.cpp server, …).
type OpenAI struct {
	BaseURL string // API base including its version path, e.g. http://127.0.0.1:11434/v1
	APIKey  string
	Model   string
	Getenv  func(string) string // per-agent model overrides
	Root    *project.Root
	Client  *http.Client
	Retries int           // extra attempts on 429, 5xx and network errors
	Backoff time.Duration // first retry delay, doubled each time

	previous string // the last answer, quoted in a re-ask
}

// NewOpenAI configures the backend from the environment:
// NOVEL_LLM_BASE_URL, NOVEL_LLM_API_KEY, NOVEL_LLM_MODEL (required),
// NOVEL_LLM_TIMEOUT (seconds, default 300), NOVEL_LLM_RETRIES (default 3),
// NOVEL_LLM_BACKOFF_MS (default 1000).
func NewOpenAI(root *project.Root, getenv func(string) string) (*OpenAI, error) {
	o := &OpenAI{BaseURL: strings.TrimRight(getenv("NOVEL_LLM_BASE_URL"), "/"), APIKey: getenv("NOVEL_LLM_API_KEY"),
		Model: getenv("NOVEL_LLM_MODEL"), Getenv: getenv, Root: root, Retries: 3, Backoff: time.Second}
	for _, need := range []struct{ name, val, zh, en string }{
		{"NOVEL_LLM_BASE_URL", o.BaseURL, "设置为 API 地址（含版本路径），如 https://api.deepseek.com/v1 或 http://127.0.0.1:11434/v1",
			"set it to the API base including the version path, e.g. https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1"},
		{"NOVEL_LLM_API_KEY", o.APIKey, "设置 API 密钥（本地服务如 Ollama 可填任意值）", "set the API key (any value for local servers such as Ollama)"},
		{"NOVEL_LLM_MODEL", o.Model, "设置模型名，如 deepseek-chat", "set the model name, e.g. deepseek-chat"},
	} {
		if need.val == "" {
			return nil, errs.Newf(errs.Agent, "未设置 %s", "%s is not set", need.name).With("env", need.name).Hint(need.zh, need.en)
		}
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, errs.Newf(errs.Agent, "NOVEL_LLM_BASE_URL=%q 不是 http(s) 地址", "NOVEL_LLM_BASE_URL=%q is not an http(s) URL", o.BaseURL).
			With("env", "NOVEL_LLM_BASE_URL").Hint("例如 http://127.0.0.1:11434/v1", "for example http://127.0.0.1:11434/v1")
	}
	timeout, err := envInt(getenv, "NOVEL_LLM_TIMEOUT", 300)
	if err != nil {
		return nil, err
	}
	if o.Retries, err = envInt(getenv, "NOVEL_LLM_RETRIES", 3); err != nil {
		return nil, err
	}
	ms, err := envInt(getenv, "NOVEL_LLM_BACKOFF_MS", 1000)
	if err != nil {
		return nil, err
	}
	o.Backoff = time.Duration(ms) * time.Millisecond
	o.Client = &http.Client{Timeout: time.Duration(timeout) * time.Second}
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
			With("key", name).With("source", "env")
	}
	return n, nil
}

// Name implements Backend.
func (o *OpenAI) Name() string { return "openai" }

// Reasks implements Backend: one re-ask quoting the validation error.
func (o *OpenAI) Reasks() int { return 1 }

// ModelFor picks the model of an agent: NOVEL_LLM_MODEL_<AGENT> (the
// secondary judge tries NOVEL_LLM_MODEL_QUALITY_JUDGE_SECONDARY first),
// else NOVEL_LLM_MODEL.
func ModelFor(getenv func(string) string, agentName, mode, def string) string {
	key := "NOVEL_LLM_MODEL_" + strings.ToUpper(strings.ReplaceAll(agentName, "-", "_"))
	if mode == "secondary" {
		if m := getenv(key + "_SECONDARY"); m != "" {
			return m
		}
	}
	if m := getenv(key); m != "" {
		return m
	}
	return def
}

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Ask implements Backend.
func (o *OpenAI) Ask(p *Packet, feedback error) (*Reply, error) {
	msgs, err := RenderPrompt(o.Root, p, feedback, o.previous)
	if err != nil {
		return nil, err
	}
	model := ModelFor(o.Getenv, p.Agent.Name, p.Agent.Mode, o.Model)
	body, _ := json.Marshal(chatRequest{Model: model, Messages: msgs})
	url := o.BaseURL + "/chat/completions"
	var last error
	for attempt := 0; attempt <= o.Retries; attempt++ {
		if attempt > 0 {
			time.Sleep(o.Backoff << (attempt - 1))
		}
		resp, retry, err := o.post(url, body)
		if err != nil {
			last = err
			if retry {
				continue
			}
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, o.fail(url, model, "响应中没有 choices", "the response has no choices", nil)
		}
		text := resp.Choices[0].Message.Content
		o.previous = text
		return &Reply{Text: cleanAnswer(text, Format(p.Agent.Name)), Source: "model " + model, Model: model,
			Tokens: Tokens{Prompt: resp.Usage.PromptTokens, Completion: resp.Usage.CompletionTokens}}, nil
	}
	return nil, last
}

// post sends one request; retry says whether the failure is transient.
func (o *OpenAI) post(url string, body []byte) (*chatResponse, bool, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, false, o.fail(url, "", "无法构造请求："+err.Error(), "cannot build the request: "+err.Error(), nil)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+o.APIKey)
	res, err := o.Client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, true, o.fail(url, "", "请求超时", "the request timed out", nil).Hint(
				"模型响应太慢：调大 NOVEL_LLM_TIMEOUT（秒）或换用更快的模型", "the model is too slow: raise NOVEL_LLM_TIMEOUT (seconds) or use a faster model")
		}
		return nil, true, o.fail(url, "", "无法连接："+err.Error(), "cannot reach the endpoint: "+err.Error(), nil).Hint(
			"检查 NOVEL_LLM_BASE_URL 和网络，确认服务已启动", "check NOVEL_LLM_BASE_URL and the network; is the server running?")
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return nil, true, o.fail(url, "", "读取响应失败："+err.Error(), "cannot read the response: "+err.Error(), nil)
	}
	var cr chatResponse
	jsonErr := json.Unmarshal(data, &cr)
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
		return nil, true, o.fail(url, "", fmt.Sprintf("服务返回 HTTP %d", res.StatusCode), fmt.Sprintf("the server answered HTTP %d", res.StatusCode), &cr).
			With("status", res.StatusCode)
	}
	if res.StatusCode != http.StatusOK {
		return nil, false, o.fail(url, "", fmt.Sprintf("模型返回错误 HTTP %d", res.StatusCode), fmt.Sprintf("the model answered with an error, HTTP %d", res.StatusCode), &cr).
			With("status", res.StatusCode).Hint("检查模型名与 API 密钥（NOVEL_LLM_MODEL、NOVEL_LLM_API_KEY）", "check the model name and API key (NOVEL_LLM_MODEL, NOVEL_LLM_API_KEY)")
	}
	if jsonErr != nil {
		return nil, false, o.fail(url, "", "响应不是 JSON", "the response is not JSON", nil)
	}
	return &cr, false, nil
}

func (o *OpenAI) fail(url, model, zh, en string, cr *chatResponse) *errs.Error {
	e := errs.New(errs.Agent, "调用 "+url+" 失败："+zh, "call to "+url+" failed: "+en).With("url", url).
		Hint("稍后重试；持续失败时检查服务状态", "retry later; if it keeps failing, check the service")
	if model != "" {
		e.With("model", model)
	}
	if cr != nil && cr.Error != nil && cr.Error.Message != "" {
		e.With("server_message", cr.Error.Message)
	}
	return e
}
