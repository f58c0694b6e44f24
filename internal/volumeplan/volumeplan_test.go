package volumeplan

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestCheckHeadings(t *testing.T) {
	ok := "# 卷\n## 第一幕\n### 第 7 章: a\n### 伏笔总览\n#### 细节\n### 第八章 b\n"
	if err := checkHeadings(ok, "o.md", 7); err != nil {
		t.Fatalf("valid outline refused: %v", err)
	}
	cases := []struct {
		text        string
		line, chap  int
		description string
	}{
		{"### 第 7 章: a\n### 第 8 章节: b\n", 2, 8, "章节 suffix"},
		{"### 第 7 章: a\n#### 第 8 章: b\n", 2, 8, "level 4"},
		{"## 第 7 章: a\n", 1, 7, "level 2"},
		{"### 第 7 章: a\n  ### 第 8 章: b\n", 2, 8, "indented"},
		{"### Chapter 7: a\n", 1, 7, "English"},
	}
	for _, c := range cases {
		err := checkHeadings(c.text, "o.md", 7)
		e := errs.As(err)
		if e == nil || e.Code != errs.Outline {
			t.Errorf("%s: want E_OUTLINE, got %v", c.description, err)
			continue
		}
		if e.Details["line"] != c.line || e.Details["chapter"] != c.chap {
			t.Errorf("%s: details %v, want line %d chapter %d", c.description, e.Details, c.line, c.chap)
		}
	}
}

func TestRestage(t *testing.T) {
	e := errs.New(errs.Contract, "章节契约 volumes/vol-02/chapter-contracts/chapter-008.json 不一致", "").
		With("file", "volumes/vol-02/chapter-contracts/chapter-008.json").With("n", 3).
		Hint("见 staging/volumes/vol-02/x 与 volumes/vol-01/y", "")
	got := errs.As(restage(e, 2))
	if got.Zh != "章节契约 staging/volumes/vol-02/chapter-contracts/chapter-008.json 不一致" {
		t.Errorf("message: %s", got.Zh)
	}
	if got.Details["file"] != "staging/volumes/vol-02/chapter-contracts/chapter-008.json" || got.Details["n"] != 3 {
		t.Errorf("details: %v", got.Details)
	}
	// Already-staged paths and other volumes are left alone.
	if got.HintZh != "见 staging/volumes/vol-02/x 与 volumes/vol-01/y" {
		t.Errorf("hint: %s", got.HintZh)
	}
}
