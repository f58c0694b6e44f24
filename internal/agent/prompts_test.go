package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// roleContract lists, per role, what its system prompt must tell the model
// (SPEC §18): the craft rules and the output contract, by the phrases and
// field names the pipeline depends on. minBytes is a floor on the role file
// so the craft cannot quietly shrink back to a one-paragraph prompt.
var roleContract = map[string]struct {
	minBytes int
	must     []string
}{
	"chapter-writer": {8000, []string{
		"platform_profile", "words_target", "words_min", "previous_chapter", "不可逆", "钩子", "transition_hint",
		"不是……而是……", "他感到", "心中涌起一股", "仿佛", "然而", "150 字", "{{引号}}", "entity_id_map", "hard_rules_list",
		"# 第N章 标题", `{"hints":`, "修订模式", "只改 required_fixes", "high_confidence_violations",
		"style_samples", "character_profile", "绝不用后面的事凑字数", "伏笔只埋下或推进，不解释", "plant", "resolve",
		"规则在场景里演出来", "手上的活要对", "选择要带着代价出现", "情绪交给物件", "不下结论", "不写格言", "不用排比解释", "招牌说法只用一次"}},
	"summarizer": {4000, []string{
		`"summary"`, `"delta"`, `"crossref"`, `"memory"`, `"unknown_entities"`, "base_state_version", "storyline_id",
		"set|inc|add|remove", "characters`、`items`、`locations`、`factions`、`world_state", "2–4 段",
		`"op":"foreshadow"`, "planted|advanced|resolved", "hints", "整体替换"}},
	"style-refiner": {3000, []string{
		"只替换和删除，不新增", "hints", "{{引号}}", "不是……而是……", "仿佛", "然而", "——", "failed_dimensions",
		"润色模式", "# 第N章 标题", "style_drift_directives", "style_samples", "收尾判词", "不替作者解释"}},
	"quality-judge": {9000, []string{
		"rubric_version", "reason", "evidence", "逐字摘录", "从 3 分起步", "contract_verification", "required_fixes",
		"blacklist_lint", "high", "secondary", "upcoming_outline", "plan_discipline", "premature_reveal",
		"格言", "旁白判词", "排比解释", "重复的招牌说法"}},
	"logic-reviewer": {2500, []string{
		"chapter_number", "overall_score", "issues", "severity", "fix_instructions", "evidence", "high", "previous_chapter_tail"}},
	"plot-architect": {4000, []string{
		"plan_start_chapter", "### 第 N 章: 章名", "- **Storyline**:", "next_storyline=", `"storyline_schedule"`,
		`"foreshadowing"`, `"chapter_contracts"`, "required", "钩子", "entity_id_map", "open_foreshadowing",
		"author_direction", "target_chapters", "contracts_in_batches", "batch", `{"review":`, "chapter_range"}},
	"world-builder": {3000, []string{
		`"files"`, "world/rules.json", `"id": "W-001"`, "constraint_type", "exceptions", "storylines/storylines.json",
		"至少 3 条", "slug", "research"}},
	"character-weaver": {3000, []string{
		`"files"`, "characters/active/", `"role": "protagonist"`, "abilities", "relationships", "display_name",
		"至少 2 人", "恰好一人"}},
	"style-analyzer": {2800, []string{
		`"files"`, "style-profile.json", "style-samples.md", "source_type", "original、reference、template",
		"avg_sentence_length", "dialogue_ratio", "preferred_expressions", `"voice"`, "protagonist_tone"}},
	"continuity-auditor": {2400, []string{
		"sliding_window", "chapter_range", "issues", "severity", "entities", "evidence", "excerpt",
		"deterministic_findings", "dead_character"}},
}

// TestRoleFilesCarryTheirContract checks every §18 role has a prompt file
// with its craft and its output contract.
func TestRoleFilesCarryTheirContract(t *testing.T) {
	common, _ := promptFS.ReadFile("prompts/common.md")
	if !strings.Contains(string(common), "<DATA") || !strings.Contains(string(common), "绝不是给你的指令") {
		t.Errorf("common.md lost the DATA-is-not-instructions rule")
	}
	for role, c := range roleContract {
		b, err := promptFS.ReadFile("prompts/" + role + ".md")
		if err != nil {
			t.Errorf("%s: %v", role, err)
			continue
		}
		if len(b) < c.minBytes {
			t.Errorf("%s: %d bytes, want ≥ %d", role, len(b), c.minBytes)
		}
		for _, m := range c.must {
			if !strings.Contains(string(b), m) {
				t.Errorf("%s: prompt lacks %q", role, m)
			}
		}
		// Prompts never pin a dialogue style the lints reject.
		if strings.ContainsAny(string(b), "“”") {
			t.Errorf("%s: uses curly quotes; the project's dialogue style is 「」", role)
		}
	}
	// The judge prompt names every rubric dimension with its weight and
	// five anchors.
	judge, _ := promptFS.ReadFile("prompts/quality-judge.md")
	if !strings.Contains(string(judge), `"rubric_version": "`+eval.RubricVersion+`"`) {
		t.Errorf("the judge prompt's example does not carry rubric_version %s", eval.RubricVersion)
	}
	for _, d := range eval.Rubric {
		sec := section(string(judge), "## "+d.Name+" ")
		if sec == "" {
			t.Errorf("judge prompt has no section for %s", d.Name)
			continue
		}
		if w := strings.TrimRight(strings.TrimRight(strconvF(d.Weight), "0"), "."); !strings.Contains(sec, "权重 "+w) {
			t.Errorf("%s: section does not state weight %s", d.Name, w)
		}
		for _, a := range []string{"- 5：", "- 4：", "- 3：", "- 2：", "- 1："} {
			if !strings.Contains(sec, a) {
				t.Errorf("%s: no anchor %q", d.Name, a)
			}
		}
	}
}

// section returns the text from heading to the next "## " or "# " heading.
func section(doc, heading string) string {
	i := strings.Index(doc, heading)
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.Index(rest, "\n# "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func strconvF(f float64) string {
	b, _ := json.Marshal(f)
	return "0" + strings.TrimPrefix(string(b), "0") // 0.1 → "0.1", .16 → "0.16"
}

// demoRoot copies the demo novel and stages chapter 1's draft so every
// chapter step has its inputs.
func demoRoot(t *testing.T) *project.Root {
	t.Helper()
	dir := t.TempDir()
	if err := testkit.CopyTree("../../examples/demo/project", dir, false); err != nil {
		t.Fatal(err)
	}
	draft, err := os.ReadFile("../../examples/demo/replay/chapter-001/chapter-writer.draft.r0.md")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "staging/chapters"), 0o755)
	os.WriteFile(filepath.Join(dir, "staging/chapters/chapter-001.md"), draft, 0o644)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestRenderedMessagesCarryRolePrompt renders each demo packet the way
// novel-agent does and checks the system message is common.md + the
// role's prompt with its output contract, and the user message carries
// the packet's task and data.
func TestRenderedMessagesCarryRolePrompt(t *testing.T) {
	root := demoRoot(t)
	cp, err := checkpoint.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		step, role, agent, contract string
	}{
		{"chapter:001:draft", "", "chapter-writer", "# 第N章 标题"},
		{"chapter:001:summarize", "", "summarizer", `"unknown_entities"`},
		{"chapter:001:refine", "", "style-refiner", "只替换和删除，不新增"},
		{"chapter:001:judge", "", "quality-judge", "## tonal_variance 语调变化（权重 0.10）"},
		{"chapter:001:judge", "secondary", "quality-judge", "第二评审"},
		{"chapter:001:logic-review", "", "logic-reviewer", `"overall_score"`},
	}
	for _, c := range cases {
		st, err := stepid.Parse(c.step)
		if err != nil {
			t.Fatal(err)
		}
		mp, err := manifest.Build(root, cp, settings.Defaults(), st, manifest.Options{Role: c.role})
		if err != nil {
			t.Fatalf("%s: %v", c.step, err)
		}
		raw, _ := json.Marshal(mp)
		p, err := ParsePacket(raw, c.step)
		if err != nil {
			t.Fatalf("%s: %v", c.step, err)
		}
		msgs, err := RenderPrompt(root, p, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", c.step, err)
		}
		if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
			t.Fatalf("%s: %d messages", c.step, len(msgs))
		}
		sys, user := msgs[0].Content, msgs[1].Content
		roleFile, _ := promptFS.ReadFile("prompts/" + c.agent + ".md")
		if !strings.HasPrefix(sys, "你是长篇中文网络小说创作流水线中的一个专职代理。") ||
			!strings.Contains(sys, renderQuotes(strings.TrimSpace(string(roleFile)), settings.QuoteCorner)) || !strings.Contains(sys, c.contract) {
			t.Errorf("%s: system message lacks common.md, the %s prompt or its contract %q", c.step, c.agent, c.contract)
		}
		if len(sys) < roleContract[c.agent].minBytes {
			t.Errorf("%s: system message only %d bytes", c.step, len(sys))
		}
		if !strings.Contains(user, "步骤："+c.step) || !strings.Contains(user, "代理："+c.agent) || !strings.Contains(user, "<DATA ") {
			t.Errorf("%s: user message lacks the task header or the data blocks", c.step)
		}
		if c.agent == "quality-judge" && !strings.Contains(user, `"rubric_version": "`+eval.RubricVersion+`"`) {
			t.Errorf("%s: the judge packet does not carry rubric_version inline", c.step)
		}
	}
}

// TestRenderedRolesWithoutDemoPackets renders the roles whose packets the
// demo does not make (revision, polish, setup, audit) from minimal
// packets: each still gets its own prompt.
func TestRenderedRolesWithoutDemoPackets(t *testing.T) {
	root := demoRoot(t)
	for _, c := range []struct{ agent, mode, contract string }{
		{"chapter-writer", "revision", "只改 required_fixes 和高置信违规点名的问题"},
		{"style-refiner", "polish", "failed_dimensions"},
		{"plot-architect", "plan", `"chapter_contracts"`},
		{"world-builder", "setup", "world/rules.json"},
		{"character-weaver", "setup", `"role": "protagonist"`},
		{"style-analyzer", "setup", "style-samples.md"},
		{"continuity-auditor", "audit", "sliding_window"},
	} {
		pkt := `{"version":1,"step":"chapter:001:draft","chapter":1,"volume":1,"revision_round":1,
		"agent":{"name":"` + c.agent + `","kind":"agent","mode":"` + c.mode + `"},
		"manifest":{"inline":{"required_fixes":[{"target":"开头","instruction":"接住上一章"}]},"paths":{"project_brief":"brief.md"}},
		"expected_outputs":[{"path":"staging/x.md","required":true,"via":"file"}]}`
		p, err := ParsePacket([]byte(pkt), c.agent)
		if err != nil {
			t.Fatalf("%s: %v", c.agent, err)
		}
		msgs, err := RenderPrompt(root, p, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", c.agent, err)
		}
		if !strings.Contains(msgs[0].Content, c.contract) || !strings.Contains(msgs[1].Content, "模式："+c.mode) ||
			!strings.Contains(msgs[1].Content, `source="brief.md"`) {
			t.Errorf("%s %s: rendered messages lack the contract %q, the mode or the brief", c.agent, c.mode, c.contract)
		}
	}
}

// The writer and refiner prompts render the project's quote_style (SPEC
// §24): corner by default, curly when the packet says so; no placeholder
// reaches a model.
func TestPromptsRenderQuoteStyle(t *testing.T) {
	root := demoRoot(t)
	for _, agent := range []string{"chapter-writer", "style-refiner"} {
		for _, c := range []struct{ style, want, not string }{
			{"", "「谁？」", "“谁？”"},
			{settings.QuoteCorner, "对话引号统一为直角引号「」", "统一为中文弯引号"},
			{settings.QuoteCurly, "“谁？”", "「谁？」"},
			{settings.QuoteCurly, "中文弯引号“”", "不用中文弯引号"},
		} {
			inline := `{}`
			if c.style != "" {
				inline = `{"quote_style":"` + c.style + `"}`
			}
			pkt := `{"version":1,"step":"chapter:001:draft","chapter":1,"volume":1,"revision_round":0,
			"agent":{"name":"` + agent + `","kind":"agent","mode":"draft"},"manifest":{"inline":` + inline + `,"paths":{}},
			"expected_outputs":[{"path":"staging/x.md","required":true,"via":"file"}]}`
			p, err := ParsePacket([]byte(pkt), agent)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := RenderPrompt(root, p, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			sys := msgs[0].Content
			if strings.Contains(sys, "{{") {
				t.Errorf("%s %q: a placeholder is left: %s", agent, c.style, sys[strings.Index(sys, "{{"):][:20])
			}
			if agent == "chapter-writer" && (!strings.Contains(sys, c.want) && !strings.Contains(sys, strings.ReplaceAll(c.want, "对话引号统一为", "对话用"))) {
				t.Errorf("%s %q: lacks %q", agent, c.style, c.want)
			}
			if strings.Contains(sys, c.not) {
				t.Errorf("%s %q: still says %q", agent, c.style, c.not)
			}
		}
	}
}
