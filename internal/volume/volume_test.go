package volume

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

const outlineMD = "### 第 10 章: a\n- **Storyline**: main-arc\n### 第 11 章: b\n- **Storyline**: main-arc\n" +
	"### 第 12 章: c\n- **Storyline**: main-arc\n### 第 13 章: d\n- **Storyline**: main-arc\n### 第 14 章: e\n- **Storyline**: main-arc\n"

func TestScheduleAndKeyChapters(t *testing.T) {
	sched := `{"active_storylines":[{"storyline_id":"main-arc","volume_role":"primary"},"su-yao"],
	"dormant_storylines":["faction-internal"],
	"convergence_events":[
	  {"chapter_range":[12,12],"involved_storylines":["main-arc","su-yao"]},
	  {"chapter_range":null,"target_chapter_range":[13,13],"involved_storylines":["su-yao"]},
	  {"chapter_range":["11",12],"involved_storylines":["x"]},
	  {"chapter_range":[0,3]},
	  {"chapter_range":[9,5]},
	  {"involved_storylines":["main-arc"]},
	  "junk"
	]}`
	r := testkit.Project(t, map[string]string{
		"volumes/vol-02/outline.md":              outlineMD,
		"volumes/vol-02/storyline-schedule.json": sched,
	})
	s, err := LoadSchedule(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Active, []string{"main-arc", "su-yao"}) || !s.IsDormant("faction-internal") || s.IsDormant("main-arc") {
		t.Fatalf("schedule %+v", s)
	}
	if got := s.EventsAt(12); len(got) != 1 || !reflect.DeepEqual(got[0].Storylines, []string{"main-arc", "su-yao"}) {
		t.Fatalf("events at 12: %+v", got)
	}
	if len(s.Events) != 2 {
		t.Fatalf("events %+v", s.Events)
	}
	want := map[int]bool{9: false, 10: true, 11: false, 12: true, 13: true, 14: true, 15: false}
	for c, w := range want {
		got, err := KeyChapter(r, 2, c)
		if err != nil || got != w {
			t.Errorf("KeyChapter(%d) = %v, %v; want %v", c, got, err, w)
		}
	}
	if end, err := LastChapter(r, 2); err != nil || end != 14 {
		t.Fatalf("LastChapter = %d, %v", end, err)
	}
}

func TestScheduleMissingAndBad(t *testing.T) {
	r := testkit.Project(t, map[string]string{
		"volumes/vol-01/outline.md":              outlineMD,
		"volumes/vol-03/storyline-schedule.json": `{"dormant_storylines":["../etc"]}`,
		"volumes/vol-04/storyline-schedule.json": `{"convergence_events":[{"chapter_range":[1,2],"involved_storylines":["主线"]}]}`,
		"volumes/vol-05/storyline-schedule.json": `{"active_storylines":`,
		"volumes/vol-06/storyline-schedule.json": `{"active_storylines":"main-arc"}`,
		"volumes/vol-07/storyline-schedule.json": `[]`,
		"volumes/vol-08/outline.md":              "# 无章节\n",
	})
	s, err := LoadSchedule(r, 1)
	if err != nil || len(s.Events) != 0 || len(s.Dormant) != 0 {
		t.Fatalf("missing schedule: %+v %v", s, err)
	}
	for v, code := range map[int]string{3: errs.Schema, 4: errs.Schema, 5: errs.InvalidJSON, 6: errs.Schema, 7: errs.Schema} {
		if _, err := LoadSchedule(r, v); !errs.Is(err, code) {
			t.Errorf("volume %d: %v, want %s", v, err, code)
		}
	}
	if _, err := KeyChapter(r, 9, 1); !errs.Is(err, errs.MissingFile) {
		t.Errorf("missing outline: %v", err)
	}
	if _, err := LastChapter(r, 8); !errs.Is(err, errs.Outline) {
		t.Errorf("empty outline: %v", err)
	} else if h := errs.As(err).HintText("zh"); h != "在 volumes/vol-08/outline.md 中写入章节标题，形如 ### 第 12 章: 章名" {
		// LastChapter runs in WRITING (commit), where volume planning is refused.
		t.Errorf("empty outline hint: %q", h)
	}
}

func TestValidRange(t *testing.T) {
	for in, ok := range map[string]bool{"[1,2]": true, "[3,3]": true, "[0,2]": false, "[2,1]": false, "[1]": false,
		"[1,2,3]": false, `["1",2]`: false, "[1.5,2]": false, "null": false, "": false, "{}": false, "[-1,2]": false} {
		if _, _, got := validRange(json.RawMessage(in)); got != ok {
			t.Errorf("ValidRange(%s) = %v", in, got)
		}
	}
}
