package provider

import "testing"

func TestDetect(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.deepseek.com/v1":                            DeepSeek,
		"https://dashscope.aliyuncs.com/compatible-mode/v1":      Qwen,
		"https://dashscope-intl.aliyuncs.com/compatible-mode/v1": Qwen,
		"https://api.moonshot.cn/v1":                             Kimi,
		"https://api.moonshot.ai/v1":                             Kimi,
		"https://open.bigmodel.cn/api/paas/v4":                   GLM,
		"https://api.z.ai/api/paas/v4":                           GLM,
		"http://127.0.0.1:11434/v1":                              Ollama,
		"http://127.0.0.1:8000/v1":                               OpenAI,
		"https://api.openai.com/v1":                              OpenAI,
		"https://example.com/deepseek/v1":                        OpenAI,
		"not a url":                                              OpenAI,
	} {
		if got := detect(url).Name; got != want {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
	}
	if Resolve(VLLM, "http://127.0.0.1:8000/v1").Name != VLLM || Resolve("", "https://api.deepseek.com").Name != DeepSeek {
		t.Error("resolve")
	}
}

func TestFinishKinds(t *testing.T) {
	glm, ds, plain := get(GLM), get(DeepSeek), get(OpenAI)
	for _, c := range []struct {
		p      *Profile
		reason string
		want   Finish
	}{
		{plain, "stop", Normal}, {plain, "length", Truncated}, {plain, "content_filter", Filtered},
		{plain, "", Truncated}, {plain, "eos", Truncated}, {plain, "sensitive", Truncated},
		{glm, "sensitive", Filtered}, {glm, "network_error", Transient}, {glm, "model_context_window_exceeded", Truncated},
		{ds, "insufficient_system_resource", Transient}, {plain, "insufficient_system_resource", Truncated},
	} {
		if got := c.p.FinishKind(c.reason); got != c.want {
			t.Errorf("%s %q: %d, want %d", c.p.Name, c.reason, got, c.want)
		}
	}
}

func TestRefusalShapes(t *testing.T) {
	if !get(DeepSeek).Refused("Content Exists Risk", "invalid_request_error") || get(DeepSeek).Refused("Model Not Exist", "invalid_request_error") {
		t.Error("deepseek")
	}
	if !get(GLM).Refused("系统检测到输入或生成内容可能包含不安全或敏感内容", "1301") || !get(GLM).Refused("x", "1301") || get(GLM).Refused("1301 tokens", "1302") {
		t.Error("glm")
	}
	if !get(GLM).OutOfBalance(`"1113"`) || get(DeepSeek).OutOfBalance("1113") {
		t.Error("balance")
	}
	if !get(OpenAI).Refused("Input data may contain inappropriate content.", "data_inspection_failed") {
		t.Error("bailian")
	}
	if !get(Qwen).JSONRefused("<400> InternalError.Algo.InvalidParameter: Json mode response is not supported when enable_thinking is true") ||
		get(OpenAI).JSONRefused("json mode response is not supported when enable_thinking is true") || !get(OpenAI).JSONRefused("'response_format' is not supported") {
		t.Error("json mode")
	}
}

func TestModelRules(t *testing.T) {
	ds := get(DeepSeek)
	if n, lim := ds.CapMaxTokens("deepseek-chat", 16384); n != 8192 || lim != 8192 {
		t.Error(n, lim)
	}
	if n, lim := ds.CapMaxTokens("deepseek-reasoner", 16384); n != 16384 || lim != 65536 {
		t.Error(n, lim)
	}
	if n, lim := get(Qwen).CapMaxTokens("qwen-plus", 99999); n != 99999 || lim != 0 {
		t.Error(n, lim)
	}
	k := get(Kimi)
	if v, ok := k.FixedTemperature("kimi-k2.5", true); !ok || v != 1 {
		t.Error(v, ok)
	}
	if v, ok := k.FixedTemperature("kimi-k2.6-preview", false); !ok || v != 0.6 {
		t.Error(v, ok)
	}
	if v, ok := k.FixedTemperature("kimi-k3", false); !ok || v != 1 {
		t.Error(v, ok)
	}
	if _, ok := k.FixedTemperature("moonshot-v1-8k", true); ok {
		t.Error("moonshot-v1 takes any temperature")
	}
	if sw := k.ThinkingSwitch("kimi-k2.5", false); sw["thinking"].(map[string]any)["type"] != "disabled" {
		t.Error(sw)
	}
	if sw := k.ThinkingSwitch("kimi-k3", false); sw != nil {
		t.Error("k3 cannot turn thinking off", sw)
	}
	if sw := get(Qwen).ThinkingSwitch("qwen3-32b", false); sw["enable_thinking"] != false {
		t.Error(sw)
	}
	if sw := get(VLLM).ThinkingSwitch("Qwen/Qwen3-32B", true); sw["chat_template_kwargs"].(map[string]any)["enable_thinking"] != true {
		t.Error(sw)
	}
	if sw := ds.ThinkingSwitch("deepseek-chat", true); sw != nil {
		t.Error(sw)
	}
}
