package audit

import (
	"reflect"
	"testing"
)

// The story clock (SPEC §25) feeds timeline_regression: a chapter whose
// clock is earlier than the previous chapter's on the same storyline is
// flagged even when the text has no 第N天 marker; another storyline may
// run on its own days.
func TestTimelineRegressionFromStoryClock(t *testing.T) {
	w := &Window{From: 1, To: 4,
		Sentences: map[int][]string{1: {"夜里。"}, 2: {"清晨。"}, 3: {"另一头。"}, 4: {"昨夜的事。"}},
		Storyline: map[int]string{1: "main", 2: "main", 3: "side", 4: "main"},
		StoryTime: map[int]Clock{1: {3, "四月十六"}, 2: {5, "四月十八"}, 3: {1, "四月十四"}, 4: {4, "四月十七"}},
	}
	got := w.checkTimeline()
	want := []Issue{{Type: TimelineRegression, Entities: []string{"main"},
		Description: "故事线 main：第 2 章结束时故事时钟已到第 5 天（四月十八），第 4 章却回到第 4 天（四月十七）",
		Evidence:    []Evidence{{2, "story_time 第5天（四月十八）"}, {4, "story_time 第4天（四月十七）"}},
		Suggestion:  "核对本章的时间：时钟只能前进；若是倒叙，请在文中标明，并让摘要员把 story_time 设回当前"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
