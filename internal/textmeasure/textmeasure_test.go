package textmeasure

import (
	"reflect"
	"strings"
	"testing"
)

func TestCountBlacklistByHand(t *testing.T) {
	text := "他不禁一愣，仿佛看见了什么。空气仿佛凝固，他不禁后退。仿佛"
	l := CountBlacklist([]string{"不禁", "仿佛", "空气仿佛凝固", "映入眼帘"}, text, 30)
	want := BlacklistCount{TotalHits: 6, HitsPerKChar: 200, Hits: []BlacklistHit{{"仿佛", 3}, {"不禁", 2}, {"空气仿佛凝固", 1}}}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("lint = %+v", l)
	}
	if l := CountBlacklist(nil, "", 0); l.TotalHits != 0 || l.Hits == nil || l.HitsPerKChar != 0 {
		t.Fatalf("empty lint = %+v", l)
	}
	if l := CountBlacklist([]string{"甲"}, "甲甲甲", 7); l.HitsPerKChar != 428.571 {
		t.Fatalf("rounding: %v", l.HitsPerKChar)
	}
}

func TestWordCount(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"# 第一章 雨夜\n\n林枫推开门。", 6},      // the heading line is not body
		{"\n  ## 标题\n正文　内容\t\n", 4},    // the first non-empty line is the heading
		{"正文在前\n## 小节\n后文", 4 + 2 + 2}, // a later heading line is body, its markers are not
		{"a # b", 3},    // '#' inside a line counts
		{"####\n", 0},   // a bare heading marker
		{"\uFEFF你好", 2}, // a BOM is not a character
		{"“走吧。”他说。", 8}, // punctuation counts
		{"他用iPhone 15拍下了AI生成的图。", 13},                       // ASCII letter/digit runs count one each
		{"# 第1章\n正文。\n\n```json\n{\"hints\":[]}\n```\n", 3}, // a trailing hints block is not text
	}
	for _, c := range cases {
		if got := WordCount(c.text); got != c.want {
			t.Errorf("WordCount(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func TestMeasureHandCount(t *testing.T) {
	text := "# 第一章\n\n林枫抬头。「你来了？」他问。\n风很大\n"
	// 林枫抬头。=5, 「你来了？」=6, 他问。=3, 风很大=3 → 17 words;
	// sentences: 林枫抬头。/你来了？/」他问。/风很大 → 4; dialogue: 你来了？ = 4.
	if got, want := Measure(text), (Stats{Words: 17, Sentences: 4, Dialogue: 4}); got != want {
		t.Fatalf("Measure = %+v, want %+v", got, want)
	}
}

func TestSentencesAndNarration(t *testing.T) {
	got := Sentences("他说：「不是我。」她笑了！？然后呢")
	want := []string{"他说：「不是我。」", "她笑了！？", "然后呢"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sentences = %q", got)
	}
	// A nested quote's closing mark stays with its sentence too.
	if got := Sentences("「他说『走吧。』」于是走了。"); !reflect.DeepEqual(got, []string{"「他说『走吧。』」", "于是走了。"}) {
		t.Fatalf("nested quotes: %q", got)
	}
	depth := 0
	n := Narration("然而「因此」然后“然而", &depth)
	if n != "然而"+strings.Repeat(" ", 12)+"然后"+strings.Repeat(" ", 9) || depth != 1 {
		t.Fatalf("Narration = %q depth %d", n, depth)
	}
	if n := Narration("因此」因此", &depth); n != strings.Repeat(" ", 9)+"因此" || depth != 0 {
		t.Fatalf("Narration across lines = %q depth %d", n, depth)
	}
}
