package stateops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
)

const seedState = `{"schema_version":1,"state_version":7,"last_updated_chapter":6,
 "characters":{"a":{"hp":1,"bag":["x",{"k":[1,2]}],"rel":{"b":"友"}},"lin-feng":{"location":"城,\"门\"\n","n":1.5},"z":null},
 "items":{},"locations":{"city":{"pop":3}},"factions":{"x":[]},"world_state":{"天气":"雨","e":{}},
 "active_foreshadowing":["p1"],"extra":{"keep":true}}`

const seedOps = `[
 {"op":"set","path":"characters.lin-feng.location","value":"森林"},
 {"op":"inc","path":"characters.a.hp","value":2},
 {"op":"add","path":"characters.a.bag","value":{"k":[1,2]}},
 {"op":"add","path":"characters.b.bag","value":"新"},
 {"op":"set","path":"characters.0.x","value":1},
 {"op":"set","path":"characters.zz","value":{"deep":{"er":[]}}},
 {"op":"set","path":"items.sword.owner","value":"a"},
 {"op":"set","path":"world_state.新","value":[1,"二"]},
 {"op":"remove","path":"characters.a.bag","value":"x"},
 {"op":"set","path":"characters.z.q","value":1},
 {"op":"foreshadow","path":"p2","value":"planted"},
 {"op":"foreshadow","path":"p1","value":"resolved"}
]`

func canonicalState(t testing.TB, src string) []byte {
	t.Helper()
	st, _, err := DecodeState([]byte(src), "state")
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonio.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// both applies ops to data through the splice path and the full path and
// checks the spliced bytes equal the full rewrite and are canonical.
func both(t testing.TB, data []byte, raws []any, chapter int) []byte {
	t.Helper()
	ops, _ := validateAll(raws)
	ds, err := open(data, "state", true)
	if err != nil {
		t.Fatal(err)
	}
	df, err := open(data, "state", false)
	if err != nil {
		t.Fatal(err)
	}
	spliced := ds.Spliced
	outS, resS, err := ds.Apply(ops, chapter)
	if err != nil {
		t.Fatal(err)
	}
	if spliced && !ds.Spliced {
		t.Fatalf("splice of a canonical document fell back to a full rewrite:\n%s", data)
	}
	if spliced {
		spliceCount++
	}
	outF, resF, err := df.Apply(cloneOps(ops), chapter)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(outS, outF) {
		t.Fatalf("splice != full rewrite\nsplice:\n%s\nfull:\n%s", outS, outF)
	}
	canon, err := Canonical(outS)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(canon, outS) {
		t.Fatalf("spliced bytes are not canonical\n%s\ncanonical:\n%s", outS, canon)
	}
	if len(resS.Applied) != len(resF.Applied) || len(resS.Dropped) != len(resF.Dropped) || len(resS.Warnings) != len(resF.Warnings) {
		t.Fatalf("results differ: splice %d/%d/%d full %d/%d/%d", len(resS.Applied), len(resS.Dropped), len(resS.Warnings),
			len(resF.Applied), len(resF.Dropped), len(resF.Warnings))
	}
	return outS
}

var spliceCount int

func cloneOps(ops []Op) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		op.Raw, op.Value = Clone(op.Raw), Clone(op.Value)
		out[i] = op
	}
	return out
}

func TestSpliceSeed(t *testing.T) {
	data := canonicalState(t, seedState)
	d, _ := open(data, "state", true)
	if !d.Spliced || d.Version != 7 {
		t.Fatalf("canonical seed not spliceable: %+v", d.Spliced)
	}
	out := both(t, data, mustOps(t, seedOps), 8)
	var st map[string]any
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatal(err)
	}
	if st["state_version"].(float64) != 8 || st["last_updated_chapter"].(float64) != 8 {
		t.Errorf("versions not bumped: %v %v", st["state_version"], st["last_updated_chapter"])
	}
	// Untouched entities keep their exact bytes.
	for _, frag := range []string{"\"city\": {\n      \"pop\": 3\n    }", "\"extra\": {\n    \"keep\": true\n  }"} {
		if !bytes.Contains(out, []byte(frag)) {
			t.Errorf("untouched fragment %q lost", frag)
		}
	}
}

func TestSpliceEmptyGroupsAndNoOps(t *testing.T) {
	data, _ := jsonio.Marshal(Empty())
	both(t, data, nil, 1)
	both(t, data, mustOps(t, `[{"op":"set","path":"factions.b.x","value":1},{"op":"set","path":"factions.a.x","value":2}]`), 1)
	both(t, data, mustOps(t, `[{"op":"foreshadow","path":"x","value":"resolved"}]`), 1)
}

func TestNonCanonicalFallsBack(t *testing.T) {
	data := []byte(`{"state_version": 2, "characters": {"b": {}, "a": 1}}`)
	d, err := open(data, "state", true)
	if err != nil {
		t.Fatal(err)
	}
	if d.Spliced {
		t.Fatal("a non-canonical document was treated as spliceable")
	}
	out, _, err := d.Apply(nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"active_foreshadowing\": [],\n  \"characters\": {\n    \"a\": 1,\n    \"b\": {}\n  },\n  \"factions\": {},\n  \"items\": {},\n  \"last_updated_chapter\": 3,\n  \"locations\": {},\n  \"schema_version\": 1,\n  \"state_version\": 3,\n  \"world_state\": {}\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s", out)
	}
}

func TestBadStateDocuments(t *testing.T) {
	for _, src := range []string{`[]`, `{"state_version":"3"}`, `{"state_version":-1}`, `{}`, `{"state_version":1.5}`, `nul`} {
		if _, err := Open([]byte(src), "state/current-state.json"); err == nil {
			t.Errorf("%s: accepted", src)
		}
	}
}

// randomValue builds small random JSON values with awkward strings.
func randomValue(r *rand.Rand, depth int) any {
	strs := []string{"x", "林枫", "a\"b", "line\nbreak", "<&>", "\u2028", "", "k,", "}", "\\"}
	switch k := r.Intn(8); {
	case k == 0:
		return nil
	case k == 1:
		return r.Intn(2) == 0
	case k == 2:
		return json.Number(fmt.Sprint(r.Intn(200) - 100))
	case k == 3:
		return json.Number(fmt.Sprintf("%g", r.Float64()*100))
	case k == 4 && depth > 0:
		n := r.Intn(4)
		out := make([]any, n)
		for i := range out {
			out[i] = randomValue(r, depth-1)
		}
		return out
	case k == 5 && depth > 0:
		n := r.Intn(4)
		out := map[string]any{}
		for i := 0; i < n; i++ {
			out[strs[r.Intn(len(strs))]+fmt.Sprint(r.Intn(3))] = randomValue(r, depth-1)
		}
		return out
	}
	return strs[r.Intn(len(strs))]
}

func TestSpliceRandom(t *testing.T) {
	spliceCount = 0
	defer func() {
		if spliceCount < 500 {
			t.Errorf("only %d spliced updates: the property test is not exercising the splice path", spliceCount)
		}
	}()
	r := rand.New(rand.NewSource(42))
	slugs := []string{"a", "b", "lin-feng", "z9", "m"}
	keys := []string{"hp", "bag", "loc", "rel", "x"}
	kinds := []string{"set", "inc", "add", "remove", "foreshadow"}
	for iter := 0; iter < 400; iter++ {
		st := Empty()
		st["state_version"] = r.Intn(50)
		for _, g := range Groups {
			gm := st[g].(map[string]any)
			for i := r.Intn(4); i > 0; i-- {
				gm[slugs[r.Intn(len(slugs))]] = randomValue(r, 3)
			}
		}
		if r.Intn(3) == 0 {
			st["items"] = randomValue(r, 1)
		}
		data, err := jsonio.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := open(data, "state", true); err != nil {
			continue // e.g. items replaced by a scalar: still a state, checked by Open
		}
		var raws []any
		for i := r.Intn(8); i > 0; i-- {
			path := Groups[r.Intn(len(Groups))] + "." + slugs[r.Intn(len(slugs))]
			for j := r.Intn(3); j > 0; j-- {
				path += "." + keys[r.Intn(len(keys))]
			}
			kind := kinds[r.Intn(len(kinds))]
			op := map[string]any{"op": kind, "path": path, "value": randomValue(r, 2)}
			if kind == "inc" {
				op["value"] = json.Number(fmt.Sprint(r.Intn(9)))
			}
			if kind == "foreshadow" {
				op["path"] = slugs[r.Intn(len(slugs))]
				op["value"] = []string{Planted, Advanced, Resolved}[r.Intn(3)]
			}
			raws = append(raws, op)
		}
		out := both(t, data, raws, iter+1)
		// Chain: the result is itself spliceable.
		both(t, out, raws, iter+2)
	}
}

func FuzzOps(f *testing.F) {
	f.Add([]byte(seedOps), []byte(seedState))
	f.Add([]byte(`[{"op":"inc","path":"characters.a.hp","value":1e400},{"op":"set","path":"world_state.\u0000"}]`), []byte(`{"state_version":0}`))
	f.Add([]byte(`[{"op":"add","path":"items.x.y.z","value":[{}]},{"op":"remove","path":"items.x.y.z","value":[{}]}]`), []byte(`{"state_version":1,"items":{"x":{"y":5}}}`))
	f.Fuzz(func(t *testing.T, opsJSON, stateJSON []byte) {
		st, _, err := DecodeState(stateJSON, "state")
		if err != nil {
			return
		}
		data, err := jsonio.Marshal(st)
		if err != nil {
			return
		}
		v, err := Decode(json.RawMessage(opsJSON))
		if err != nil {
			return
		}
		raws, ok := v.([]any)
		if !ok {
			raws = []any{v}
		}
		both(t, data, raws, 5)
	})
}

func TestIsCanonical(t *testing.T) {
	good := canonicalState(t, seedState)
	if !IsCanonical(good) {
		t.Fatalf("canonical seed rejected:\n%s", good)
	}
	for _, bad := range []string{
		"{\n  \"b\": 1,\n  \"a\": 2\n}\n", // unsorted
		"{\n  \"a\": 1,\n  \"a\": 2\n}\n", // duplicate
		"{\n  \"a\": \"\\/\"\n}\n",        // needless escape
		"{\n  \"a\": \"\\u0041\"\n}\n",    // needless \u escape
		"{\n  \"a\": \"\\u000a\"\n}\n",    // \n written long
		"{\n  \"a\": \"\u2028\"\n}\n",     // raw U+2028
		"{\n   \"a\": 1\n}\n",             // indent
		"{\n  \"a\":1\n}\n",               // no space
		"{\n  \"a\": 1\n}",                // no trailing newline
		"{\n  \"a\": 01\n}\n",             // number
		"{\n  \"a\": {\n  }\n}\n",         // empty object spread
		"\ufeff{}\n",                      // BOM
	} {
		if IsCanonical([]byte(bad)) {
			t.Errorf("accepted non-canonical %q", bad)
		}
	}
	for _, ok := range []string{"{}\n", "{\n  \"a\": \"<&>\\u0001\\t\\u2028\"\n}\n", "[\n  1.50,\n  -0,\n  1E+5\n]\n"} {
		if !IsCanonical([]byte(ok)) {
			t.Errorf("rejected canonical %q", ok)
		}
	}
}

// FuzzCanonical checks IsCanonical agrees with decode + re-encode.
func FuzzCanonical(f *testing.F) {
	f.Add([]byte(seedState))
	f.Add([]byte("{\n  \"a\": \"\\u001f\\b\"\n}\n"))
	f.Add([]byte("[\n  {},\n  []\n]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		canon, err := Canonical(data)
		if err != nil {
			if IsCanonical(data) {
				t.Fatalf("undecodable input judged canonical: %q", data)
			}
			return
		}
		if IsCanonical(data) != bytes.Equal(canon, data) {
			t.Fatalf("IsCanonical=%v but canonical form equal=%v for %q", IsCanonical(data), bytes.Equal(canon, data), data)
		}
		if !IsCanonical(canon) {
			t.Fatalf("canonical form rejected: %q", canon)
		}
	})
}
