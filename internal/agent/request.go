package agent

import (
	"encoding/json"
	"maps"
	"math"
	"sort"
	"strconv"
	"unicode"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Request is one chat-completions request: the body as sent (extra_body
// merged in) and what the client needs to know about it.
type Request struct {
	Agent     string
	Model     string
	MaxTokens int
	// Limit is the model's documented output limit (0: not known).
	Limit  int
	Stream bool
	JSON   bool // response_format json_object is in the body
	Body   map[string]any
}

func (r *Request) clone() *Request {
	c := *r
	c.Body = maps.Clone(r.Body)
	return &c
}

// Role defaults (SPEC §18): judges and reviewers cool, the writer warm,
// planners at 0.7 with room for a whole volume plan.
const (
	planMaxTokens   = 8192
	reportMaxTokens = 4096
	// defaultTargetChars is the upper end of the general platform
	// profile's target range (§20: 2500–3500字).
	defaultTargetChars = 3500
	// tokensPerCJK is DeepSeek's documented ratio (1 Chinese character ≈
	// 0.6 token), used for max_tokens and estimates.
	tokensPerCJK = 0.6
	// tokensPerOther is the ratio for any other character (≈ 0.3 token).
	tokensPerOther = 0.3
)

// RoleDefaults are the built-in request settings of an agent role.
func RoleDefaults(p *Packet) settings.RoleParams {
	t := func(x float64) *float64 { return &x }
	switch p.Agent.Name {
	case stepid.ChapterWriter, stepid.StyleRefiner:
		temp := 0.85
		if p.Agent.Name == stepid.StyleRefiner {
			temp = 0.6
		}
		// Twice the chapter's target length in tokens, never below the
		// common 8K output limit (deepseek-chat's default 4K cuts a
		// long chapter mid-sentence).
		n := int(math.Ceil(2 * tokensPerCJK * float64(targetChars(p))))
		return settings.RoleParams{Temperature: t(temp), MaxTokens: max(n, 8192)}
	case stepid.QualityJudge, stepid.LogicReviewer, stepid.ContinuityAuditor:
		return settings.RoleParams{Temperature: t(0.2), MaxTokens: reportMaxTokens}
	case stepid.Summarizer:
		return settings.RoleParams{Temperature: t(0.3), MaxTokens: planMaxTokens}
	case stepid.PlotArchitect, stepid.WorldBuilder, stepid.CharacterWeaver, stepid.StyleAnalyzer:
		return settings.RoleParams{Temperature: t(0.7), MaxTokens: planMaxTokens}
	}
	return settings.RoleParams{MaxTokens: reportMaxTokens}
}

// targetChars is the chapter's upper target length: the packet's inline
// words_target ([a,b]) or words_per_chapter when present, else the general
// profile's.
func targetChars(p *Packet) int {
	if v, ok := inlineValue(p, "words_target"); ok {
		if list, isList := v.([]any); isList && len(list) == 2 {
			if n, ok := jsonio.Int(list[1]); ok && n > 0 {
				return n
			}
		}
	}
	if v, ok := inlineValue(p, "words_per_chapter"); ok {
		if n, ok := jsonio.Int(v); ok && n > 0 {
			return n + n*15/100
		}
	}
	return defaultTargetChars
}

// SecondaryJudgeRole is the llm.roles key of a key chapter's second judge
// (SPEC §24); unset, it is the primary judge's model at SecondaryJudgeTemperature.
const SecondaryJudgeRole = stepid.QualityJudge + "-" + stepid.RoleSecondary

// SecondaryJudgeTemperature is the second judge's default temperature: the
// same model as the primary, sampled differently, so the two requests are
// not one judge asked twice.
const SecondaryJudgeTemperature = 0.5

// Params merges a role's defaults with settings.json llm.roles.{role}; the
// secondary judge starts from the primary's and then takes
// llm.roles.quality-judge-secondary.
func (o *OpenAI) Params(p *Packet) settings.RoleParams {
	d := RoleDefaults(p)
	overlay := func(role string) {
		r, ok := o.LLM.Roles[role]
		if !ok {
			return
		}
		if r.Model != "" {
			d.Model = r.Model
		}
		if r.Temperature != nil {
			d.Temperature = r.Temperature
		}
		if r.TopP != nil {
			d.TopP = r.TopP
		}
		if r.MaxTokens > 0 {
			d.MaxTokens = r.MaxTokens
		}
		if r.Thinking != "" || role == p.Agent.Name {
			d.Thinking = r.Thinking
		}
	}
	overlay(p.Agent.Name)
	if p.Agent.Name == stepid.QualityJudge && p.Agent.Mode == stepid.RoleSecondary {
		t := SecondaryJudgeTemperature
		d.Temperature = &t
		overlay(SecondaryJudgeRole)
	}
	return d
}

// Request builds the request for a packet's messages: the model
// (NOVEL_LLM_MODEL_<AGENT>, then llm.roles.{role}.model, then
// NOVEL_LLM_MODEL), sampling settings, stream, response_format for JSON
// roles, and llm.extra_body merged last (it wins).
func (o *OpenAI) Request(p *Packet, msgs []Message) (*Request, error) {
	params := o.Params(p)
	def := o.Model
	if params.Model != "" {
		def = params.Model
	}
	model := ModelFor(o.Getenv, p.Agent.Name, p.Agent.Mode, def)
	if model == "" {
		return nil, errs.Newf(errs.Agent, "未设置 %s", "%s is not set", "NOVEL_LLM_MODEL").With("env", "NOVEL_LLM_MODEL").
			Hint("设置模型名，如 deepseek-chat（或在 settings.json 的 llm.roles."+p.Agent.Name+".model 中设置）",
				"set the model name, e.g. deepseek-chat (or llm.roles."+p.Agent.Name+".model in settings.json)")
	}
	r := &Request{Agent: p.Agent.Name, Model: model, MaxTokens: params.MaxTokens, Stream: o.LLM.Stream, Body: map[string]any{
		"model": model, "messages": msgs, "max_tokens": params.MaxTokens, "stream": o.LLM.Stream,
	}}
	if params.Temperature != nil {
		r.Body["temperature"] = *params.Temperature
	}
	if params.TopP != nil {
		r.Body["top_p"] = *params.TopP
	}
	if o.LLM.Stream {
		// Without it OpenAI, DashScope and vLLM send no usage in a stream.
		r.Body["stream_options"] = map[string]any{"include_usage": true}
	}
	if p.Format() == FormatJSON && (o.LLM.JSONMode == settings.JSONOn || o.LLM.JSONMode == settings.JSONAuto && !o.jsonDenied) {
		r.Body["response_format"] = map[string]any{"type": "json_object"}
		r.JSON = true
	}
	o.applyProfile(p, r, params)
	maps.Copy(r.Body, o.LLM.ExtraBody)
	if n, ok := jsonio.Int(r.Body["max_tokens"]); ok {
		r.MaxTokens = n
	}
	if capped, limit := o.Profile.CapMaxTokens(model, r.MaxTokens); capped != r.MaxTokens {
		// Requests never ask for more than the provider accepts
		// (deepseek-chat answers HTTP 400 above 8192).
		o.note("cap:"+model, "模型 "+model+" 的输出上限是 "+strconv.Itoa(limit)+"，max_tokens 从 "+strconv.Itoa(r.MaxTokens)+" 降为 "+strconv.Itoa(limit),
			"the output limit of "+model+" is "+strconv.Itoa(limit)+"; max_tokens lowered from "+strconv.Itoa(r.MaxTokens)+" to "+strconv.Itoa(limit))
		r.MaxTokens = capped
		r.Body["max_tokens"] = capped
	}
	_, r.Limit = o.Profile.CapMaxTokens(model, r.MaxTokens)
	if b, ok := r.Body["stream"].(bool); ok {
		r.Stream = b
	}
	return r, nil
}

// applyProfile sets what the provider profile decides for this request
// (SPEC §26): the thinking switch of llm.roles.{role}.thinking, and the
// fixed temperature of a model that accepts no other (with a note).
func (o *OpenAI) applyProfile(p *Packet, r *Request, params settings.RoleParams) {
	thinkingOn := params.Thinking != "off"
	if params.Thinking != "" {
		sw := o.Profile.ThinkingSwitch(r.Model, thinkingOn)
		if sw == nil {
			o.note("thinking:"+r.Model, "服务 "+o.Profile.Name+" 的模型 "+r.Model+" 没有可用的思考开关，llm.roles."+p.Agent.Name+".thinking 未生效（可换用对应模型，或在 llm.extra_body 中设置）",
				"provider "+o.Profile.Name+" has no thinking switch for "+r.Model+"; llm.roles."+p.Agent.Name+".thinking has no effect (pick the matching model, or set it in llm.extra_body)")
		}
		maps.Copy(r.Body, sw)
	}
	if t, fixed := o.Profile.FixedTemperature(r.Model, thinkingOn); fixed {
		if cur, ok := r.Body["temperature"].(float64); !ok || cur != t {
			ts := strconv.FormatFloat(t, 'f', -1, 64)
			o.note("temp:"+r.Model+ts, "模型 "+r.Model+" 只接受 temperature "+ts+"，已改用该值",
				""+r.Model+" accepts only temperature "+ts+"; that value is sent")
			r.Body["temperature"] = t
		}
	}
}

// EstimateTokens estimates the prompt tokens of messages with DeepSeek's
// documented ratios (CJK ≈ 0.6, other characters ≈ 0.3 token each).
func EstimateTokens(msgs []Message) int {
	var t float64
	for _, m := range msgs {
		for _, r := range m.Content {
			if unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF {
				t += tokensPerCJK
			} else {
				t += tokensPerOther
			}
		}
	}
	return int(math.Ceil(t))
}

// DryRun is what --dry-run prints: exactly the request that would be
// sent, and a token estimate of its prompt.
type DryRun struct {
	Messages        []Message       `json:"messages"`
	Request         json.RawMessage `json:"request"`
	EstimatedTokens int             `json:"estimated_tokens"`
}

// Plan renders the packet's first request without sending anything.
func (o *OpenAI) Plan(p *Packet) (*DryRun, error) {
	msgs, err := RenderPrompt(o.Root, p, nil, "")
	if err != nil {
		return nil, err
	}
	req, err := o.Request(p, msgs)
	if err != nil {
		return nil, err
	}
	body := maps.Clone(req.Body)
	delete(body, "messages") // printed once, as "messages"
	raw, err := jsonio.Marshal(body)
	if err != nil {
		return nil, err
	}
	return &DryRun{Messages: msgs, Request: raw, EstimatedTokens: EstimateTokens(msgs)}, nil
}

// Roles are the agent roles a real model plays, in pipeline order.
var Roles = []string{stepid.PlotArchitect, stepid.WorldBuilder, stepid.CharacterWeaver, stepid.StyleAnalyzer,
	stepid.ChapterWriter, stepid.Summarizer, stepid.StyleRefiner, stepid.QualityJudge, stepid.LogicReviewer, stepid.ContinuityAuditor}

// RoleModel is the model a role's requests name (NOVEL_LLM_MODEL_<AGENT>,
// then llm.roles.{role}.model, then NOVEL_LLM_MODEL); the secondary judge
// may name another.
func (o *OpenAI) RoleModel(role, mode string) string {
	def := o.Model
	if r, ok := o.LLM.Roles[role]; ok && r.Model != "" {
		def = r.Model
	}
	if role == stepid.QualityJudge && mode == stepid.RoleSecondary {
		if r, ok := o.LLM.Roles[SecondaryJudgeRole]; ok && r.Model != "" {
			def = r.Model
		}
	}
	return ModelFor(o.Getenv, role, mode, def)
}

// Models are the distinct models the roles use, sorted ("" left out).
func (o *OpenAI) Models() []string {
	set := map[string]bool{}
	for _, r := range Roles {
		for _, mode := range []string{"", stepid.RoleSecondary} {
			if m := o.RoleModel(r, mode); m != "" {
				set[m] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
