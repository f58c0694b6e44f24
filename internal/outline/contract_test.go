package outline

import (
	"reflect"
	"testing"
)

func TestParseContract(t *testing.T) {
	ct := ParseContract("\uFEFF前言\n### 第 七 章 雪关\n\n- **章号**：9\n- **故事线：** north-line\n- **POV**: 陆照\n\n### 事件中自然流露的角色特质\n- **陆照**：沉默\n- 周伯: 严苛\n- 陆照：又一次\n\n### 验收标准\n- 条目甲\n2) 条目乙\n\n### 钩子\n1. 不是验收项\n")
	want := &MarkdownContract{Chapter: 7, Title: "雪关", StorylineID: "north-line", POV: "陆照",
		Acceptance: []string{"条目甲", "条目乙"}, Characters: []string{"陆照", "周伯"}}
	if !reflect.DeepEqual(ct, want) {
		t.Fatalf("%+v", ct)
	}
	// no heading: the 章号 key gives the chapter
	if ct := ParseContract("## 基本信息\n- **章号**：12\n"); ct.Chapter != 12 || ct.Title != "" {
		t.Fatalf("%+v", ct)
	}
}
