package outline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestParseNumber(t *testing.T) {
	good := map[string]int{
		"1": 1, "12": 12, "012": 12, "0048": 48, "１２": 12,
		"一": 1, "十": 10, "十二": 12, "二十": 20, "二十三": 23, "一百": 100, "两百": 200,
		"一百零三": 103, "一百一十": 110, "一百一": 110, "一千零五": 1005, "一千零十": 1010,
		"一千零五十": 1050, "两千五": 2500, "九百九十九": 999, "一万": 10000, "一万零一": 10001,
		"一万二千": 12000, "一万一": 11000, "十万": 100000, "一二〇": 120, "三": 3, "二百零八": 208, "〇〇一": 1,
	}
	for s, want := range good {
		if got, ok := ParseNumber(s); !ok || got != want {
			t.Errorf("ParseNumber(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "0", "00", "零", "十十", "百", "一百零", "二二十", "一十百",
		"百一", "十百", "一万万", "1万", "a", "-1", "1000000", "一零零零零零零", "三五万", "一万十", "十二章"} {
		if got, ok := ParseNumber(s); ok {
			t.Errorf("ParseNumber(%q) = %d, ok; want rejected", s, got)
		}
	}
}

func TestParseHeading(t *testing.T) {
	type res struct {
		c     int
		title string
	}
	good := map[string]res{
		"### 第 12 章: 密信":                {12, "密信"},
		"### 第 12 章：密信":                 {12, "密信"},
		"### 第 12 章":                    {12, ""},
		"### 第 12 章 密信":                 {12, "密信"},
		"###第12章：密信":                    {12, "密信"},
		"### 第012章: 密信":                 {12, "密信"},
		"### 第十二章 密信":                   {12, "密信"},
		"### 第 一百零三 章：风起":               {103, "风起"},
		"###\t第\u300012\u3000章\u3000密信": {12, "密信"},
		"### 第 12 章:":                   {12, ""},
		"### 第 12 章 ":                   {12, ""},
		"### 第 12 章: 密信\r":              {12, "密信"},
		"### 第 12 章:  两个：冒号 ":           {12, "两个：冒号"},
	}
	for line, want := range good {
		c, title, ok := ParseHeading(line)
		if !ok || c != want.c || title != want.title {
			t.Errorf("ParseHeading(%q) = %d %q %v; want %d %q", line, c, title, ok, want.c, want.title)
		}
	}
	for _, line := range []string{"#### 第12章", "## 第12章", "### 第12节", "### 第12章节", "### 12章", "### 第章",
		"### 第 0 章", "### 第 12 回", "  ### 第 12 章", "### 第 1 2 章", "### 第十二章节：x", "###", "", "### 第 -1 章"} {
		if c, _, ok := ParseHeading(line); ok {
			t.Errorf("ParseHeading(%q) = %d, ok; want no match", line, c)
		}
	}
}

const sample = `# 第一卷 风起

## 卷概述
本卷讲述林枫进入魔都。

### 第 1 章: 入城
- **Storyline**: main-arc
- **POV**: lin-feng
- **Location**: 魔都外城
- **Conflict**: 守卫盘查
- **Arc**: 谨慎 → 决断
- **Foreshadowing**: ancient-prophecy 埋设
- **StateChanges**: 林枫进入外城
- **TransitionHint**: next_storyline=su-yao-line，bridge 苏瑶在城门回望
#### 场景细节
守卫换岗。

### 第二章：暗流
- **Storyline**: su-yao-line
- **POV**：su-yao
- **TransitionHint**: 无

## 附录
不属于任何章节。
`

func TestBlocks(t *testing.T) {
	o, err := Parse([]byte("\ufeff"+sample), "volumes/vol-01/outline.md", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.Chapters, []int{1, 2}) {
		t.Fatalf("chapters %v", o.Chapters)
	}
	if s, e, ok := o.Range(); !ok || s != 1 || e != 2 {
		t.Fatalf("range %d %d %v", s, e, ok)
	}
	b, err := o.Block(1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Title != "入城" || b.StorylineID != "main-arc" || len(b.MissingKeys) != 0 || b.Line != 6 {
		t.Fatalf("block 1: %+v", b)
	}
	if !strings.HasSuffix(b.Text, "守卫换岗。") || !strings.HasPrefix(b.Text, "### 第 1 章: 入城") {
		t.Fatalf("block 1 text: %q", b.Text)
	}
	if b.TransitionHint == nil || b.TransitionHint.NextStoryline != "su-yao-line" {
		t.Fatalf("hint: %+v", b.TransitionHint)
	}
	b, err = o.Block(2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Text, "附录") || b.Keys["POV"] != "su-yao" || b.TransitionHint != nil {
		t.Fatalf("block 2: %+v", b)
	}
	if want := []string{"Location", "Conflict", "Arc", "Foreshadowing", "StateChanges"}; !reflect.DeepEqual(b.MissingKeys, want) {
		t.Fatalf("missing %v", b.MissingKeys)
	}
	_, err = o.Block(3)
	if e := errs.As(err); e == nil || e.Code != errs.Outline || !reflect.DeepEqual(e.Details["chapters"], []int{1, 2}) {
		t.Fatalf("block 3: %v", err)
	}
}

func TestBlockErrors(t *testing.T) {
	cases := map[string]string{
		"### 第 1 章\n- **POV**: a\n":                                                  errs.Outline,
		"### 第 1 章\n- **Storyline**:   \n":                                           errs.Outline,
		"### 第 1 章\n- **Storyline**: a\n- **Storyline**: b\n":                        errs.Outline,
		"### 第 1 章\n- **Storyline**: 主线\n":                                           errs.Schema,
		"### 第 1 章\n- **Storyline**: a\n- **TransitionHint**: next_storyline=../x\n": errs.Schema,
		"### 第 1 章\n- **Storyline**: a\n### 第 01 章\n":                                errs.Outline,
	}
	for text, code := range cases {
		o, err := Parse([]byte(text), "o.md", 1)
		if err != nil {
			t.Fatal(err)
		}
		_, err = o.Block(1)
		if !errs.Is(err, code) {
			t.Errorf("%q: got %v, want %s", text, err, code)
		}
	}
	if _, err := Parse([]byte("### 第 1 章\n\xff\n"), "o.md", 1); !errs.Is(err, errs.Outline) {
		t.Errorf("invalid utf-8: %v", err)
	}
}

func TestTransitionHint(t *testing.T) {
	cases := map[string]*TransitionHint{
		"":      nil,
		"无":     nil,
		"None":  nil,
		"null":  nil,
		"-":     nil,
		"苏瑶线收束": {Text: "苏瑶线收束"},
		"next_storyline=rival-arc, bridge 海域震动":             {Text: "next_storyline=rival-arc, bridge 海域震动", NextStoryline: "rival-arc"},
		"next_storyline: rival-arc":                         {Text: "next_storyline: rival-arc", NextStoryline: "rival-arc"},
		"next_storyline：rival-arc，bridge":                   {Text: "next_storyline：rival-arc，bridge", NextStoryline: "rival-arc"},
		"NEXT_STORYLINE = rival-arc":                        {Text: "NEXT_STORYLINE = rival-arc", NextStoryline: "rival-arc"},
		`{"next_storyline": "rival-arc", "bridge": "海域震动"}`: {Text: `{"next_storyline": "rival-arc", "bridge": "海域震动"}`, NextStoryline: "rival-arc"},
		`切换 {"next_storyline":"su-yao"} 过渡`:                 {Text: `切换 {"next_storyline":"su-yao"} 过渡`, NextStoryline: "su-yao"},
	}
	for in, want := range cases {
		if got := parseTransitionHint(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseTransitionHint(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestKeyLineForms(t *testing.T) {
	for line, want := range map[string][2]string{
		"- **POV**: lin-feng": {"POV", "lin-feng"},
		"- **POV**：lin-feng":  {"POV", "lin-feng"},
		"- **POV：** lin-feng": {"POV", "lin-feng"},
		"* **地点**: 魔都":        {"地点", "魔都"},
		"- **Arc** : 成长":      {"Arc", "成长"},
	} {
		k, v, ok := parseKeyLine(line)
		if !ok || k != want[0] || v != want[1] {
			t.Errorf("parseKeyLine(%q) = %q %q %v", line, k, v, ok)
		}
	}
	for _, line := range []string{"- POV: x", "-**POV**: x", "- **POV** x", "  - **POV**: x"} {
		if k, _, ok := parseKeyLine(line); ok {
			t.Errorf("parseKeyLine(%q) matched %q", line, k)
		}
	}
}

func FuzzOutline(f *testing.F) {
	f.Add([]byte(sample), 1)
	f.Add([]byte("###第十二章：x\n- **Storyline**: a\n"), 12)
	f.Add([]byte("### 第 一万零一 章\n"), 10001)
	f.Fuzz(func(t *testing.T, data []byte, c int) {
		o, err := Parse(data, "o.md", 1)
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("non-suite error %v", err)
			}
			return
		}
		s, e, ok := o.Range()
		if ok && (s < 1 || e < s || e > maxChapter) {
			t.Fatalf("bad range %d %d", s, e)
		}
		b, err := o.Block(c)
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("non-suite error %v", err)
			}
			return
		}
		if b.Chapter != c || b.StorylineID == "" {
			t.Fatalf("bad block %+v", b)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if hc, _, hok := ParseHeading(l); hok && (hc < 1 || hc > maxChapter) {
				t.Fatalf("heading %q → %d", l, hc)
			}
		}
	})
}
