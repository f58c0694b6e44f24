package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/provider"
	"github.com/novelsuite/novel/internal/settings"
)

// ExitTransient is the executor's exit status for a failure that may pass
// by itself (rate limit, outage, timeout): EX_TEMPFAIL, so the pipeline
// waits and retries (SPEC §18).
const ExitTransient = 75

// response is what one request produced.
type response struct {
	Content   string
	Reasoning string
	Finish    string
	Usage     *usageFields
	Streamed  bool // the answer came as server-sent events
}

// usageFields are the usage object of OpenAI-compatible servers, with
// DeepSeek's cache fields (prompt_cache_hit_tokens/prompt_cache_miss_tokens,
// api-docs.deepseek.com "context caching"; prism-php/prism#1021) and
// OpenAI/DashScope's prompt_tokens_details.cached_tokens.
type usageFields struct {
	PromptTokens        *int `json:"prompt_tokens"`
	CompletionTokens    *int `json:"completion_tokens"`
	PromptCacheHit      *int `json:"prompt_cache_hit_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Status  json.RawMessage `json:"status"`
}

type chatChoice struct {
	Message struct {
		Content          *string `json:"content"`
		ReasoningContent string  `json:"reasoning_content"`
		Reasoning        string  `json:"reasoning"`
	} `json:"message"`
	Delta struct {
		Content          *string `json:"content"`
		ReasoningContent string  `json:"reasoning_content"`
		Reasoning        string  `json:"reasoning"`
	} `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	// Usage inside the choice: Moonshot (Kimi) streams put the usage in
	// choices[0].usage of the last chunk (earendil-works/pi#2017).
	Usage *usageFields `json:"usage"`
}

type chatResponse struct {
	Choices []chatChoice `json:"choices"`
	Usage   *usageFields `json:"usage"`
	Error   *errorObject `json:"error"`
	// vLLM's ErrorResponse puts the error at the top level:
	// {"object":"error","message":…,"type":…,"code":400}
	// (vllm-project/vllm#20409, ogx-ai/ogx#4534).
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// errorObj is the response's error object, wherever the server put it.
func (cr *chatResponse) errorObj() *errorObject {
	if cr.Error != nil {
		return cr.Error
	}
	if cr.Object == "error" {
		return &errorObject{Message: cr.Message, Type: cr.Type, Code: cr.Code}
	}
	return nil
}

// failure is one request's failure: transient ones are retried.
type failure struct {
	err        *errs.Error
	transient  bool
	timeout    bool
	retryAfter time.Duration // the server's Retry-After, 0 when absent
	jsonRefuse bool          // a 400 about response_format
}

// complete sends req, retrying transient failures: Retry-After when the
// server gives one (capped), else exponential backoff; a request that
// timed out is retried at most once; json_mode auto drops
// response_format once when the server refuses it.
func (o *OpenAI) complete(req *Request, kind string) (*response, error) {
	timedOut := false
	for attempt := 0; ; attempt++ {
		res, f := o.send(req, kind)
		if f == nil {
			return res, nil
		}
		if f.jsonRefuse && req.JSON && o.LLM.JSONMode != settings.JSONOn {
			o.jsonDenied = true
			req = req.clone()
			delete(req.Body, "response_format")
			req.JSON = false
			continue
		}
		if !f.transient || attempt >= o.Retries || (f.timeout && timedOut) {
			// A generation slower than the total limit will be as slow next
			// time: only an idle server or a refused/failed call is worth
			// waiting out (exit 75); a total timeout needs a setting change.
			if f.transient && f.err.Details["timeout"] != "total" {
				f.err.WithExit(ExitTransient).With("transient", true).With("attempts", attempt+1)
			}
			return nil, f.err
		}
		timedOut = timedOut || f.timeout
		wait := o.Backoff << attempt
		if f.retryAfter > 0 {
			wait = min(f.retryAfter, o.RetryAfterMax)
		}
		o.Sleep(wait)
	}
}

// send performs one HTTP request and records its usage line.
func (o *OpenAI) send(req *Request, kind string) (*response, *failure) {
	url := o.BaseURL + "/chat/completions"
	body, err := json.Marshal(req.Body)
	if err != nil {
		return nil, &failure{err: o.fail(url, req.Model, "无法编码请求："+err.Error(), "cannot encode the request: "+err.Error())}
	}
	total := time.Duration(o.LLM.TimeoutS) * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	var idleFired atomic.Bool
	var idle *time.Timer
	if req.Stream {
		idleDur := time.Duration(o.LLM.IdleTimeoutS) * time.Second
		idle = time.AfterFunc(idleDur, func() { idleFired.Store(true); cancel() })
		defer idle.Stop()
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{err: o.fail(url, req.Model, "无法构造请求："+err.Error(), "cannot build the request: "+err.Error())}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+o.APIKey)
	if req.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	}
	res, f := o.roundTrip(hr, req, url, idle, &idleFired)
	if f != nil && f.timeout && ctx.Err() != nil && !idleFired.Load() {
		f.err.With("timeout", "total")
	}
	if f == nil && o.Profile.FinishKind(res.Finish) == provider.Transient {
		// The provider failed mid-generation (DeepSeek's
		// insufficient_system_resource, GLM's network_error): asked again
		// like a 503, never taken as an answer.
		f = &failure{err: o.fail(url, req.Model, "服务在生成中途出错，生成被中断（finish_reason="+res.Finish+"）",
			"the provider failed and interrupted the generation (finish_reason="+res.Finish+")").With("finish_reason", res.Finish), transient: true}
	}
	if err := o.recordUsage(req, kind, res, f); err != nil {
		return nil, &failure{err: errs.Coerce(err)}
	}
	return res, f
}

func (o *OpenAI) roundTrip(hr *http.Request, req *Request, url string, idle *time.Timer, idleFired *atomic.Bool) (*response, *failure) {
	resp, err := o.Client.Do(hr)
	if err != nil {
		return nil, o.netFailure(url, req, err, idleFired.Load())
	}
	defer resp.Body.Close()
	var retryAfter time.Duration
	if s := resp.Header.Get("Retry-After"); s != "" {
		retryAfter = parseRetryAfter(s)
	}
	isSSE := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if resp.StatusCode == http.StatusOK && isSSE {
		res, f := o.readStream(resp, req, url, idle)
		if f != nil && f.timeout && idleFired.Load() {
			f.err = o.timeoutErr(url, req, true)
		}
		return res, f
	}
	data, err := readLimited(resp.Body)
	if err != nil {
		return nil, o.netFailure(url, req, err, idleFired.Load())
	}
	var cr chatResponse
	jsonErr := json.Unmarshal(data, &cr)
	if resp.StatusCode != http.StatusOK {
		return nil, o.statusFailure(url, req, resp.StatusCode, cr.errorObj(), retryAfter)
	}
	if jsonErr != nil {
		return nil, &failure{err: o.fail(url, req.Model, "响应不是 JSON", "the response is not JSON")}
	}
	if eo := cr.errorObj(); eo != nil && len(cr.Choices) == 0 {
		// HTTP 200 with an error object (proxies and gateways such as
		// OpenRouter and one-api do this): judged by its own status.
		return nil, o.statusFailure(url, req, errorStatus(eo), eo, retryAfter)
	}
	if len(cr.Choices) == 0 {
		return nil, &failure{err: o.fail(url, req.Model, "响应中没有 choices", "the response has no choices")}
	}
	ch := cr.Choices[0]
	out := &response{Usage: cr.Usage, Reasoning: ch.Message.ReasoningContent + ch.Message.Reasoning}
	if out.Usage == nil {
		out.Usage = ch.Usage
	}
	if ch.Message.Content != nil {
		out.Content = *ch.Message.Content
	}
	if ch.FinishReason != nil {
		out.Finish = *ch.FinishReason
	}
	return out, nil
}

// readStream reads an SSE chat-completions stream: content and reasoning
// deltas, finish_reason, usage (in the final chunk with include_usage),
// until `data: [DONE]`. Every line received, reasoning deltas and
// keep-alive comments included, resets the idle timer: a reasoner that
// thinks for minutes is alive, a server that sends nothing is not.
func (o *OpenAI) readStream(resp *http.Response, req *Request, url string, idle *time.Timer) (*response, *failure) {
	idleDur := time.Duration(o.LLM.IdleTimeoutS) * time.Second
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	var content, reasoning strings.Builder
	out := &response{Streamed: true}
	done := false
	for sc.Scan() {
		idle.Reset(idleDur)
		line := sc.Text()
		if !strings.HasPrefix(line, "data:") {
			continue // comments (": keep-alive"), event names, blank separators
		}
		data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk chatResponse
		if json.Unmarshal([]byte(data), &chunk) != nil {
			return nil, &failure{err: o.fail(url, req.Model, "流中有无法解析的数据块", "the stream has a chunk that is not JSON").With("chunk", truncate(data, 200)), transient: true}
		}
		if eo := chunk.errorObj(); eo != nil {
			return nil, o.statusFailure(url, req, errorStatus(eo), eo, 0)
		}
		if chunk.Usage != nil {
			out.Usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if chunk.Usage == nil && ch.Usage != nil {
				out.Usage = ch.Usage
			}
			if ch.Delta.Content != nil {
				content.WriteString(*ch.Delta.Content)
			}
			reasoning.WriteString(ch.Delta.ReasoningContent + ch.Delta.Reasoning)
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				out.Finish = *ch.FinishReason
			}
		}
	}
	out.Content, out.Reasoning = content.String(), reasoning.String()
	if err := sc.Err(); err != nil {
		return out, o.netFailure(url, req, err, false)
	}
	if !done && out.Finish == "" {
		return out, &failure{err: o.fail(url, req.Model, "流在结束前中断（没有 finish_reason 与 [DONE]）", "the stream ended early (no finish_reason and no [DONE])"), transient: true}
	}
	return out, nil
}

func (o *OpenAI) netFailure(url string, req *Request, err error, idleFired bool) *failure {
	if idleFired {
		return &failure{err: o.timeoutErr(url, req, true), transient: true, timeout: true}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &failure{err: o.timeoutErr(url, req, false), transient: true, timeout: true}
	}
	return &failure{err: o.fail(url, req.Model, "无法连接："+err.Error(), "cannot reach the endpoint: "+err.Error()).Hint(
		"检查 NOVEL_LLM_BASE_URL 和网络，确认服务已启动", "check NOVEL_LLM_BASE_URL and the network; is the server running?"), transient: true}
}

func (o *OpenAI) timeoutErr(url string, req *Request, idle bool) *errs.Error {
	if idle {
		return o.fail(url, req.Model, fmt.Sprintf("请求超时：%d 秒内没有收到任何数据", o.LLM.IdleTimeoutS),
			fmt.Sprintf("the request timed out: no data for %d s", o.LLM.IdleTimeoutS)).With("timeout", "idle").Hint(
			"服务无响应：检查服务状态，或调大 llm.idle_timeout_s（NOVEL_LLM_IDLE_TIMEOUT）", "the server sends nothing: check it, or raise llm.idle_timeout_s (NOVEL_LLM_IDLE_TIMEOUT)")
	}
	return o.fail(url, req.Model, fmt.Sprintf("请求超时（总时限 %d 秒）", o.LLM.TimeoutS), fmt.Sprintf("the request timed out (total limit %d s)", o.LLM.TimeoutS)).
		With("timeout", "total").Hint("模型响应太慢：调大 llm.timeout_s（NOVEL_LLM_TIMEOUT，秒）、开启 llm.stream 或换用更快的模型",
		"the model is too slow: raise llm.timeout_s (NOVEL_LLM_TIMEOUT, seconds), turn on llm.stream, or use a faster model")
}

// statusFailure classifies an error status: 429 and 5xx are transient;
// a 400 the provider profile reads as a JSON-mode refusal lets json_mode
// auto drop response_format; a refusal shape of the profile (DashScope
// data_inspection_failed, DeepSeek "Content Exists Risk", GLM 1301) is
// the content filter, never retried.
func (o *OpenAI) statusFailure(url string, req *Request, status int, eo *errorObject, retryAfter time.Duration) *failure {
	msg := ""
	if eo != nil {
		msg = eo.Message
	}
	low := strings.ToLower(msg + " " + string(rawCode(eo)))
	if o.Profile.Refused(msg, codeString(eo)) {
		e := contentFilterErr(req.Agent, req.Model, "HTTP "+strconv.Itoa(status))
		e.With("status", status).With("server_message", msg)
		return &failure{err: e}
	}
	broke := o.Profile.OutOfBalance(codeString(eo))
	transient := !broke && (status == http.StatusTooManyRequests || status >= 500 || status == http.StatusRequestTimeout)
	e := o.fail(url, req.Model, fmt.Sprintf("服务返回 HTTP %d", status), fmt.Sprintf("the server answered HTTP %d", status)).With("status", status)
	if msg != "" {
		e.With("server_message", msg)
	}
	switch {
	case transient:
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Hint("检查 NOVEL_LLM_API_KEY（服务的原话见 server_message）", "check NOVEL_LLM_API_KEY (the server's own words are in server_message)")
	case status == http.StatusPaymentRequired || broke:
		e.Hint("账户余额不足：充值后重新运行该步骤", "the account is out of balance: top it up and run the step again")
	case status == http.StatusNotFound:
		e.Hint("检查模型名与 NOVEL_LLM_BASE_URL（须含版本路径，如 …/v1）", "check the model name and NOVEL_LLM_BASE_URL (it must include the version path, e.g. …/v1)")
	default:
		e.Hint("检查模型名、API 密钥与 settings.json 的 llm 设置（服务的原话见 server_message）",
			"check the model name, the API key and settings.json llm (the server's own words are in server_message)")
	}
	return &failure{err: e, transient: transient, retryAfter: retryAfter,
		jsonRefuse: (status == 400 || status == 422) && o.Profile.JSONRefused(low)}
}

// codeString is the error object's code as text ("1301" or 1301 → 1301).
func codeString(eo *errorObject) string {
	if eo == nil {
		return ""
	}
	var s string
	if json.Unmarshal(eo.Code, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(eo.Code))
}

func rawCode(eo *errorObject) []byte {
	if eo == nil {
		return nil
	}
	return append(append([]byte{}, eo.Code...), eo.Type...)
}

// errorStatus reads the HTTP status an error object carries in a 200
// body: a numeric code or status, else rate-limit / overload wording.
func errorStatus(eo *errorObject) int {
	for _, raw := range []json.RawMessage{eo.Code, eo.Status} {
		var n int
		if json.Unmarshal(raw, &n) == nil && n >= 400 {
			return n
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if n, err := strconv.Atoi(s); err == nil && n >= 400 {
				return n
			}
		}
	}
	low := strings.ToLower(eo.Message + " " + eo.Type + " " + string(eo.Code))
	switch {
	case strings.Contains(low, "rate") || strings.Contains(low, "throttl") || strings.Contains(low, "too many"):
		return http.StatusTooManyRequests
	case strings.Contains(low, "overload") || strings.Contains(low, "timeout") || strings.Contains(low, "unavailable") || strings.Contains(low, "server_error"):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// parseRetryAfter reads delta-seconds or an HTTP date (RFC 9110 §10.2.3).
func parseRetryAfter(s string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(s); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

func (o *OpenAI) fail(url, model, zh, en string) *errs.Error {
	e := errs.New(errs.Agent, "调用 "+url+" 失败："+zh, "call to "+url+" failed: "+en).With("url", url).
		Hint("稍后重试；持续失败时检查服务状态", "retry later; if it keeps failing, check the service")
	if model != "" {
		e.With("model", model)
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
