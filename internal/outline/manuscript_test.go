package outline

import "testing"

func TestParseManuscriptHeading(t *testing.T) {
	cases := []struct {
		line  string
		n     int
		title string
		ok    bool
	}{
		{"第一章 雪夜", 1, "雪夜", true},
		{"　　第二章：归来", 2, "归来", true},
		{"### 第3章 终局", 3, "终局", true},
		{"# 第 十二 章", 12, "", true},
		{"第一百零三章\t夜行", 103, "夜行", true},
		{"####### 第1章 七个井号", 0, "", false},
		{"第三章节的内容", 0, "", false},
		{"他想起第一章 的事", 0, "", false},
		{"第x章 坏编号", 0, "", false},
	}
	for _, c := range cases {
		n, title, ok := ParseManuscriptHeading(c.line)
		if n != c.n || title != c.title || ok != c.ok {
			t.Errorf("%q: got (%d, %q, %v), want (%d, %q, %v)", c.line, n, title, ok, c.n, c.title, c.ok)
		}
	}
}
