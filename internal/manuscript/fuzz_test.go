package manuscript

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// FuzzSplit: a manuscript splits or is a typed suite error, and a split
// keeps every line (SPEC §22.1): without unwrap each non-empty line is a
// chapter heading, a chapter paragraph or a skipped line, exactly once.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"守灯人\n\n楔子\n那年。\n第一卷 雪夜\n第一章 雪夜\n正文。\n第八章 结束了。\n【第二章】灯\n正文。\nChapter 3\n正文。\n番外 一\n正文。\n",
		"目录\n第一章\n第二章\n第三章\n第一章 甲\n正文。\n第二章 乙\n正文。\n第三章 丙\n正文。\n",
		"第1章 一\n正文\n续行\n第2章 二\n　　正文。\n", "第一章\n", "", "第二卷\n第1章 a\nb\n",
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, prologue bool) {
		if strings.Contains(text, "\r") {
			return // Decode turns CR and CRLF into LF before Split
		}
		m, err := Split(text, "x.txt", Options{Start: 1, PrologueChapter: prologue, Unwrap: UnwrapOff})
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		want := 0
		for _, l := range strings.Split(text, "\n") {
			if trimSpaces(l) != "" {
				want++
			}
		}
		got := len(m.Chapters) + len(m.Skipped)
		for i, c := range m.Chapters {
			got += len(c.Paragraphs)
			if c.Number != i+1 || len(c.Paragraphs) == 0 {
				t.Fatalf("chapter %d numbered %d with %d paragraphs", i, c.Number, len(c.Paragraphs))
			}
		}
		if got != want {
			t.Fatalf("%d non-empty lines, %d accounted for: %+v", want, got, m)
		}
	})
}
