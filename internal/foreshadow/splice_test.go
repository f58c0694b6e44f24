package foreshadow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// fullMerge is the reference: parse everything, merge, encode.
func fullMerge(t *testing.T, data []byte, plan []Item, ops []Op, c int) ([]byte, []Dropped, bool) {
	t.Helper()
	f, err := Parse(data, "g")
	if err != nil {
		return nil, nil, false
	}
	merged, dropped := Merge(f.Items, plan, ops, c, "main-arc")
	out, err := f.Encode(merged)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return out, dropped, true
}

// checkSpliced: whenever MergeSpliced takes a file, its result is the
// full path's, byte for byte.
func checkSpliced(t *testing.T, data []byte, plan []Item, ops []Op, c int) bool {
	t.Helper()
	got, gotDropped, ok := MergeSpliced(data, plan, ops, c, "main-arc")
	if !ok {
		return false
	}
	want, wantDropped, wok := fullMerge(t, data, plan, ops, c)
	if !wok {
		t.Fatalf("spliced merge accepted a file the full path refuses: %q", data)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("spliced merge differs for %q\ngot:\n%s\nwant:\n%s", data, got, want)
	}
	gd, _ := json.Marshal(gotDropped)
	wd, _ := json.Marshal(wantDropped)
	if !bytes.Equal(gd, wd) {
		t.Fatalf("dropped differ: %s vs %s", gd, wd)
	}
	// A 5th-chapter commit parses the spliced file for its brief instead
	// of keeping Merge's items: they must read the same.
	f, err := Parse(data, "g")
	if err != nil {
		t.Fatal(err)
	}
	merged, _ := Merge(f.Items, plan, ops, c, "main-arc")
	pf, err := Parse(got, "g")
	if err != nil {
		t.Fatalf("spliced output does not parse: %v", err)
	}
	if a, b := typedView(merged), typedView(pf.Items); a != b {
		t.Fatalf("items of the spliced file differ from Merge's:\n%s\n%s", b, a)
	}
	return true
}

// typedView renders what readers of items use: the typed fields, the
// history and the range.
func typedView(items []Item) string {
	var b bytes.Buffer
	for i := range items {
		it := &items[i]
		lo, hi, ok := it.Range()
		fmt.Fprintf(&b, "%q %q %q %q %d %q %d %d-%d-%v [", it.ID, it.Description, it.Scope, it.Status, it.PlantedChapter, it.PlantedStoryline, it.LastUpdatedChapter, lo, hi, ok)
		for _, h := range it.History {
			fmt.Fprintf(&b, "%d %q %q %q;", h.Chapter, h.Action, h.Detail, h.Evidence)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func rawOps(t *testing.T, s string) []Op {
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raws); err != nil {
		t.Fatal(err)
	}
	return ParseOps(raws)
}

const spliceSeed = `{"foreshadowing":[
 {"id":"F-1","description":"灯","scope":"short","status":"planted","planted_chapter":1,"target_resolve_range":[1,3],"last_updated_chapter":1,"history":[{"chapter":1,"action":"planted","detail":"亮"}]},
 {"id":"F-2","description":"剑 <&>","scope":"long","status":"advanced","history":[{"chapter":2,"action":"advanced","note":"x","detail":""},"odd"],"zeta":{"b":[1,{}],"a":[]},"alpha":null},
 {"id":"F-\u00e9","status":"planted","history":[]},
 {"description":"no id","x":1.5e3},
 {"id":"F-3","status":"resolved","history":"not a list"}]}`

func TestMergeSplicedMatchesFullPath(t *testing.T) {
	f, err := Parse([]byte(spliceSeed), "g")
	if err != nil {
		t.Fatal(err)
	}
	canon, err := f.Encode(f.Items)
	if err != nil {
		t.Fatal(err)
	}
	plan := mustItems(t, `[{"id":"F-9","description":"计划","scope":"short","target_resolve_range":[5,9]}]`)
	for _, ops := range []string{
		`[]`,
		`[{"op":"foreshadow","path":"F-1","value":"advanced","detail":"近"}]`,
		`[{"op":"foreshadow","path":"F-1","value":"resolved","detail":"近","evidence":"灯灭了。"},{"op":"foreshadow","path":"F-new","value":"planted","evidence":"新的 <&> 伏笔。"}]`,
		`[{"op":"foreshadow","path":"F-2","value":"resolved"},{"op":"foreshadow","path":"F-new","value":"planted"},{"op":"foreshadow","path":"F-9","value":"planted"}]`,
		`[{"op":"foreshadow","path":"F-é","value":"advanced"},{"op":"foreshadow","path":"F-3","value":"planted"},{"op":"foreshadow","path":"a.b","value":"planted"},{"op":"set","path":"x.y","value":1}]`,
	} {
		for _, c := range []int{1, 2, 7} {
			if !checkSpliced(t, canon, plan, rawOps(t, ops), c) {
				t.Fatalf("canonical file declined:\n%s", canon)
			}
		}
	}
	empty := []byte("{\n  \"foreshadowing\": []\n}\n")
	if !checkSpliced(t, empty, plan, rawOps(t, `[{"op":"foreshadow","path":"F-9","value":"planted"}]`), 4) {
		t.Fatal("empty canonical file declined")
	}
	if !checkSpliced(t, empty, nil, nil, 4) {
		t.Fatal("empty canonical file declined")
	}
	// Not Encode's layout: declined, never guessed.
	for _, bad := range []string{
		spliceSeed, // compact
		"\ufeff" + string(canon),
		string(bytes.Replace(canon, []byte(`"scope": "short",`), []byte(`"scope":  "short",`), 1)),
		string(bytes.Replace(canon, []byte(`"description": "灯",`+"\n"+`      "scope": "short",`), []byte(`"scope": "short",`+"\n"+`      "description": "灯",`), 1)),
		string(bytes.Replace(canon, []byte(`"alpha": null,`), []byte(`"alpha": null,`+"\n      \"alpha\": 1,"), 1)),
		string(bytes.Replace(canon, []byte(`灯`), []byte("\xff"), 1)),
		"{\n  \"foreshadowing\": [],\n  \"volume\": 2\n}\n",
		"[]\n",
	} {
		if _, _, ok := MergeSpliced([]byte(bad), plan, rawOps(t, `[{"op":"foreshadow","path":"F-1","value":"advanced"}]`), 3, "main-arc"); ok {
			t.Errorf("accepted a file not in Encode's layout:\n%s", bad)
		}
	}
}

func mustItems(t *testing.T, s string) []Item {
	f, err := Parse([]byte(s), "plan")
	if err != nil {
		t.Fatal(err)
	}
	return f.Items
}

// FuzzMergeSpliced: on any input the spliced merge either declines or
// equals the full path; on the canonical form of any parseable file it
// never declines unless the items need the general encoder.
func FuzzMergeSpliced(f *testing.F) {
	f.Add([]byte(spliceSeed), []byte(`[{"op":"foreshadow","path":"F-1","value":"advanced"},{"op":"foreshadow","path":"F-4","value":"planted"}]`), 3)
	f.Add([]byte(`[{"id":"a","history":[{"chapter":1,"action":"planted"},{"_raw":1}]},{"_entry":2}]`), []byte(`[{"op":"foreshadow","path":"a","value":"resolved"}]`), 2)
	f.Fuzz(func(t *testing.T, global, ops []byte, c int) {
		if c < 1 || c > 999999 {
			return
		}
		var raws []json.RawMessage
		if json.Unmarshal(ops, &raws) != nil {
			return
		}
		parsed := ParseOps(raws)
		checkSpliced(t, global, nil, parsed, c)
		if g, err := Parse(global, "g"); err == nil {
			if canon, err := g.Encode(g.Items); err == nil {
				checkSpliced(t, canon, g.Items, parsed, c)
			}
		}
	})
}
