// Package provider is the table of how real OpenAI-compatible providers
// differ from the idealised API (SPEC §26): output-token limits per model
// family, temperature rules, what each finish_reason means, the shapes of
// content-filter refusals and JSON-mode rejections, and how thinking is
// switched on or off. Every entry cites the documentation or the users'
// issue it was taken from; the loopback fake (internal/testsupport/llmfake)
// imitates the same sources.
package provider

import (
	"net/url"
	"sort"
	"strings"
)

// Names of the profiles (settings.json llm.provider).
const (
	DeepSeek = "deepseek"
	Qwen     = "qwen"
	Kimi     = "kimi"
	GLM      = "glm"
	Ollama   = "ollama"
	VLLM     = "vllm"
	OpenAI   = "openai"
)

// Names lists the profile names in the order the docs show them.
var Names = []string{DeepSeek, Qwen, Kimi, GLM, Ollama, VLLM, OpenAI}

// Finish is what a finish_reason means.
type Finish int

const (
	// Truncated: the answer is cut (length, and every reason the table
	// does not know, a missing one and null: never taken as complete).
	Truncated Finish = iota
	// Normal: the model ended its answer.
	Normal
	// Filtered: a content filter stopped the answer.
	Filtered
	// Transient: the provider failed mid-generation; asking again may work.
	Transient
)

// Thinking is how a provider switches a model's thinking on or off.
type Thinking int

const (
	// NoSwitch: the provider has no per-request switch (the model name
	// decides, e.g. deepseek-chat vs deepseek-reasoner).
	NoSwitch Thinking = iota
	// EnableThinking: {"enable_thinking": true|false} (DashScope Qwen3).
	EnableThinking
	// ThinkingType: {"thinking": {"type": "enabled"|"disabled"}} (GLM, Kimi K2.5+).
	ThinkingType
	// TemplateKwargs: {"chat_template_kwargs": {"enable_thinking": …}} (vLLM serving Qwen3).
	TemplateKwargs
)

// Model is a model family's rules, matched by name prefix.
type Model struct {
	Prefix string
	// OutputLimit is the largest max_tokens the provider accepts (0: not
	// documented, no cap).
	OutputLimit int
	// TempOn / TempOff are the only temperatures the model accepts with
	// thinking on / off (nil: any). AlwaysThinks: thinking cannot be off.
	TempOn, TempOff *float64
	AlwaysThinks    bool
}

// Profile is one provider's table.
type Profile struct {
	Name string
	// Hosts are the API hosts the profile is detected from (exact host,
	// or ":port" for a local server's default port).
	Hosts  []string
	Models []Model
	// Finish are the provider's own finish reasons (stop, length and
	// content_filter are common to all).
	Finish map[string]Finish
	// Refusals are lower-case fragments of an error body (message, code
	// or type) that mean the content filter refused the request;
	// RefusalCodes are error codes that mean it, matched exactly.
	Refusals     []string
	RefusalCodes []string
	// BalanceCodes are error codes that mean the account is out of
	// balance, whatever the HTTP status says (never worth a retry).
	BalanceCodes []string
	// JSONRefusals are fragments of a 400 that mean JSON mode
	// (response_format) is refused for this request.
	JSONRefusals []string
	Thinking     Thinking
}

func f(x float64) *float64 { return &x }

// commonFinish are the OpenAI finish reasons every profile shares
// (platform.openai.com chat object: stop, length, content_filter).
var commonFinish = map[string]Finish{"stop": Normal, "length": Truncated, "content_filter": Filtered}

// commonRefusals: the OpenAI-style content_filter code, and DashScope's
// data_inspection_failed that gateways pass through (camel-ai/owl#432).
var commonRefusals = []string{"content_filter", "data_inspection_failed", "datainspectionfailed"}

// commonJSONRefusals: a 400 naming response_format (vLLM/Ollama builds
// without JSON mode, OpenAI's "'response_format' … is not supported").
var commonJSONRefusals = []string{"response_format"}

var profiles = map[string]*Profile{
	DeepSeek: {
		Name:  DeepSeek,
		Hosts: []string{"api.deepseek.com"},
		Models: []Model{
			// deepseek-chat: max output 8K; more is HTTP 400 "Invalid
			// max_tokens value, the valid range of max_tokens is [1, 8192]"
			// (api-docs.deepseek.com/quick_start/pricing-details-usd;
			// deepseek-ai/DeepSeek-V3#69, nickscamara/open-deep-research#19).
			{Prefix: "deepseek-chat", OutputLimit: 8192},
			// deepseek-reasoner: max_tokens includes the chain of thought,
			// default 32K, max 64K; temperature/top_p are accepted and
			// ignored, so no fixed value is needed
			// (api-docs.deepseek.com/zh-cn/guides/reasoning_model).
			{Prefix: "deepseek-reasoner", OutputLimit: 65536, AlwaysThinks: true},
		},
		// insufficient_system_resource: the inference system ran short
		// and interrupted the generation (DeepSeek chat-completion API).
		Finish: map[string]Finish{"insufficient_system_resource": Transient},
		// "Content Exists Risk" is DeepSeek's content-safety refusal, a 400
		// invalid_request_error (deepseek-ai/awesome-deepseek-integration#13,
		// deepseek-ai/DeepSeek-V2#30, 666ghj/BettaFish#108).
		Refusals: []string{"content exists risk"},
	},
	Qwen: {
		Name:  Qwen,
		Hosts: []string{"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"},
		// Qwen3 on Bailian: enable_thinking in the body (extra_body in the
		// OpenAI SDK; Mintplex-Labs/anything-llm#3933 quoting the Bailian
		// docs), and JSON mode is refused while thinking is on: 400
		// invalid_parameter_error "Json mode response is not supported when
		// enable_thinking is true" (presenton/presenton#184).
		Thinking:     EnableThinking,
		JSONRefusals: []string{"json mode response is not supported"},
	},
	Kimi: {
		Name:  Kimi,
		Hosts: []string{"api.moonshot.cn", "api.moonshot.ai"},
		Models: []Model{
			// K2.5/K2.6 accept only temperature 1.0 with thinking on (the
			// default) and 0.6 with it off; anything else is 400 "invalid
			// temperature: only 1 is allowed for this model"
			// (Warma10032/VideoAdGuard#34 quoting the Kimi docs,
			// NoFxAiOS/nofx#1415); thinking is {"type":"enabled|disabled"}
			// (platform.kimi.ai/docs/api/models-overview).
			{Prefix: "kimi-k2.5", TempOn: f(1), TempOff: f(0.6)},
			{Prefix: "kimi-k2.6", TempOn: f(1), TempOff: f(0.6)},
			// K3 thinks always and accepts only temperature 1 (Moonshot's
			// K3 parameter reference, as reported in the AIHubMix K3.1
			// migration guide on dev.to).
			{Prefix: "kimi-k3", TempOn: f(1), AlwaysThinks: true},
		},
		// Stream usage sits in choices[0].usage of the last chunk
		// (earendil-works/pi#2017): the client reads usage there whenever
		// the top-level one is absent, whatever the profile.
		Thinking: ThinkingType,
	},
	GLM: {
		Name:  GLM,
		Hosts: []string{"open.bigmodel.cn", "api.z.ai"},
		Models: []Model{
			// GLM-4.5: 最大输出 96K tokens (docs.bigmodel.cn GLM-4.5 page).
			{Prefix: "glm-4.5", OutputLimit: 98304},
		},
		// z.ai's chat-completion API documents sensitive (safety stop
		// mid-generation), network_error (inference interrupted) and
		// model_context_window_exceeded (cut at the window)
		// (BerriAI/litellm#24373, mozilla-ai/any-llm#1204,
		// promptfoo/promptfoo#9905, langgenius/dify#7559).
		Finish: map[string]Finish{"sensitive": Filtered, "network_error": Transient, "model_context_window_exceeded": Truncated},
		// Code 1301: 系统检测到输入或生成内容可能包含不安全或敏感内容
		// (langchain4j/langchain4j#1079, zai-org/feedback#572).
		Refusals:     []string{"不安全或敏感内容"},
		RefusalCodes: []string{"1301"},
		// Code 1113 "余额不足或无可用资源包,请充值。" arrives as HTTP 429,
		// which reads as a rate limit (langgenius/dify#5850,
		// agentscope-ai/QwenPaw#202).
		BalanceCodes: []string{"1113"},
		// thinking: {"type": "enabled"|"disabled"} (docs.z.ai
		// guides/capabilities/thinking-mode, guides/overview/concept-param).
		Thinking: ThinkingType,
	},
	Ollama: {
		Name: Ollama,
		// 11434 is Ollama's default port; its /v1 route reports no usage in
		// some versions and modes (ollama/ollama#4448, #5200), reasoning
		// arrives as <think> in content.
		Hosts:    []string{":11434"},
		Thinking: NoSwitch,
	},
	VLLM: {
		Name: VLLM,
		// vLLM has no fixed host; set llm.provider. Qwen3 served by vLLM
		// takes chat_template_kwargs.enable_thinking
		// (InternLM/lmdeploy#3511 and xorbitsai/inference#3647 show the
		// vLLM-style request).
		Thinking: TemplateKwargs,
	},
	OpenAI: {Name: OpenAI, Hosts: []string{"api.openai.com"}},
}

// Known reports whether name is a profile.
func Known(name string) bool { _, ok := profiles[name]; return ok }

// get returns the named profile (openai for an unknown name).
func get(name string) *Profile {
	if p, ok := profiles[name]; ok {
		return p
	}
	return profiles[OpenAI]
}

// detect picks the profile of a base URL: the one whose host (or default
// port) matches, else openai.
func detect(baseURL string) *Profile {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return profiles[OpenAI]
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, h := range profiles[n].Hosts {
			if h == host || strings.HasSuffix(host, "."+h) || (strings.HasPrefix(h, ":") && h[1:] == port) {
				return profiles[n]
			}
		}
	}
	return profiles[OpenAI]
}

// Resolve is the profile in effect: the configured name when set, else
// the one detected from the base URL.
func Resolve(configured, baseURL string) *Profile {
	if configured != "" {
		return get(configured)
	}
	return detect(baseURL)
}

// Model returns the rules of a model (zero Model when none matches).
func (p *Profile) Model(name string) Model {
	name = strings.ToLower(name)
	best := Model{}
	for _, m := range p.Models {
		if strings.HasPrefix(name, m.Prefix) && len(m.Prefix) > len(best.Prefix) {
			best = m
		}
	}
	return best
}

// FinishKind classifies a finish_reason. A reason the table does not
// know, "" (missing) and null are Truncated: a stream that merely ended
// is never taken for a complete answer.
func (p *Profile) FinishKind(reason string) Finish {
	if k, ok := p.Finish[reason]; ok {
		return k
	}
	if k, ok := commonFinish[reason]; ok {
		return k
	}
	return Truncated
}

// Refused reports whether an error body (its message, its code and
// type) is a content-filter refusal.
func (p *Profile) Refused(message, code string) bool {
	code = strings.Trim(code, `"`)
	for _, c := range p.RefusalCodes {
		if code == c {
			return true
		}
	}
	text := strings.ToLower(message + " " + code)
	return containsAny(text, commonRefusals) || containsAny(text, p.Refusals)
}

// OutOfBalance reports whether an error code means an empty account.
func (p *Profile) OutOfBalance(code string) bool {
	code = strings.Trim(code, `"`)
	for _, c := range p.BalanceCodes {
		if code == c {
			return true
		}
	}
	return false
}

// JSONRefused reports whether a 400's text is a refusal of JSON mode.
func (p *Profile) JSONRefused(text string) bool {
	return containsAny(strings.ToLower(text), commonJSONRefusals) || containsAny(strings.ToLower(text), p.JSONRefusals)
}

func containsAny(s string, parts []string) bool {
	for _, x := range parts {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// ThinkingSwitch is the body fields that set thinking on or off for a
// model (nil when the provider or the model has no switch).
func (p *Profile) ThinkingSwitch(model string, on bool) map[string]any {
	if p.Model(model).AlwaysThinks && !on {
		return nil
	}
	switch p.Thinking {
	case EnableThinking:
		return map[string]any{"enable_thinking": on}
	case ThinkingType:
		t := "disabled"
		if on {
			t = "enabled"
		}
		return map[string]any{"thinking": map[string]any{"type": t}}
	case TemplateKwargs:
		return map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": on}}
	}
	return nil
}

// FixedTemperature is the only temperature the model accepts with
// thinking on or off (ok false: any temperature).
func (p *Profile) FixedTemperature(model string, thinkingOn bool) (float64, bool) {
	m := p.Model(model)
	t := m.TempOn
	if !thinkingOn && !m.AlwaysThinks {
		t = m.TempOff
	}
	if t == nil {
		return 0, false
	}
	return *t, true
}

// CapMaxTokens is n limited to the model's output limit, and the limit (0
// when not documented).
func (p *Profile) CapMaxTokens(model string, n int) (int, int) {
	limit := p.Model(model).OutputLimit
	if limit > 0 && n > limit {
		return limit, limit
	}
	return n, limit
}
