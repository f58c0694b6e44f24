package foreshadow

import (
	"bytes"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
)

// A query over light items (LoadGlobalLight) gives the same bytes as one
// over fully parsed items.
func checkLight(t *testing.T, global, plan []byte, c int) {
	t.Helper()
	full, err := Parse(global, "g")
	if err != nil {
		if _, lerr := parse(global, "g", true); lerr == nil || lerr.Error() != err.Error() {
			t.Fatalf("light parse error %v, full parse error %v", lerr, err)
		}
		return
	}
	light, err := parse(global, "g", true)
	if err != nil {
		t.Fatalf("light parse refused what the full parse took: %v", err)
	}
	var p []Item
	if pf, err := Parse(plan, "p"); err == nil {
		p = pf.Items
	}
	want, err := jsonio.Marshal(Query(full.Items, p, c, 1))
	if err != nil {
		t.Fatal(err)
	}
	got, err := jsonio.Marshal(Query(light.Items, p, c, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("chapter %d: light query differs\ngot:  %s\nwant: %s", c, got, want)
	}
}

func TestQueryLightMatchesFull(t *testing.T) {
	plan := []byte(`{"foreshadowing":[{"id":"F-2","description":"计划","scope":"short","target_resolve_range":[1,2]},{"id":"F-9","planted_chapter":3}]}`)
	for _, c := range []int{1, 2, 3, 5, 9} {
		checkLight(t, []byte(spliceSeed), plan, c)
		checkLight(t, []byte(`[{"id":"F-2","scope":"short","target_resolve_range":[1,2],"id":"F-3"},7,{"id":"F-9","status":"resolved"},{"id":"x","target_resolve_range":["1",2]}]`), plan, c)
	}
	checkLight(t, []byte(`{"foreshadowing":[{"id":1}`), plan, 1)
}

func FuzzQueryLight(f *testing.F) {
	f.Add([]byte(spliceSeed), []byte(`[{"id":"F-1","target_resolve_range":[1,9],"description":""}]`), 2)
	f.Add([]byte(`[{"id":"a","scope":"short","status":"planted","target_resolve_range":[1,1],"history":[{"chapter":1}]}]`), []byte(`[]`), 3)
	f.Fuzz(func(t *testing.T, global, plan []byte, c int) {
		checkLight(t, global, plan, c)
	})
}
