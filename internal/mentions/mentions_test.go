package mentions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

func TestCount(t *testing.T) {
	n := Names{
		Characters: []Name{{"lu-zhao", "陆照"}, {"zhou-bo", "周伯"}, {"ghost", ""}, {"han", "韩墨"}},
		Items:      []Name{{"jade", "残玉"}, {"jade-box", "残玉匣"}},
		Locations:  []Name{{"hall", "长明殿"}},
	}
	l := Count(7, "陆照捧着残玉匣走进长明殿。陆照照着周伯的话，把残玉放回匣中。周伯周伯", n)
	got, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// Each name counts its own non-overlapping occurrences; a longer name
	// containing a shorter one counts for both; empty names never count.
	want := `{"chapter":7,"characters":{"lu-zhao":2,"zhou-bo":3},"items":{"jade":2,"jade-box":1},"locations":{"hall":1}}` + "\n"
	if string(got) != want {
		t.Fatalf("got  %swant %s", got, want)
	}
	if l := Count(1, "陆照陆照陆照", Names{Characters: []Name{{"a", "陆照陆照"}}}); l.Characters["a"] != 1 {
		t.Fatalf("overlapping occurrences counted: %v", l.Characters)
	}
	// An alias counts for its character, once per occurrence: 小满 inside
	// 沈小满 is the same mention, whichever name is listed first.
	for _, names := range [][]Name{{{"shen", "小满"}, {"shen", "沈小满"}}, {{"shen", "沈小满"}, {"shen", "小满"}}} {
		l := Count(2, "沈小满进门。小满笑了。满仔", Names{Characters: append(names, Name{"shen", "满仔"})})
		if l.Characters["shen"] != 3 {
			t.Fatalf("%v: aliases counted %v, want 3", names, l.Characters)
		}
	}
}

func TestParseDiff(t *testing.T) {
	a := []byte("{\"chapter\":1,\"characters\":{\"a\":1},\"items\":{},\"locations\":{}}\n\n{\"chapter\":2,\"characters\":{},\"items\":{},\"locations\":{}}\n")
	lines, err := Parse(a)
	if err != nil || len(lines) != 2 {
		t.Fatalf("%v %v", lines, err)
	}
	if _, err := Parse([]byte("{\"chapter\":1}\n{oops\n")); err == nil {
		t.Fatal("a broken line parsed")
	}
	b := []Line{lines[0], {Chapter: 2, Characters: map[string]int{"b": 1}}}
	for _, c := range []struct {
		have, want []Line
		diff       string
	}{
		{lines, lines, ""},
		{lines, b, "chapter 2"},
		{lines[:1], lines, "chapter 2 (missing)"},
		{lines, lines[:1], "chapter 2 (extra)"},
	} {
		if d := Diff(c.have, c.want); d != c.diff {
			t.Errorf("Diff = %q, want %q", d, c.diff)
		}
	}
}

// StateNames reads the names of the state as read, with the chapter's
// ops on top, the same names a replay of the state after the chapter
// gives (GroupNames), which is what rebuild compares the ledger with.
func TestStateNamesMatchReplay(t *testing.T) {
	state := []byte(`{
  "active_foreshadowing": [],
  "characters": {},
  "factions": {},
  "items": {
    "jade": {
      "name": "残玉"
    },
    "lamp": {
      "display_name": "魂灯",
      "name": "灯"
    },
    "sword": {
      "owner": "x"
    }
  },
  "last_updated_chapter": 1,
  "locations": {
    "hall": {
      "name": "长明殿"
    }
  },
  "schema_version": 1,
  "state_version": 1,
  "world_state": {}
}
`)
	raws := []string{
		`{"op":"set","path":"items.sword.name","value":"断剑"}`,
		`{"op":"set","path":"items.lamp.display_name","value":"第七盏灯"}`,
		`{"op":"set","path":"locations.bridge","value":{"name":"断桥","x":1}}`,
		`{"op":"set","path":"locations.hall","value":{"owner":"y"}}`,
		`{"op":"set","path":"items.jade.holder","value":"lu"}`,
	}
	var ops []stateops.Op
	for _, r := range raws {
		v, err := stateops.Decode([]byte(r))
		if err != nil {
			t.Fatal(err)
		}
		op, reason := stateops.Validate(v)
		if reason != "" {
			t.Fatal(reason)
		}
		ops = append(ops, op)
	}
	for _, data := range [][]byte{state, []byte(`{"state_version":1,"last_updated_chapter":1,"characters":{},"factions":{},"world_state":{},"active_foreshadowing":[],` +
		`"items":{"jade":{"name":"残玉"},"lamp":{"display_name":"魂灯","name":"灯"},"sword":{"owner":"x"}},"locations":{"hall":{"name":"长明殿"}}}`)} {
		doc, err := stateops.Open(data, "s.json")
		if err != nil {
			t.Fatal(err)
		}
		items, locs := StateNames(doc, ops)
		var st map[string]any
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		stateops.Apply(st, ops)
		wi, wl := GroupNames(st["items"]), GroupNames(st["locations"])
		gi, _ := json.Marshal(items)
		gl, _ := json.Marshal(locs)
		ei, _ := json.Marshal(wi)
		el, _ := json.Marshal(wl)
		if string(gi) != string(ei) || string(gl) != string(el) {
			t.Fatalf("StateNames %s %s, replay %s %s", gi, gl, ei, el)
		}
		if string(gi) != `[{"Slug":"jade","Name":"残玉"},{"Slug":"lamp","Name":"第七盏灯"},{"Slug":"sword","Name":"断剑"}]` || string(gl) != `[{"Slug":"bridge","Name":"断桥"}]` {
			t.Fatalf("names %s %s", gi, gl)
		}
		for _, r := range raws {
			var op struct{ Op, Path string }
			_ = json.Unmarshal([]byte(r), &op)
			if TouchesNames(op.Op, op.Path) == (op.Path == "items.jade.holder") {
				t.Fatalf("TouchesNames(%s)", r)
			}
		}
	}
}

func TestRange(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	ledger := `{"chapter":1,"characters":{"a":1},"items":{},"locations":{}}
{"chapter":2,"characters":{"b":2},"items":{},"locations":{}}
not json
{"chapter":3,"characters":{},"items":{},"locations":{}}
{"chapter":4,"characters":{"a":3},"items":{},"locations":{}}
`
	if err := os.WriteFile(filepath.Join(dir, "state", "mentions.jsonl"), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, to int
		want     []int
	}{{2, 3, []int{2, 3}}, {1, 9, []int{1, 2, 3, 4}}, {4, 4, []int{4}}, {5, 9, nil}, {3, 2, nil}} {
		lines, err := Range(root, tc.from, tc.to)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, l := range lines {
			got = append(got, l.Chapter)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Range(%d, %d) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	lines, _ := Range(root, 2, 2)
	if lines[0].Characters["b"] != 2 {
		t.Errorf("line 2 decoded as %+v", lines[0])
	}
}
