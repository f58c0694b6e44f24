package lint

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/platform"
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
		{BlacklistCheck, "不禁不禁不禁", "不禁不禁不禁不禁", 4},
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
			if c.Count < 0 || len(c.Evidence) > Thresholds.EvidenceMax || c.Evidence == nil {
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
