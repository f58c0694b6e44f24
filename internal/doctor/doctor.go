// Package doctor is `novel doctor` (`novel-agent doctor`, SPEC §26): one
// report of whether a project, its tools and its model configuration can
// run, with a fix for every check that is not ok — before the first
// chapter fails. It is a report like novel-lint: the verdict is the
// "usable" field and the exit status, never an error line.
package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/provider"
	"github.com/novelsuite/novel/internal/settings"
)

// Statuses of a check.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
)

// Check is one line of the report.
type Check struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Report is the doctor's document: usable is false when any check fails.
type Report struct {
	Checks []Check `json:"checks"`
	Usable bool    `json:"usable"`
}

// Options are what the doctor looks at.
type Options struct {
	Root    *project.Root // nil: no project found
	RootErr error         // why no project was found
	RootRel string        // the project as the user sees it
	Getenv  func(string) string
	Offline bool   // skip the network
	SelfDir string // the directory of the running binary (tools next to it count)
	Lang    string // zh | en
}

type doctor struct {
	Options
	r Report
}

func (d *doctor) add(id, status, zh, en, fixZh, fixEn string) {
	detail, fix := zh, fixZh
	if d.Lang == "en" {
		detail, fix = en, fixEn
	}
	if status == OK {
		fix = ""
	}
	d.r.Checks = append(d.r.Checks, Check{ID: id, Status: status, Detail: detail, Fix: fix})
}

// Run performs every check.
func Run(o Options) *Report {
	d := &doctor{Options: o}
	d.project()
	d.tools()
	d.model()
	d.r.Usable = true
	for _, c := range d.r.Checks {
		if c.Status == Fail {
			d.r.Usable = false
		}
	}
	if d.r.Checks == nil {
		d.r.Checks = []Check{}
	}
	return &d.r
}

func (d *doctor) project() {
	if d.Root == nil {
		msg := "没有找到项目"
		if d.RootErr != nil {
			msg = errs.Coerce(d.RootErr).Message("zh")
		}
		en := "no project found"
		if d.RootErr != nil {
			en = errs.Coerce(d.RootErr).Message("en")
		}
		d.add("project.found", Fail, msg, en, "在项目目录中运行，或用 --project DIR 指明；新书用 novel init 创建", "run it inside the project, or name it with --project DIR; start a new book with novel init")
		return
	}
	d.add("project.found", OK, d.RootRel, d.RootRel, "", "")
	cp, err := checkpoint.Load(d.Root)
	if err != nil {
		e := errs.Coerce(err)
		d.add("project.checkpoint", Fail, e.Message("zh"), e.Message("en"), e.HintText("zh"), e.HintText("en"))
	} else {
		d.add("project.checkpoint", OK, fmt.Sprintf("已完成 %d 章，状态 %s", cp.LastCompleted, cp.State),
			fmt.Sprintf("%d chapters done, state %s", cp.LastCompleted, cp.State), "", "")
	}
	switch {
	case !d.Root.Exists(layout.CurrentState):
		d.add("project.state", OK, "尚无状态文件（新项目）", "no state file yet (a new project)", "", "")
	default:
		var st map[string]any
		if err := d.Root.ReadJSON(layout.CurrentState, &st); err != nil || st == nil {
			d.add("project.state", Fail, layout.CurrentState+" 无法解析", layout.CurrentState+" does not parse",
				"用 novel-commit rebuild-state 重建状态，或从版本库恢复该文件", "rebuild it with novel-commit rebuild-state, or restore the file from version control")
		} else {
			d.add("project.state", OK, layout.CurrentState+" 可解析", layout.CurrentState+" parses", "", "")
		}
	}
	journals, _ := d.Root.List("staging", ".journal.json", false)
	if len(journals) > 0 {
		d.add("project.journal", Fail, "有未完成的提交日志："+strings.Join(journals, "、"), "half-finished commit journals: "+strings.Join(journals, ", "),
			"重新运行被中断的 make -f pipeline.mk 命令，它会先完成或回退这次提交", "re-run the interrupted make -f pipeline.mk command: it finishes or rolls back that commit first")
	} else {
		d.add("project.journal", OK, "没有未完成的提交", "no half-finished commit", "", "")
	}
	st, err := lock.Inspect(d.Root, lock.Options{})
	switch {
	case err != nil:
		e := errs.Coerce(err)
		d.add("project.lock", Fail, e.Message("zh"), e.Message("en"), e.HintText("zh"), e.HintText("en"))
	case !st.Exists:
		d.add("project.lock", OK, "未加锁", "not locked", "", "")
	case st.Stale:
		d.add("project.lock", Warn, "有过期的锁（"+st.Reason+"）", "a stale lock ("+st.Reason+")",
			"下一次运行会接管它；也可 novel-lock break", "the next run takes it over; or run novel-lock break")
	default:
		d.add("project.lock", Warn, "另一个运行持有锁", "another run holds the lock",
			"等它结束（novel-lock status 查看）", "wait for it to finish (see novel-lock status)")
	}
}

// binaries are the suite's commands the pipeline runs.
var binaries = []string{"novel", "novel-step", "novel-lock", "novel-outline", "novel-manifest", "novel-gate", "novel-commit",
	"novel-foreshadow", "novel-agent", "novel-report", "novel-lint", "novel-audit"}

var makeVersionRE = lazyre.New(`GNU Make (\d+)\.`)

func (d *doctor) tools() {
	var missing []string
	for _, b := range binaries {
		if d.SelfDir != "" {
			if fi, err := os.Stat(filepath.Join(d.SelfDir, b)); err == nil && !fi.IsDir() {
				continue
			}
		}
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		d.add("tools.binaries", Fail, "找不到："+strings.Join(missing, "、"), "not found: "+strings.Join(missing, ", "),
			"运行 make build，并把 bin/ 加入 PATH", "run make build and put bin/ on PATH")
	} else {
		d.add("tools.binaries", OK, "novel-* 都在", "every novel-* binary is there", "", "")
	}
	out, err := exec.Command("make", "--version").Output()
	m := makeVersionRE().FindSubmatch(out)
	n := 0
	if m != nil {
		n, _ = strconv.Atoi(string(m[1]))
	}
	switch {
	case err != nil:
		d.add("tools.make", Fail, "找不到 make", "make not found", "安装 GNU Make 4 或更新版本", "install GNU Make 4 or later")
	case n < 4:
		d.add("tools.make", Fail, "需要 GNU Make ≥ 4", "GNU Make ≥ 4 is needed", "安装 GNU Make 4 或更新版本（macOS：brew install make，用 gmake）", "install GNU Make 4 or later (macOS: brew install make, then use gmake)")
	default:
		d.add("tools.make", OK, "GNU Make "+strconv.Itoa(n), "GNU Make "+strconv.Itoa(n), "", "")
	}
	for _, t := range []string{"java", "epubcheck"} {
		if _, err := exec.LookPath(t); err != nil {
			d.add("tools."+t, Warn, "找不到 "+t+"（可选：只用于校验导出的 EPUB）", t+" not found (optional: only to validate exported EPUBs)",
				"需要校验 EPUB 时安装 epubcheck（Debian：apt install epubcheck）", "install epubcheck if you want EPUBs validated (Debian: apt install epubcheck)")
		} else {
			d.add("tools."+t, OK, t+" 可用", t+" found", "", "")
		}
	}
}

func (d *doctor) model() {
	if d.Root != nil {
		if _, err := settings.Load(d.Root, d.Getenv); err != nil {
			e := errs.Coerce(err)
			d.add("settings.valid", Fail, e.Message("zh"), e.Message("en"), e.HintText("zh"), e.HintText("en"))
			return
		}
	}
	o, err := agent.OpenAIConfig(d.Root, d.Getenv)
	if err != nil {
		e := errs.Coerce(err)
		d.add("settings.valid", Fail, e.Message("zh"), e.Message("en"), e.HintText("zh"), e.HintText("en"))
		return
	}
	d.add("settings.valid", OK, layout.Settings+" 与 NOVEL_LLM_* 有效", layout.Settings+" and NOVEL_LLM_* are valid", "", "")
	base := o.BaseURL
	switch {
	case base == "":
		d.add("llm.base_url", Fail, "未设置 NOVEL_LLM_BASE_URL", "NOVEL_LLM_BASE_URL is not set",
			"设置为 API 地址（含版本路径），如 https://api.deepseek.com/v1", "set it to the API base including the version path, e.g. https://api.deepseek.com/v1")
		return
	case !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://"):
		d.add("llm.base_url", Fail, base+" 不是 http(s) 地址", base+" is not an http(s) URL", "例如 https://api.deepseek.com/v1", "for example https://api.deepseek.com/v1")
		return
	}
	d.add("llm.base_url", OK, base, base, "", "")
	how, howEn := "由地址识别", "detected from the address"
	if o.LLM.Provider != "" {
		how, howEn = "llm.provider 指定", "set by llm.provider"
	} else if o.Profile.Name == provider.OpenAI {
		how, howEn = "默认（地址不是已知服务）", "the default (the address is no known provider)"
	}
	d.add("llm.provider", OK, o.Profile.Name+"（"+how+"）", o.Profile.Name+" ("+howEn+")", "", "")
	if o.APIKey == "" {
		d.add("llm.api_key", Fail, "未设置 NOVEL_LLM_API_KEY", "NOVEL_LLM_API_KEY is not set", "设置 API 密钥（本地服务如 Ollama 可填任意值）", "set the API key (any value for local servers such as Ollama)")
	} else {
		d.add("llm.api_key", OK, "已设置", "set", "", "")
	}
	byModel, order, unset := map[string][]string{}, []string{}, []string{}
	for _, role := range agent.Roles {
		m := o.RoleModel(role, "")
		if m == "" {
			unset = append(unset, role)
			continue
		}
		if _, seen := byModel[m]; !seen {
			order = append(order, m)
		}
		byModel[m] = append(byModel[m], role)
	}
	if len(unset) > 0 {
		d.add("llm.model", Fail, "这些角色没有模型："+strings.Join(unset, "、"), "these roles have no model: "+strings.Join(unset, ", "),
			"设置 NOVEL_LLM_MODEL（如 deepseek-chat），或在 settings.json 的 llm.roles.{角色}.model 中设置", "set NOVEL_LLM_MODEL (e.g. deepseek-chat), or llm.roles.{role}.model in settings.json")
	}
	for _, m := range order {
		d.add("llm.model["+m+"]", OK, strings.Join(byModel[m], "、"), strings.Join(byModel[m], ", "), "", "")
	}
	for _, m := range order {
		if !d.Offline && o.APIKey != "" {
			d.probe(o, m, byModel[m])
		}
		if _, ok := o.LLM.Prices[m]; ok {
			d.add("llm.prices["+m+"]", OK, "有价格", "priced", "", "")
		} else {
			d.add("llm.prices["+m+"]", Warn, "llm.prices 里没有 "+m+" 的价格：费用记为 null，设置 BUDGET 的运行会被拒绝",
				"llm.prices has no price for "+m+": costs are null and a run with BUDGET is refused",
				"在 settings.json 的 llm.prices."+m+" 写上 input_per_mtok、output_per_mtok、currency", "add input_per_mtok, output_per_mtok and currency under llm.prices."+m+" in settings.json")
		}
	}
	if d.Offline {
		d.add("llm.network", Warn, "已跳过（--offline）：未检查密钥、模型、流式、用量、JSON 模式与输出上限", "skipped (--offline): key, model, streaming, usage, JSON mode and output limit not checked",
			"联网后不带 --offline 再运行一次", "run it again without --offline when online")
	}
}

// probePrompt is the one tiny request; it names "novel doctor", the
// marker the loopback fake (llmfake.ProbeMarker) answers without a script.
const probePrompt = "这是连接检查（novel doctor）：只回答 OK。"

// probe checks one model with the request its first role would send:
// reachable and authorised, the model served, streaming, usage and cache
// hits reported, JSON mode, and the largest max_tokens its roles ask.
func (d *doctor) probe(o *agent.OpenAI, model string, roles []string) {
	id := func(k string) string { return k + "[" + model + "]" }
	res := o.Probe(roles[0], probePrompt, 16, true, false)
	if res.Err != nil {
		switch {
		case res.Status == 401 || res.Status == 403:
			d.add(id("llm.auth"), Fail, "HTTP "+strconv.Itoa(res.Status)+"："+res.Message, "HTTP "+strconv.Itoa(res.Status)+": "+res.Message,
				"检查 NOVEL_LLM_API_KEY 是否是这个服务（"+o.Profile.Name+"）的有效密钥", "check that NOVEL_LLM_API_KEY is a valid key of this provider ("+o.Profile.Name+")")
		case res.Status == 0:
			d.add(id("llm.auth"), Fail, res.Err.Message("zh"), res.Err.Message("en"), "检查 NOVEL_LLM_BASE_URL 与网络，确认服务已启动", "check NOVEL_LLM_BASE_URL and the network; is the server running?")
		case modelMissing(res):
			d.add(id("llm.auth"), OK, "密钥有效", "the key is accepted", "", "")
			d.add(id("llm.model_exists"), Fail, "服务没有模型 "+model+"：HTTP "+strconv.Itoa(res.Status)+" "+res.Message,
				"the provider has no model "+model+": HTTP "+strconv.Itoa(res.Status)+" "+res.Message,
				"把 NOVEL_LLM_MODEL（或 llm.roles.{角色}.model）改成该服务的模型名", "set NOVEL_LLM_MODEL (or llm.roles.{role}.model) to a model name this provider serves")
		case strings.Contains(strings.ToLower(res.Message), "temperature"):
			// A model that takes one temperature only (Kimi K2.x) behind an
			// address that selects no profile.
			d.add(id("llm.request"), Fail, "HTTP "+strconv.Itoa(res.Status)+"："+res.Message, "HTTP "+strconv.Itoa(res.Status)+": "+res.Message,
				"在 settings.json 设置 llm.provider（如 kimi），让客户端发送该模型唯一接受的 temperature；或设置 llm.roles.{角色}.temperature",
				"set llm.provider in settings.json (e.g. kimi) so the client sends the only temperature the model takes, or set llm.roles.{role}.temperature")
		default:
			d.add(id("llm.request"), Fail, "HTTP "+strconv.Itoa(res.Status)+"："+res.Message, "HTTP "+strconv.Itoa(res.Status)+": "+res.Message,
				res.Err.HintText("zh"), res.Err.HintText("en"))
		}
		return
	}
	d.add(id("llm.auth"), OK, "密钥有效", "the key is accepted", "", "")
	d.add(id("llm.model_exists"), OK, "模型可用", "the model answers", "", "")
	if res.Streamed {
		d.add(id("llm.stream"), OK, "流式输出正常", "streaming works", "", "")
	} else {
		d.add(id("llm.stream"), Warn, "请求了流式输出，服务却一次性返回整个回答：空闲超时保护不起作用",
			"streaming was asked for but the server answered in one body: the idle timeout cannot protect a request",
			"在 settings.json 设置 llm.stream: false（或 NOVEL_LLM_STREAM=false），并按需调大 llm.timeout_s", "set llm.stream: false in settings.json (or NOVEL_LLM_STREAM=false) and raise llm.timeout_s as needed")
	}
	switch {
	case res.Usage && res.CacheHits:
		d.add(id("llm.usage"), OK, "报告用量与缓存命中", "usage and cache hits reported", "", "")
	case res.Usage:
		d.add(id("llm.usage"), OK, "报告用量（不报告缓存命中：缓存输入按未命中计价）", "usage reported (no cache-hit count: cached input is priced as uncached)", "", "")
	default:
		d.add(id("llm.usage"), Warn, "服务不报告用量：token 与费用按文本估算（usage_estimated，报告中标 ≈）",
			"the server reports no usage: tokens and cost are estimated from the text (usage_estimated, shown with ≈)",
			"无需处理；若服务有开关（如 stream_options.include_usage），打开它可得到准确用量", "nothing to do; if the server has a switch for usage, turning it on gives exact counts")
	}
	if jr := jsonRole(roles); jr != "" && o.LLM.JSONMode != settings.JSONOff {
		j := o.Probe(jr, probePrompt, 16, o.LLM.Stream, true)
		switch {
		case j.Err == nil:
			d.add(id("llm.json_mode"), OK, "接受 JSON 模式（"+jr+"）", "JSON mode accepted ("+jr+")", "", "")
		case j.JSONRefused && o.LLM.JSONMode == settings.JSONAuto:
			d.add(id("llm.json_mode"), Warn, "拒绝 JSON 模式："+j.Message+"（json_mode auto 会自动去掉它）", "JSON mode refused: "+j.Message+" (json_mode auto drops it)",
				"可不处理；或为 JSON 角色关闭思考：llm.roles."+jr+".thinking: \"off\"", "nothing needed; or turn thinking off for JSON roles: llm.roles."+jr+".thinking: \"off\"")
		default:
			d.add(id("llm.json_mode"), Fail, "HTTP "+strconv.Itoa(j.Status)+"："+j.Message, "HTTP "+strconv.Itoa(j.Status)+": "+j.Message,
				"把 llm.json_mode 设为 auto 或 off", "set llm.json_mode to auto or off")
		}
	}
	most, mostRole := 0, roles[0]
	for _, r := range roles {
		p := &agent.Packet{}
		p.Agent.Name = r
		if n, _ := o.Profile.CapMaxTokens(model, o.Params(p).MaxTokens); n > most {
			most, mostRole = n, r
		}
	}
	lim := o.Probe(mostRole, probePrompt, most, o.LLM.Stream, false)
	if lim.Err != nil {
		d.add(id("llm.output_limit"), Fail, "max_tokens "+strconv.Itoa(most)+"（"+mostRole+"）被拒绝：HTTP "+strconv.Itoa(lim.Status)+" "+lim.Message,
			"max_tokens "+strconv.Itoa(most)+" ("+mostRole+") refused: HTTP "+strconv.Itoa(lim.Status)+" "+lim.Message,
			"在 settings.json 调小 llm.roles."+mostRole+".max_tokens 到该模型接受的范围", "lower llm.roles."+mostRole+".max_tokens in settings.json to what the model accepts")
	} else {
		d.add(id("llm.output_limit"), OK, "max_tokens "+strconv.Itoa(most)+"（"+mostRole+"）被接受", "max_tokens "+strconv.Itoa(most)+" ("+mostRole+") accepted", "", "")
	}
}

// modelMissing reads a failure as "no such model" (HTTP 404, or a 400
// whose message says so, like DeepSeek's "Model Not Exist").
func modelMissing(res agent.ProbeResult) bool {
	low := strings.ToLower(res.Message)
	return res.Status == 404 || strings.Contains(low, "model") && (strings.Contains(low, "not exist") || strings.Contains(low, "not found") || strings.Contains(low, "does not exist"))
}

func jsonRole(roles []string) string {
	for _, r := range roles {
		if agent.Format(r) == agent.FormatJSON {
			return r
		}
	}
	return ""
}

// Text renders the report as a table: status, check, detail, and the fix
// under every check that is not ok; the last line is the verdict.
func (r *Report) Text(lang string) string {
	w := 0
	for _, c := range r.Checks {
		w = max(w, len(c.ID))
	}
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s  %-*s  %s\n", c.Status, w, c.ID, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "%-4s  %-*s  → %s\n", "", w, "", c.Fix)
		}
	}
	verdict := map[bool]string{true: "可用：是", false: "可用：否"}
	if lang == "en" {
		verdict = map[bool]string{true: "usable: yes", false: "usable: no"}
	}
	b.WriteString(verdict[r.Usable])
	return b.String()
}
