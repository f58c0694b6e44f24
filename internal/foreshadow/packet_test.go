package foreshadow

import (
	"fmt"
	"strings"
	"testing"
)

func parseItems(t *testing.T, light bool, items ...string) []Item {
	t.Helper()
	f, err := parse([]byte(`{"foreshadowing":[`+strings.Join(items, ",")+`]}`), "global.json", light)
	if err != nil {
		t.Fatal(err)
	}
	return f.Items
}

func TestPacketTasks(t *testing.T) {
	var src []string
	for i := 1; i <= 13; i++ { // F-01 ends at 1 … F-07 at 7, F-08…F-13 at 7 too
		src = append(src, fmt.Sprintf(`{"id":"F-%02d","scope":"short","status":"planted","planted_chapter":1,"target_resolve_range":[1,%d],"history":[{"chapter":1,"action":"planted","detail":"d"}]}`, i, min(i, 7)))
	}
	src = append(src, `{"id":"F-90","scope":"long","status":"advanced","planted_chapter":2,"target_resolve_range":[5,30],"history":[{"chapter":2,"action":"planted","detail":"d"}]}`)
	for _, light := range []bool{false, true} {
		items, dropped := PacketTasks(parseItems(t, light, src...), nil, 9, 1)
		var ids []string
		for _, it := range items {
			b, _ := it.MarshalJSON()
			if strings.Contains(string(b), "history") {
				t.Errorf("%s keeps its history: %s", it.ID, b)
			}
			ids = append(ids, it.ID)
		}
		want := "F-01,F-02,F-03,F-04,F-05,F-06,F-07,F-08,F-09,F-10,F-90"
		if got := strings.Join(ids, ","); got != want || dropped != 3 {
			t.Errorf("light=%v: got %s (dropped %d), want %s (dropped 3)", light, got, dropped, want)
		}
	}
	// the query result itself still has the history
	if b, _ := Query(parseItems(t, false, src...), nil, 9, 1).Items[0].MarshalJSON(); !strings.Contains(string(b), "history") {
		t.Error("Query lost the history")
	}
}

func TestReminders(t *testing.T) {
	src := []string{
		// light fields say planted at 1, the history says touched at 18: not dormant at 20
		`{"id":"F-1","scope":"short","status":"planted","planted_chapter":1,"history":[{"chapter":18,"action":"advanced","detail":"d"}]}`,
		`{"id":"F-2","scope":"short","status":"planted","planted_chapter":10}`,                         // 10 > 5
		`{"id":"F-3","scope":"long","status":"advanced","planted_chapter":1,"last_updated_chapter":4}`, // 16 > 15
		`{"id":"F-4","scope":"long","status":"planted","planted_chapter":6}`,                           // 14 ≤ 15
		`{"id":"F-5","scope":"short","status":"resolved","planted_chapter":1}`,
	}
	for i := 6; i <= 12; i++ {
		src = append(src, fmt.Sprintf(`{"id":"F-%d","scope":"medium","status":"planted","planted_chapter":2}`, i)) // 18
	}
	for _, light := range []bool{false, true} {
		var got []string
		for _, r := range Reminders(parseItems(t, light, src...), 20) {
			got = append(got, fmt.Sprintf("%s:%d", r.ID, r.DormantChapters))
		}
		want := "F-10:18,F-11:18,F-12:18,F-6:18,F-7:18"
		if strings.Join(got, ",") != want {
			t.Errorf("light=%v: %s, want %s", light, strings.Join(got, ","), want)
		}
	}
	if r := Reminders(parseItems(t, true, src[:4]...), 20); len(r) != 2 || r[0].ID != "F-3" || r[1].ID != "F-2" || r[0].LastTouched != 4 {
		t.Errorf("got %+v, want F-3 (16, last touched 4) then F-2 (10)", r)
	}
}
