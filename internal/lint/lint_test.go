package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// chapter builds chapter 1 with n filler 字 (ten per line) after extra.
func chapter(extra string, n int) string {
	var b strings.Builder
	b.WriteString("# 第1章 界\n\n" + extra + "\n")
	for ; n >= 10; n -= 10 {
		b.WriteString("一二三四五六七八九十\n")
	}
	b.WriteString(strings.Repeat("字", n) + "\n")
	return b.String()
}

func cfg() Config {
	p, _ := platform.Builtin(platform.General)
	return Config{Profile: p, QuoteStyle: settings.QuoteCorner, Blacklist: []string{"不禁"}}
}

func count(t *testing.T, text, id string) int {
	t.Helper()
	r := Run(Input{Chapter: 1, File: "x.md", Stage: StageRefine, Text: text}, cfg())
	for _, c := range r.Checks {
		if c.ID == id {
			return c.Count
		}
	}
	t.Fatalf("no check %s", id)
	return 0
}

// Each rate limit fires strictly above its threshold: at exactly the
// limit per 1000 words nothing fires, one more occurrence does.
func TestThresholdsAreStrict(t *testing.T) {
	cases := []struct {
		id      string
		at, one string // text at the limit, one occurrence more (1000 字 in all)
		want    int
	}{
		{Dashes, "甲——乙", "甲——乙——丙", 2},
		{Dashes, "甲……乙……丙", "甲……乙……丙……丁", 3},
		{AIPatterns, "仿佛宛如犹如", "仿佛宛如犹如好似", 4},
		{AIPatterns, "然而因此", "然而因此与此同时", 3},
		{AIPatterns, "他不是我，而是你。", "他不是我，而是你。她不是我，而是他。", 2},
		{AIPatterns, "他感到冷。她感到热。", "他感到冷。她感到热。心中涌起一股暖意。", 3},
		{blacklistCheck, "不禁不禁不禁", "不禁不禁不禁不禁", 4},
	}
	for _, c := range cases {
		at := chapter(c.at, 1000-utf8.RuneCountInString(c.at))
		one := chapter(c.one, 1000-utf8.RuneCountInString(c.one))
		if n := count(t, at, c.id); n != 0 {
			t.Errorf("%s at the limit (%q): count %d, want 0", c.id, c.at, n)
		}
		if n := count(t, one, c.id); n != c.want {
			t.Errorf("%s over the limit (%q): count %d, want %d", c.id, c.one, n, c.want)
		}
	}
}

func TestConnectorsInDialogueDoNotCount(t *testing.T) {
	text := chapter("「然而因此与此同时不仅如此」", 100)
	if n := count(t, text, AIPatterns); n != 0 {
		t.Fatalf("dialogue connectors counted: %d", n)
	}
}

func TestParagraphAndHeadingBoundaries(t *testing.T) {
	if n := count(t, chapter(strings.Repeat("长", 200), 0), Paragraphs); n != 0 {
		t.Fatalf("a 200-字 paragraph fired")
	}
	if n := count(t, chapter(strings.Repeat("长", 201), 0), Paragraphs); n != 1 {
		t.Fatalf("a 201-字 paragraph did not fire")
	}
	thirty := "# 第1章 " + strings.Repeat("题", 30) + "\n正文。\n"
	if n := count(t, thirty, Heading); n != 0 {
		t.Fatalf("a 30-character title fired")
	}
	if n := count(t, "# 第01章 题\n正文。\n", Heading); n != 0 {
		t.Fatalf("zero padding is the same chapter number")
	}
}

func TestMetaLeakNeedsBoundaries(t *testing.T) {
	for text, want := range map[string]int{
		"他看见W-001。":           1,
		"编号XW-0012不是规则。":      0,
		"C-lin-feng-1 出现了":    1,
		"路径 volumes/vol-01 里": 1,
		"pipeline_stage 变了":   1,
		"plain english words": 0,
		"foreshadowing 一词":    1,
		"读了 notes.json 才知道":   1,
	} {
		if n := count(t, chapter(text, 10), MetaLeak); n != want {
			t.Errorf("%q: meta_leak %d, want %d", text, n, want)
		}
	}
}

func TestRefusalAndFixes(t *testing.T) {
	c := cfg()
	c.Profile.Chosen = true
	r := Run(Input{Chapter: 1, File: "staging/chapters/chapter-001.md", Stage: StageDraft, Text: chapter("<think>嗯</think>", 10)}, c)
	if got := len(r.Fired(Error)); got != 2 {
		t.Fatalf("fired errors = %d, want length and model_artifacts", got)
	}
	fixes := r.Fixes("zh", GateBlocking...)
	if len(fixes) != 2 || fixes[0][0] != "lint:length" || !strings.Contains(fixes[0][1], "2500–3500") ||
		fixes[1][0] != "lint:model_artifacts" || !strings.Contains(fixes[1][1], "L3 <think>嗯</think>") {
		t.Fatalf("fixes = %q", fixes)
	}
	if err := r.Refusal("chapter:001:draft"); err == nil || !strings.Contains(err.Error(), "E_LINT") {
		t.Fatalf("refusal = %v", err)
	}
	clean := Run(Input{Chapter: 1, File: "x", Stage: StageRefine, Text: chapter("", 2600)}, c)
	if err := clean.Refusal("x"); err != nil {
		t.Fatalf("clean chapter refused: %v", err)
	}
}

func FuzzRun(f *testing.F) {
	f.Add("# 第1章 题\n「你好」——他说……\n```json\n{\"hints\":[]}\n```\n", "draft")
	f.Add("<think>\n\n第一章\r\nW-001 staging/ “”\"", "refine")
	f.Fuzz(func(t *testing.T, text, stage string) {
		r := Run(Input{Chapter: 1, File: "f", Stage: stage, Text: text, Previous: text}, cfg())
		if len(r.Checks) != 11 || r.WordCount < 0 {
			t.Fatalf("report %+v", r)
		}
		errors := 0
		for _, c := range r.Checks {
			if c.Count < 0 || len(c.Evidence) > thresholds.EvidenceMax || c.Evidence == nil {
				t.Fatalf("check %+v", c)
			}
			if c.Count > 0 && c.Severity == Error {
				errors++
			}
		}
		if errors != r.Summary.Errors {
			t.Fatalf("summary %+v, %d errors", r.Summary, errors)
		}
	})
}

func TestChatPhrasesInDialogueAreProse(t *testing.T) {
	if n := count(t, chapter("「好的，以下是我的条件。」他说。", 100), ModelArtifacts); n != 0 {
		t.Fatalf("a character's line counted as a chat artefact: %d", n)
	}
	if n := count(t, chapter("好的，以下是本章正文。", 100), ModelArtifacts); n != 1 {
		t.Fatalf("a chat line in narration: %d", n)
	}
}

// A chat phrase is an assistant talking to its user only as a whole line
// or at a line's start (SPEC §24); the same words inside narration are
// story (field trial F23).
func TestChatPhrasesOnlyAtALineStart(t *testing.T) {
	chat := []string{
		"好的，以下是本章正文。",
		"好的,以下是第2章的内容：",
		"好的！以下是第七章的正文：",
		"以下是修改后的版本：",
		"希望对你有帮助！",
		"希望对您有帮助。",
		"　　希望这个版本符合你的要求。",
		"作为一个AI语言模型，我无法完成这个请求。",
		"作为AI助手，我建议如下。",
		"作为一个人工智能助手，我会继续写。",
		"如果你需要，我可以继续写下一章。",
		"如果您需要修改，我可以再调整。",
		"如需调整，请告诉我。",
		"**好的，以下是第3章：**",
		"（字数：3012）",
		"字数统计：3012",
		"希望你喜欢这一章！",
		"如需调整请告诉我。",
		"如需修改，随时告诉我。",
		"如果你想让陆照更果断一些，我可以再改一版。",
	}
	for _, line := range chat {
		if n := count(t, chapter(line, 100), ModelArtifacts); n != 1 {
			t.Errorf("%q: %d chat lines, want 1", line, n)
		}
	}
	narration := []string{
		"作为一个AI研究员，他熬了三个通宵。",
		"如果你需要钱，就去码头。",
		"师父说过，如果你需要什么，开口就是。",
		"如果你需要帮忙，就去找秦长老。",
		"石碑上刻着殿规，以下是第一条：入夜不得喧哗。",
		"他翻开账册，字数统计那一栏是空的。",
		"\"如果你需要帮忙，就喊我。\"她说。",
		"「好的，以下是我的条件。」他说。",
		"他说作为AI助手的日子早就过去了。",
		"她希望对你有帮助的人不是他。",
		"如需调整阵型，便去找执事。",
		"希望你平安回来，她想。",
		"如果你想走，现在就走。",
	}
	for _, line := range narration {
		if n := count(t, chapter(line, 100), ModelArtifacts); n != 0 {
			t.Errorf("%q: narration counted as %d chat lines", line, n)
		}
	}
}

// stringValuesBefore is stringValues as it was before indexKey (the
// oracle: the same raw values, in the same order).
func stringValuesBefore(data, key []byte) [][]byte {
	var out [][]byte
	for from := 0; ; {
		i := bytes.Index(data[from:], key)
		if i < 0 {
			return out
		}
		j := from + i + len(key)
		from = j
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != ':' {
			continue
		}
		j++
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != '"' {
			continue
		}
		k := j + 1
		for k < len(data) && data[k] != '"' {
			if data[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(data) {
			return out
		}
		out = append(out, data[j:k+1])
		from = k + 1
	}
}

var stringValuesSeeds = []string{
	``, `"`, `"name"`, `name"`, `""name"`, `"name":`, `"name": "`, `"name": "a`,
	`{"name": "甲乙", "display_name": "丙丁", "x": {"name":"a\"b"}}`,
	`{"username": "x", "nickname": "name", "name" : "n1", "a": "\"name\": \"q\""}`,
	`{"display_name":"a","xdisplay_name":"b","display_name" :  "c\\"}`,
	`"name""name": "v" "name"`, `namename"name"name": "z"`, `"x \"name": "y"`,
	"{\n  \"name\":\n\t\"tab\"\r\n}", `"name": 12, "name": "s"`, `"name": "unterminated \`,
}

func TestStringValuesSameAsBefore(t *testing.T) {
	for _, s := range stringValuesSeeds {
		for _, key := range []string{`"name"`, `"display_name"`} {
			got, want := stringValues([]byte(s), []byte(key)), stringValuesBefore([]byte(s), []byte(key))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q %s: %q, want %q", s, key, got, want)
			}
		}
	}
}

func FuzzStringValues(f *testing.F) {
	for _, s := range stringValuesSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, key := range []string{`"name"`, `"display_name"`} {
			got, want := stringValues([]byte(s), []byte(key)), stringValuesBefore([]byte(s), []byte(key))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q %s: %q, want %q", s, key, got, want)
			}
		}
	})
}

// LoadTerms: the characters' display names, then the state's "name"
// and "display_name" values (two characters or more), then the style
// profile's preferred expressions, stably longest first; the characters'
// error wins over the state's.
func TestLoadTermsOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("characters/active/b.json", `{"display_name":"乙二"}`)
	write("characters/active/a.json", `{"display_name":"甲一号"}`)
	write("state/current-state.json", `{"items":{"i":{"name":"青铜灯","owner":"a"}},"characters":{"a":{"display_name":"甲"}},"factions":{"f":{"name": "长明殿"}},"x":{"name":"丙丁"}}`)
	write("style-profile.json", `{"preferred_expressions":["灯火",1,"风过长廊"]}`)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadTerms(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := "风过长廊 甲一号 青铜灯 长明殿 乙二 丙丁 灯火"; strings.Join(got, " ") != want {
		t.Fatalf("terms %q, want %s", got, want)
	}
	write("characters/active/c.json", `[]`)
	write("state/current-state.json", "\xff")
	if _, err := LoadTerms(root); !strings.Contains(fmt.Sprint(err), "characters/active/c.json") {
		t.Fatalf("err %v, want the character file's", err)
	}
}
