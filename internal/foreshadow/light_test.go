package foreshadow

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	// The text listing's fields too (novel-foreshadow query --text).
	for i, o := range Query(light.Items, p, c, 1).Items {
		w := Query(full.Items, p, c, 1).Items[i]
		if o.ID != w.ID || o.Status != w.Status || o.Scope != w.Scope || o.Description != w.Description {
			t.Fatalf("chapter %d: light item %+v, full %+v", c, o.Item, w.Item)
		}
	}
}

func TestQueryLightMatchesFull(t *testing.T) {
	plan := []byte(`{"foreshadowing":[{"id":"F-2","description":"计划","scope":"short","target_resolve_range":[1,2]},{"id":"F-9","planted_chapter":3}]}`)
	for _, c := range []int{1, 2, 3, 5, 9} {
		checkLight(t, []byte(spliceSeed), plan, c)
		checkLight(t, []byte(`[{"id":"F-2","scope":"short","target_resolve_range":[1,2],"id":"F-3"},7,{"id":"F-9","status":"resolved"},{"id":"x","target_resolve_range":["1",2]}]`), plan, c)
	}
	checkLight(t, []byte(`{"foreshadowing":[{"id":1}`), plan, 1)
	// History entries of every shape, written from the bytes as parseItem
	// reads them.
	odd := `{"foreshadowing":[` +
		`{"id":"H-1","target_resolve_range":[1,9],"history":[{"z":1,"detail":"d","b":[2],"chapter":1,"z":3},7,"s",{"_raw":{"x":1}},{"_raw":1,"chapter":2},{},{"evidence":"e","action":"a","\u0061ction":"b"}],"extra":1},` +
		`{"id":"H-2","target_resolve_range":[1,9],"history":[],"description":"无"},` +
		`{"id":"H-3","target_resolve_range":[1,9],"history":null,"history":[{"chapter":3}]},` +
		`{"id":"H-4","target_resolve_range":[1,9],"history":{"chapter":1},"description":"x","description":"y"}]}`
	for _, c := range []int{1, 5} {
		checkLight(t, []byte(odd), plan, c)
	}
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

// The one-walk light parse (parseLightFile) gives the File, or the
// error, that validating and then splitting step by step gives.
func checkFused(t *testing.T, data []byte) {
	t.Helper()
	fused, ferr := parseLightFile(data, "g")
	v, err := jsonio.Validate(data, "g")
	if err != nil {
		if ferr == nil || ferr.Error() != err.Error() {
			t.Fatalf("%q: light parse error %v; Validate's %v", data, ferr, err)
		}
		return
	}
	split, err := parseSplit(v, "g", true)
	if (err == nil) != (ferr == nil) || (err != nil && err.Error() != ferr.Error()) {
		t.Fatalf("%q: light parse error %v; the split's %v", data, ferr, err)
	}
	if err == nil && !reflect.DeepEqual(fused, split) {
		t.Fatalf("%q: light parse\n%+v\nsplit parse\n%+v", data, fused, split)
	}
}

func TestLightFusedMatchesSplit(t *testing.T) {
	for _, s := range []string{
		spliceSeed,
		`{"foreshadowing":[]}`,
		`{"foreshadowing": [ ] , "volume": 2}`,
		`{"volume":2,"foreshadowing":[{"id":"F-2","scope":"short","target_resolve_range":[1,2],"id":"F-3"},7,"x",null,{},{"id":"F-9","status":"resolved","history":[{"chapter":1,"detail":"a\"]}"}]},{"\u0069d":"F-10","planted_chapter":4,"last_updated_chapter":9}],"updated_at":"x"}`,
		"{\n  \"foreshadowing\": [\n    {\n      \"id\": \"F-1\",\n      \"target_resolve_range\": [\n        3,\n        32\n      ]\n    }\n  ]\n}\n",
		`{"foreshadowing":[{"id":"a"}],"foreshadowing":[{"id":"b"}]}`,
		`{"foreshadowing":{"id":"a"}}`,
		`[{"id":"a"}]`,
	} {
		checkFused(t, []byte(s))
	}
	if f, err := parseLightFile([]byte(`{"foreshadowing":[{"id":"a"}],"foreshadowing":[]}`), "g"); err != nil || len(f.Items) != 0 {
		t.Fatalf("a repeated foreshadowing key: the last one wins, as in the split path (%v, %v)", f, err)
	}
}

func FuzzLightFused(f *testing.F) {
	f.Add([]byte(spliceSeed))
	f.Add([]byte(`{"v":1,"foreshadowing":[{"id":"a","id":"b","target_resolve_range":[1,{"x":"]"}]},2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFused(t, data)
	})
}
