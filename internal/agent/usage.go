package agent

import "math"

// RequestUsage is the run-log line of one HTTP request to a model (SPEC
// §18): re-asks, continuations, failed and timed-out requests each get
// one. Counts the server did not report are null, never 0.
type RequestUsage struct {
	Model            string `json:"model"`
	Request          string `json:"request"`          // ask, reask, continuation, retry_max_tokens
	Outcome          string `json:"outcome"`          // ok, timeout_idle, timeout_total, or the error code
	Status           int    `json:"status,omitempty"` // the HTTP status of a failed request
	FinishReason     string `json:"finish_reason,omitempty"`
	PromptTokens     *int   `json:"prompt_tokens"`
	CompletionTokens *int   `json:"completion_tokens"`
	CacheHitTokens   *int   `json:"cache_hit_tokens"`
	ReasoningTokens  *int   `json:"reasoning_tokens"`
	// UsageEstimated marks counts the server did not report, estimated
	// from the request and answer text (SPEC §26, §19's formula).
	UsageEstimated bool  `json:"usage_estimated,omitempty"`
	Cost           *Cost `json:"cost"`
	// Tokens repeats the known counts under the keys the pipeline sums
	// per attempt (prompt, completion, cache_hit, reasoning).
	Tokens map[string]int `json:"tokens,omitempty"`
}

// Cost is a request's price from settings.json llm.prices.{model}.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// recordUsage builds and records the usage line of one request. An
// answer without usage (Ollama's /v1 route reports none in some versions
// and modes) is estimated and marked usage_estimated; a request that got
// no answer (refused, timed out) keeps null counts. A run log that
// cannot be written fails the request: outputs never go without usage.
func (o *OpenAI) recordUsage(req *Request, kind string, res *response, f *failure) error {
	u := RequestUsage{Model: req.Model, Request: kind, Outcome: "ok"}
	if f != nil {
		u.Outcome = f.err.Code
		u.Status, _ = f.err.Details["status"].(int)
		if t, ok := f.err.Details["timeout"].(string); ok {
			u.Outcome = "timeout_" + t
		}
	}
	if res != nil {
		u.FinishReason = res.Finish
		if uf := res.Usage; uf != nil {
			u.PromptTokens, u.CompletionTokens = uf.PromptTokens, uf.CompletionTokens
			u.CacheHitTokens = uf.PromptCacheHit
			if u.CacheHitTokens == nil && uf.PromptTokensDetails != nil {
				u.CacheHitTokens = uf.PromptTokensDetails.CachedTokens
			}
			if uf.CompletionTokensDetails != nil {
				u.ReasoningTokens = uf.CompletionTokensDetails.ReasoningTokens
			}
		}
		if u.PromptTokens == nil || u.CompletionTokens == nil {
			// An answer arrived without usage (Ollama's /v1, a gateway):
			// never unknown, never 0 — estimated and marked.
			prompt, completion := estimateUsage(req, res)
			if u.PromptTokens == nil {
				u.PromptTokens = &prompt
			}
			if u.CompletionTokens == nil {
				u.CompletionTokens = &completion
			}
			u.UsageEstimated = true
			o.note("estimated:"+req.Model, "服务没有返回 usage：模型 "+req.Model+" 的 token 数按文本估算（usage_estimated）",
				"the server returned no usage: the tokens of "+req.Model+" are estimated from the text (usage_estimated)")
		}
	}
	if u.PromptTokens != nil {
		o.tokens.Prompt += *u.PromptTokens
	}
	if u.CompletionTokens != nil {
		o.tokens.Completion += *u.CompletionTokens
	}
	u.Tokens = map[string]int{}
	for k, v := range map[string]*int{"prompt": u.PromptTokens, "completion": u.CompletionTokens, "cache_hit": u.CacheHitTokens, "reasoning": u.ReasoningTokens} {
		if v != nil {
			u.Tokens[k] = *v
		}
	}
	if len(u.Tokens) == 0 {
		u.Tokens = nil
	}
	u.Cost = o.cost(&u)
	if o.Record != nil {
		return o.Record(u)
	}
	return nil
}

// estimateUsage estimates a request's tokens with §19's formula: the
// prompt from the messages sent, the completion from the answer and its
// reasoning.
func estimateUsage(req *Request, res *response) (int, int) {
	msgs, _ := req.Body["messages"].([]Message)
	return EstimateTokens(msgs), EstimateTokens([]Message{{Content: res.Content + res.Reasoning}})
}

// cost prices a request: uncached input, cached input and output per
// million tokens. Unknown counts or no price for the model → null.
func (o *OpenAI) cost(u *RequestUsage) *Cost {
	p, ok := o.LLM.Prices[u.Model]
	if !ok || u.PromptTokens == nil || u.CompletionTokens == nil {
		return nil
	}
	hit := 0
	if u.CacheHitTokens != nil {
		hit = min(*u.CacheHitTokens, *u.PromptTokens)
	}
	amount := (float64(*u.PromptTokens-hit)*p.InputPerMtok + float64(hit)*p.CacheHitInputPerMtok + float64(*u.CompletionTokens)*p.OutputPerMtok) / 1e6
	return &Cost{Amount: math.Round(amount*1e8) / 1e8, Currency: p.Currency}
}
