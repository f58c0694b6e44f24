package settings

import (
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/provider"
)

// JSON modes of llm.json_mode (SPEC §18).
const (
	JSONAuto = "auto"
	JSONOn   = "on"
	JSONOff  = "off"
)

// RoleParams are the request settings of one agent role (llm.roles.{role});
// nil / 0 means "not set".
type RoleParams struct {
	Model       string   `json:"model,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// Thinking is "on", "off" or "" (the model's default): set through
	// the provider's switch (SPEC §26).
	Thinking string `json:"thinking,omitempty"`
}

// Price is one model's price per million tokens (llm.prices.{model}).
type Price struct {
	InputPerMtok         float64 `json:"input_per_mtok"`
	CacheHitInputPerMtok float64 `json:"cache_hit_input_per_mtok"`
	OutputPerMtok        float64 `json:"output_per_mtok"`
	Currency             string  `json:"currency"`
}

// LLM are the request settings of the model executors (SPEC §18).
type LLM struct {
	Roles        map[string]RoleParams `json:"roles"`
	ExtraBody    map[string]any        `json:"extra_body"`
	JSONMode     string                `json:"json_mode"`
	Stream       bool                  `json:"stream"`
	IdleTimeoutS int                   `json:"idle_timeout_s"`
	TimeoutS     int                   `json:"timeout_s"`
	Prices       map[string]Price      `json:"prices"`
	// Provider names the provider profile (SPEC §26); "" detects it from
	// the base URL.
	Provider string `json:"provider"`
}

// lLMDefaults are the documented defaults: streaming with a 120 s idle
// timeout and a 900 s total, json_mode auto.
func lLMDefaults() LLM {
	return LLM{Roles: map[string]RoleParams{}, ExtraBody: map[string]any{}, JSONMode: JSONAuto, Stream: true,
		IdleTimeoutS: 120, TimeoutS: 900, Prices: map[string]Price{}}
}

// LoadLLM reads settings.json "llm" (missing → defaults), then the env
// overrides NOVEL_LLM_STREAM, NOVEL_LLM_JSON_MODE, NOVEL_LLM_IDLE_TIMEOUT
// and NOVEL_LLM_TIMEOUT (seconds). Invalid values are E_CONFIG naming the
// key and its source.
func LoadLLM(root *project.Root, getenv func(string) string) (LLM, error) {
	l := lLMDefaults()
	if root != nil && root.Exists(layout.Settings) {
		var raw map[string]any
		if err := root.ReadJSON(layout.Settings, &raw); err != nil {
			return l, err
		}
		if raw == nil {
			return l, cfgErr("(顶层)", layout.Settings, "必须是 JSON 对象", "must be a JSON object", nil)
		}
		if v, ok := raw["llm"]; ok && v != nil {
			m, isObj := v.(map[string]any)
			if !isObj {
				return l, cfgErr("llm", layout.Settings, "必须是对象", "must be an object", v)
			}
			if err := l.apply(m, layout.Settings); err != nil {
				return l, err
			}
		}
	}
	if getenv == nil {
		return l, nil
	}
	if v := getenv("NOVEL_LLM_STREAM"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return l, cfgErr("NOVEL_LLM_STREAM", "env NOVEL_LLM_STREAM", "必须是 true 或 false", "must be true or false", v)
		}
		l.Stream = b
	}
	if v := getenv("NOVEL_LLM_PROVIDER"); v != "" {
		if !provider.Known(v) {
			return l, cfgErr("NOVEL_LLM_PROVIDER", "env NOVEL_LLM_PROVIDER", "必须是 "+strings.Join(provider.Names, "、")+" 之一", "must be one of "+strings.Join(provider.Names, ", "), v)
		}
		l.Provider = v
	}
	if v := getenv("NOVEL_LLM_JSON_MODE"); v != "" {
		if v != JSONAuto && v != JSONOn && v != JSONOff {
			return l, cfgErr("NOVEL_LLM_JSON_MODE", "env NOVEL_LLM_JSON_MODE", "必须是 auto、on 或 off", "must be auto, on or off", v)
		}
		l.JSONMode = v
	}
	for _, e := range []struct {
		name string
		dst  *int
	}{{"NOVEL_LLM_IDLE_TIMEOUT", &l.IdleTimeoutS}, {"NOVEL_LLM_TIMEOUT", &l.TimeoutS}} {
		if v := getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return l, cfgErr(e.name, "env "+e.name, "必须是 ≥ 1 的整数（秒）", "must be an integer ≥ 1 (seconds)", v)
			}
			*e.dst = n
		}
	}
	return l, nil
}

func (l *LLM) apply(m map[string]any, src string) error {
	for _, k := range sortedKeys(m) {
		v := m[k]
		if v == nil {
			continue
		}
		key := "llm." + k
		var err error
		switch k {
		case "roles":
			err = l.applyRoles(v, src)
		case "extra_body":
			obj, ok := v.(map[string]any)
			if !ok {
				return cfgErr(key, src, "必须是对象（合并进每个请求体）", "must be an object (merged into every request body)", v)
			}
			l.ExtraBody = obj
		case "json_mode":
			s, _ := v.(string)
			if s != JSONAuto && s != JSONOn && s != JSONOff {
				return cfgErr(key, src, "必须是 auto、on 或 off", "must be auto, on or off", v)
			}
			l.JSONMode = s
		case "stream":
			b, ok := v.(bool)
			if !ok {
				return cfgErr(key, src, "必须是 true 或 false", "must be true or false", v)
			}
			l.Stream = b
		case "idle_timeout_s", "timeout_s":
			n, ok := jsonio.Int(v)
			if !ok || n < 1 {
				return cfgErr(key, src, "必须是 ≥ 1 的整数（秒）", "must be an integer ≥ 1 (seconds)", v)
			}
			if k == "timeout_s" {
				l.TimeoutS = n
			} else {
				l.IdleTimeoutS = n
			}
		case "prices":
			err = l.applyPrices(v, src)
		case "provider":
			s, _ := v.(string)
			if !provider.Known(s) {
				return cfgErr(key, src, "必须是 "+strings.Join(provider.Names, "、")+" 之一", "must be one of "+strings.Join(provider.Names, ", "), v)
			}
			l.Provider = s
		default:
			return cfgErr(key, src, "是未知的键（可用：roles、extra_body、json_mode、stream、idle_timeout_s、timeout_s、prices、provider）",
				"is not a known key (roles, extra_body, json_mode, stream, idle_timeout_s, timeout_s, prices, provider)", v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (l *LLM) applyRoles(v any, src string) error {
	roles, ok := v.(map[string]any)
	if !ok {
		return cfgErr("llm.roles", src, "必须是对象 {角色名: {model, temperature, top_p, max_tokens}}", "must be an object {role: {model, temperature, top_p, max_tokens}}", v)
	}
	for _, role := range sortedKeys(roles) {
		rv := roles[role]
		key := "llm.roles." + role
		if !project.IsSlug(role) {
			return cfgErr(key, src, "角色名必须是代理名（如 chapter-writer）", "the role must be an agent name such as chapter-writer", role)
		}
		rm, ok := rv.(map[string]any)
		if !ok {
			return cfgErr(key, src, "必须是对象 {model, temperature, top_p, max_tokens}", "must be an object {model, temperature, top_p, max_tokens}", rv)
		}
		var p RoleParams
		for _, f := range sortedKeys(rm) {
			fv := rm[f]
			fkey := key + "." + f
			switch f {
			case "model":
				s, ok := fv.(string)
				if !ok || strings.TrimSpace(s) == "" {
					return cfgErr(fkey, src, "必须是非空字符串", "must be a non-empty string", fv)
				}
				p.Model = s
			case "temperature", "top_p":
				x, ok := jsonio.Float(fv)
				max := 2.0
				if f == "top_p" {
					max = 1
				}
				if !ok || x < 0 || x > max || (f == "top_p" && x == 0) {
					return cfgErr(fkey, src, "必须是 0.."+strconv.FormatFloat(max, 'f', -1, 64)+" 的数", "must be a number in 0.."+strconv.FormatFloat(max, 'f', -1, 64), fv)
				}
				if f == "temperature" {
					p.Temperature = &x
				} else {
					p.TopP = &x
				}
			case "max_tokens":
				n, ok := jsonio.Int(fv)
				if !ok || n < 1 {
					return cfgErr(fkey, src, "必须是 ≥ 1 的整数", "must be an integer ≥ 1", fv)
				}
				p.MaxTokens = n
			case "thinking":
				s, _ := fv.(string)
				if s != "on" && s != "off" {
					return cfgErr(fkey, src, "必须是 on 或 off", "must be on or off", fv)
				}
				p.Thinking = s
			default:
				return cfgErr(fkey, src, "是未知的键（可用：model、temperature、top_p、max_tokens、thinking）", "is not a known key (model, temperature, top_p, max_tokens, thinking)", fv)
			}
		}
		l.Roles[role] = p
	}
	return nil
}

func (l *LLM) applyPrices(v any, src string) error {
	prices, ok := v.(map[string]any)
	if !ok {
		return cfgErr("llm.prices", src, "必须是对象 {模型名: {input_per_mtok, cache_hit_input_per_mtok, output_per_mtok, currency}}",
			"must be an object {model: {input_per_mtok, cache_hit_input_per_mtok, output_per_mtok, currency}}", v)
	}
	for _, model := range sortedKeys(prices) {
		pv := prices[model]
		key := "llm.prices." + model
		pm, ok := pv.(map[string]any)
		if !ok {
			return cfgErr(key, src, "必须是对象", "must be an object", pv)
		}
		var p Price
		hit := false
		for _, f := range sortedKeys(pm) {
			fv := pm[f]
			fkey := key + "." + f
			switch f {
			case "input_per_mtok", "cache_hit_input_per_mtok", "output_per_mtok":
				x, ok := jsonio.Float(fv)
				if !ok || x < 0 {
					return cfgErr(fkey, src, "必须是 ≥ 0 的数", "must be a number ≥ 0", fv)
				}
				switch f {
				case "input_per_mtok":
					p.InputPerMtok = x
				case "output_per_mtok":
					p.OutputPerMtok = x
				default:
					p.CacheHitInputPerMtok, hit = x, true
				}
			case "currency":
				s, ok := fv.(string)
				if !ok || strings.TrimSpace(s) == "" {
					return cfgErr(fkey, src, "必须是非空字符串（如 CNY、USD）", "must be a non-empty string such as CNY or USD", fv)
				}
				p.Currency = s
			default:
				return cfgErr(fkey, src, "是未知的键（可用：input_per_mtok、cache_hit_input_per_mtok、output_per_mtok、currency）",
					"is not a known key (input_per_mtok, cache_hit_input_per_mtok, output_per_mtok, currency)", fv)
			}
		}
		for _, need := range []string{"input_per_mtok", "output_per_mtok"} {
			if _, ok := pm[need]; !ok {
				return cfgErr(key+"."+need, src, "缺失", "is missing", nil)
			}
		}
		if !hit {
			// A provider without a context cache bills cached tokens like any input.
			p.CacheHitInputPerMtok = p.InputPerMtok
		}
		l.Prices[model] = p
	}
	return nil
}

// sortedKeys makes the first reported error independent of map order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DefaultCommandTimeoutS is the command executor's timeout when
// NOVEL_AGENT_TIMEOUT is not set: a CLI agent may think for a long time.
const DefaultCommandTimeoutS = 1800

// CommandTimeoutS is the command executor's timeout in seconds
// (NOVEL_AGENT_TIMEOUT, default DefaultCommandTimeoutS); an invalid value
// is E_CONFIG naming the variable.
func CommandTimeoutS(getenv func(string) string) (int, error) {
	const name = "NOVEL_AGENT_TIMEOUT"
	v := getenv(name)
	if v == "" {
		return DefaultCommandTimeoutS, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, cfgErr(name, "env "+name, "必须是 ≥ 1 的整数（秒）", "must be an integer ≥ 1 (seconds)", v)
	}
	return n, nil
}
