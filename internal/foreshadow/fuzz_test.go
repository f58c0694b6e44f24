package foreshadow

import (
	"encoding/json"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// FuzzParse: any foreshadowing file either parses or is a typed suite
// error; a parsed file re-encodes to a document that parses again with the
// same ids and statuses (read leniently, write canonically).
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"foreshadowing":[]}`, `[]`, `{"volume":2}`, `[1,"x",null]`,
		`{"foreshadowing":[{"id":"F-1","status":"planted","target_resolve_range":[1,3],"history":[{"chapter":1,"action":"planted"}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "foreshadowing/global.json")
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		out, err := file.Encode(file.Items)
		if err != nil {
			t.Fatalf("encode of a parsed file: %v", err)
		}
		again, err := Parse(out, "again")
		if err != nil {
			t.Fatalf("re-parse of the canonical form: %v\n%s", err, out)
		}
		if len(again.Items) != len(file.Items) {
			t.Fatalf("items %d → %d", len(file.Items), len(again.Items))
		}
		for i := range file.Items {
			a, b := file.Items[i], again.Items[i]
			if a.ID != b.ID || a.Status != b.Status || a.PlantedChapter != b.PlantedChapter {
				t.Fatalf("item %d changed on rewrite: %+v → %+v", i, a, b)
			}
		}
		for c := range 4 {
			Query(file.Items, file.Items, c, 1)
		}
	})
}

// FuzzMerge: merging arbitrary ops into an arbitrary fact layer never
// panics, never lowers a status, accounts for every foreshadow op (applied
// or dropped), and the result encodes, re-parses and rolls back.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(`{"foreshadowing":[{"id":"F-1","status":"advanced","planted_chapter":1}]}`),
		[]byte(`[{"op":"foreshadow","path":"F-1","value":"planted"},{"op":"foreshadow","path":"F-2","value":"resolved","detail":"x"}]`), 3)
	f.Add([]byte(`[]`), []byte(`[{"op":"foreshadow","path":"a.b","value":"planted"},{"op":"foreshadow","path":"","value":1},{}]`), 1)
	f.Fuzz(func(t *testing.T, global, ops []byte, c int) {
		if c < 1 || c > 999999 {
			return
		}
		g, err := Parse(global, "g")
		if err != nil {
			return
		}
		var raws []json.RawMessage
		if json.Unmarshal(ops, &raws) != nil {
			return
		}
		parsed := ParseOps(raws)
		merged, dropped := Merge(g.Items, g.Items, parsed, c, "main-arc")
		before := map[string]int{}
		for _, it := range g.Items {
			if _, seen := before[it.ID]; it.ID != "" && !seen {
				before[it.ID] = Rank(it.Status)
			}
		}
		after := map[string]int{}
		for _, it := range merged {
			if _, seen := after[it.ID]; it.ID != "" && !seen {
				after[it.ID] = Rank(it.Status)
			}
		}
		for id, r := range before {
			if after[id] < r {
				t.Fatalf("status of %q lowered %d → %d", id, r, after[id])
			}
		}
		n := 0
		for _, o := range parsed {
			if o.Op == "foreshadow" {
				n++
			}
		}
		if len(dropped) > n {
			t.Fatalf("%d drops for %d foreshadow ops", len(dropped), n)
		}
		out, err := g.Encode(merged)
		if err != nil {
			t.Fatalf("encode merged: %v", err)
		}
		if _, err := Parse(out, "merged"); err != nil {
			t.Fatalf("merged file does not parse: %v\n%s", err, out)
		}
		Rollback(merged, c)
		Query(merged, g.Items, c, 1)
	})
}
