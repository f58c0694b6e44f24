package foreshadow

import (
	"bytes"
	"encoding/json"
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
	checkCanonicalResult(t, Query(full.Items, p, c, 1))
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

// plainMarshal is jsonio.Marshal through encoding/json (the result type
// without its MarshalCanonical).
func plainMarshal(t *testing.T, r Result) []byte {
	t.Helper()
	type plain Result
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(plain(r)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func checkCanonicalResult(t *testing.T, r Result) {
	t.Helper()
	got, err := jsonio.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := plainMarshal(t, r); !bytes.Equal(got, want) {
		t.Fatalf("MarshalCanonical differs from the encoder\ngot:  %s\nwant: %s", got, want)
	}
}

func TestResultCanonical(t *testing.T) {
	f, err := Parse([]byte(spliceSeed), "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 2, 9} {
		r := Query(f.Items, nil, c, 3)
		checkCanonicalResult(t, r)
		r.Sources = Sources{Checkpoint: ".checkpoint.json", Global: "g <&>", VolumePlan: "p\u2028"}
		checkCanonicalResult(t, r)
	}
	checkCanonicalResult(t, Result{})
	checkCanonicalResult(t, Result{Items: []Output{}})
}
