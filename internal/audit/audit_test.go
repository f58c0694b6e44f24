package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
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

// The state as the suite writes it (canonical) is read through stateops'
// one-pass scan, any other layout the generic way: both give the same
// locations, items and dead characters.
func TestReadStateCanonicalAndGeneric(t *testing.T) {
	st := map[string]any{
		"state_version": 3, "last_updated_chapter": 3, "active_foreshadowing": []any{}, "factions": map[string]any{}, "world_state": map[string]any{},
		"characters": map[string]any{
			"lu-zhao": map[string]any{"display_name": "陆照", "location": "长明殿", "status": "alive", "inventory": []any{"残灯", " "}, "notes": "他说：\"灯\\\\火\""},
			"zhou-bo": map[string]any{"display_name": "周伯", "location": "山门", "status": "已死亡"},
		},
		"items":     map[string]any{"lamp": map[string]any{"display_name": "长明灯", "owner": "lu-zhao"}, "x": map[string]any{"name": "无主之物"}},
		"locations": map[string]any{"hall": map[string]any{"display_name": "戒律堂"}, "k": map[string]any{"name": "山"}},
	}
	canonical, err := jsonio.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stateops.CanonicalGroups(canonical); !ok {
		t.Fatal("jsonio.Marshal's state is not canonical: the test would not reach the one-pass path")
	}
	generic, _ := json.Marshal(st)
	var got []*Window
	for _, data := range [][]byte{canonical, generic} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state/current-state.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		root, err := project.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		w := &Window{StatusOps: map[string][]statusOp{}, BaselineDead: map[string]bool{}}
		if err := w.readState(root, false); err != nil {
			t.Fatal(err)
		}
		got = append(got, w)
	}
	want := &Window{StatusOps: map[string][]statusOp{}, BaselineDead: map[string]bool{"zhou-bo": true},
		Locations: []string{"山门", "戒律堂", "长明殿"}, Items: []OwnedItem{{"残灯", "lu-zhao"}, {"长明灯", "lu-zhao"}}}
	for i, w := range got {
		if !reflect.DeepEqual(w, want) {
			t.Errorf("path %d: got %+v\nwant %+v", i, w, want)
		}
	}
}
