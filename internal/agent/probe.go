package agent

import (
	"github.com/novelsuite/novel/internal/errs"
)

// ProbeResult is what one probe request showed (novel doctor, SPEC §26).
type ProbeResult struct {
	Err           *errs.Error // nil when the server answered
	Status        int         // the HTTP status of a failure
	Message       string      // the server's own words on a failure
	ContentFilter bool
	JSONRefused   bool
	Streamed      bool // the answer came as server-sent events
	Usage         bool // the server reported prompt and completion tokens
	CacheHits     bool // …and a cache-hit count
	Finish        string
	Content       string
}

// Probe sends one tiny request as role would send it (its model,
// sampling, thinking switch, extra_body), with the given prompt,
// max_tokens, stream and JSON mode; no retries, no usage line.
func (o *OpenAI) Probe(role, prompt string, maxTokens int, stream, jsonMode bool) ProbeResult {
	p := &Packet{}
	p.Agent.Name = role
	req, err := o.Request(p, []Message{{Role: "user", Content: prompt}})
	if err != nil {
		return ProbeResult{Err: errs.Coerce(err)}
	}
	req.MaxTokens, req.Stream, req.JSON = maxTokens, stream, jsonMode
	req.Body["max_tokens"], req.Body["stream"] = maxTokens, stream
	delete(req.Body, "stream_options")
	delete(req.Body, "response_format")
	if stream {
		req.Body["stream_options"] = map[string]any{"include_usage": true}
	}
	if jsonMode {
		req.Body["response_format"] = map[string]any{"type": "json_object"}
	}
	rec := o.Record
	o.Record = nil
	defer func() { o.Record = rec }()
	res, f := o.send(req, "doctor")
	if f != nil {
		out := ProbeResult{Err: f.err, JSONRefused: f.jsonRefuse}
		out.Status, _ = f.err.Details["status"].(int)
		out.Message, _ = f.err.Details["server_message"].(string)
		out.ContentFilter = f.err.Details["content_filter"] == true
		return out
	}
	out := ProbeResult{Streamed: res.Streamed, Finish: res.Finish, Content: StripThink(res.Content)}
	if u := res.Usage; u != nil {
		out.Usage = u.PromptTokens != nil && u.CompletionTokens != nil
		out.CacheHits = u.PromptCacheHit != nil || u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil
	}
	return out
}
