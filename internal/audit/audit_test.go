package audit

import (
	"reflect"
	"testing"
)

func TestSentences(t *testing.T) {
	got := Sentences("# 第1章 标题\n\n周伯笑着推门进来：「我回来了。」他坐下……然后呢？\n最后一行没有句号\n")
	want := []string{"周伯笑着推门进来：「我回来了。」", "他坐下……", "然后呢？", "最后一行没有句号"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestDayMarks(t *testing.T) {
	marks, _ := dayMarks([]string{"第二天一早，他出门。", "第十二日，雪停。", "三日后，他回来。", "第3天"})
	want := [][2]int{{12, 1}, {3, 0}, {3, 1}}
	if !reflect.DeepEqual(marks, want) {
		t.Fatalf("got %v want %v (第二天 is the idiom 'the next day', not a count)", marks, want)
	}
}

func TestActs(t *testing.T) {
	for s, want := range map[string]bool{
		"周伯笑着推门进来。":  true,
		"周伯缓缓抬头。":    true,
		"他想起周伯。":     false,
		"周伯的灯亮了很久。":  false,
		"陆照看着周伯，没说话": false,
	} {
		if got := acts(s, "周伯"); got != want {
			t.Errorf("acts(%q) = %v, want %v", s, got, want)
		}
	}
}
