package stateops

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
)

func mustOps(t testing.TB, src string) []any {
	t.Helper()
	v, err := Decode(json.RawMessage(src))
	if err != nil {
		t.Fatal(err)
	}
	return v.([]any)
}

func mustState(t testing.TB, src string) map[string]any {
	t.Helper()
	st, _, err := DecodeState([]byte(src), "state")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func validateAll(raws []any) ([]Op, []Dropped) {
	var ops []Op
	var dropped []Dropped
	for _, r := range raws {
		op, reason := Validate(r)
		if reason != "" {
			dropped = append(dropped, Dropped{Op: r, Reason: reason})
			continue
		}
		ops = append(ops, op)
	}
	return ops, dropped
}

func enc(t testing.TB, v any) string {
	t.Helper()
	b, err := jsonio.MarshalLine(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestValidateReasons(t *testing.T) {
	cases := []struct{ op, reason string }{
		{`{"op":"set","path":"characters.lin-feng.location","value":"森林"}`, ""},
		{`{"op":"set","path":"characters.lin-feng.location","value":null}`, ""},
		{`{"op":"set","path":"characters.lin-feng.location"}`, "set needs a value key"},
		{`{"op":"add","path":"characters.lin-feng.inventory"}`, "add needs a value key"},
		{`{"op":"inc","path":"characters.lin-feng.hp","value":"5"}`, "inc needs a numeric value"},
		{`{"op":"inc","path":"characters.lin-feng.hp","value":1e400}`, "inc value is not a finite number"},
		{`{"op":"set","path":"characters","value":1}`, "path must have 2 to 4 dot-separated segments"},
		{`{"op":"set","path":"characters.a.b.c.d","value":1}`, "path must have 2 to 4 dot-separated segments"},
		{`{"op":"set","path":"world_state..x","value":1}`, "path has an empty segment"},
		{`{"op":"set","path":"characters.lin-feng.","value":1}`, "path has an empty segment"},
		{`{"op":"set","path":"active_foreshadowing.x","value":1}`, "top-level path segment must be one of characters, items, locations, factions, world_state"},
		{`{"op":"set","path":"__proto__.x","value":1}`, "top-level path segment must be one of characters, items, locations, factions, world_state"},
		{`{"op":"set","path":"characters.Lin_Feng.hp","value":1}`, `entity segment "Lin_Feng" is not a slug`},
		{`{"op":"set","path":"characters.林枫.hp","value":1}`, `entity segment "林枫" is not a slug`},
		{`{"op":"set","path":"world_state.天气","value":"雨"}`, ""},
		{`{"op":"delete","path":"characters.a.b","value":1}`, `unknown op kind "delete" (set, inc, add, remove, foreshadow)`},
		{`{"path":"characters.a.b","value":1}`, "op kind is missing or not a string"},
		{`{"op":"set","path":7,"value":1}`, "path is missing or not a non-empty string"},
		{`"set characters.a.b 1"`, "op is not an object"},
		{`{"op":"foreshadow","path":"ancient_prophecy","value":"advanced"}`, ""},
		{`{"op":"foreshadow","path":"a.b","value":"planted"}`, "foreshadow path must be one item id (non-empty, no dots or spaces)"},
		{`{"op":"foreshadow","path":"x","value":"done"}`, "foreshadow value must be planted, advanced or resolved"},
		{`{"op":"foreshadow","path":"x"}`, "foreshadow value must be planted, advanced or resolved"},
	}
	for _, c := range cases {
		v, err := Decode(json.RawMessage(c.op))
		if err != nil {
			t.Fatal(err)
		}
		_, reason := Validate(v)
		if reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.op, reason, c.reason)
		}
	}
}

func TestApplySemantics(t *testing.T) {
	st := mustState(t, `{"schema_version":1,"state_version":3,"last_updated_chapter":2,
	 "characters":{"lin-feng":{"hp":10,"mood":"calm","ratio":1.5,"inventory":["剑",{"k":1},"剑"],"note":null}},
	 "items":[],"locations":{},"factions":{},"world_state":{"weather":"rain"},"active_foreshadowing":["old"]}`)
	ops, dropped := validateAll(mustOps(t, `[
	 {"op":"inc","path":"characters.lin-feng.hp","value":5},
	 {"op":"inc","path":"characters.lin-feng.ratio","value":1},
	 {"op":"inc","path":"characters.lin-feng.gold","value":7},
	 {"op":"inc","path":"characters.lin-feng.mood","value":1},
	 {"op":"inc","path":"characters.lin-feng.note","value":1},
	 {"op":"add","path":"characters.lin-feng.inventory","value":{"k":1.0}},
	 {"op":"add","path":"characters.lin-feng.inventory","value":"密信"},
	 {"op":"add","path":"characters.lin-feng.mood","value":"x"},
	 {"op":"remove","path":"characters.lin-feng.inventory","value":"剑"},
	 {"op":"remove","path":"characters.lin-feng.inventory","value":"不存在"},
	 {"op":"remove","path":"characters.chen-lao.inventory","value":"x"},
	 {"op":"set","path":"characters.lin-feng.mood.deep","value":1},
	 {"op":"set","path":"characters.chen-lao.relations.lin-feng","value":"师徒"},
	 {"op":"set","path":"items.sword.owner","value":"lin-feng"},
	 {"op":"set","path":"world_state.weather","value":null},
	 {"op":"foreshadow","path":"prophecy","value":"planted"},
	 {"op":"foreshadow","path":"prophecy","value":"advanced"},
	 {"op":"foreshadow","path":"old","value":"resolved"},
	 {"op":"set","path":"characters.lin-feng"}
	]`))
	if len(dropped) != 1 || dropped[0].Reason != "set needs a value key" {
		t.Fatalf("static drops: %+v", dropped)
	}
	res := Apply(st, ops)
	want := `{"active_foreshadowing":["prophecy"],"characters":{"chen-lao":{"relations":{"lin-feng":"师徒"}},"lin-feng":{"gold":7,"hp":15,"inventory":[{"k":1},"密信"],"mood":"calm","note":null,"ratio":2.5}},"factions":{},"items":[],"last_updated_chapter":2,"locations":{},"schema_version":1,"state_version":3,"world_state":{"weather":null}}`
	if got := enc(t, st); got != want {
		t.Errorf("state\n got %s\nwant %s", got, want)
	}
	var reasons []string
	for _, d := range res.Dropped {
		reasons = append(reasons, d.Reason)
	}
	wantReasons := []string{
		"inc target characters.lin-feng.mood is not a number",
		"inc target characters.lin-feng.note is not a number",
		"add target characters.lin-feng.mood is not an array",
		"path collision: mood in characters.lin-feng.mood.deep is not an object",
		"path collision: items is not an object",
	}
	if strings.Join(reasons, "|") != strings.Join(wantReasons, "|") {
		t.Errorf("drops\n got %q\nwant %q", reasons, wantReasons)
	}
	wantWarn := []string{
		"remove characters.lin-feng.inventory: no equal element to remove",
		"remove characters.chen-lao.inventory: nothing to remove (path does not exist)",
	}
	if strings.Join(res.Warnings, "|") != strings.Join(wantWarn, "|") {
		t.Errorf("warnings\n got %q\nwant %q", res.Warnings, wantWarn)
	}
	if len(res.Applied) != 13 {
		t.Errorf("applied %d, want 13", len(res.Applied))
	}
	// remove of a missing path must not create intermediate objects.
	if _, ok := st["characters"].(map[string]any)["chen-lao"].(map[string]any)["inventory"]; ok {
		t.Error("remove created the leaf")
	}
}

func TestSetDoesNotAliasOpValue(t *testing.T) {
	st := Empty()
	ops, _ := validateAll(mustOps(t, `[
	 {"op":"set","path":"characters.a.bag","value":["x"]},
	 {"op":"add","path":"characters.a.bag","value":"y"}]`))
	Apply(st, ops)
	if got := enc(t, ops[0].Raw); got != `{"op":"set","path":"characters.a.bag","value":["x"]}` {
		t.Errorf("op value was mutated: %s", got)
	}
}

func TestIncKeepsIntegers(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"5", "3", "8"}, {"5", "-7", "-2"}, {"1.5", "1.5", "3"}, {"2", "0.25", "2.25"},
		{"9223372036854775807", "1", ""}, {"1e308", "1e308", ""},
	}
	for _, c := range cases {
		got, ok := addNumbers(json.Number(c.a), json.Number(c.b))
		if c.want == "" {
			if ok {
				t.Errorf("%s+%s: want overflow, got %s", c.a, c.b, got)
			}
			continue
		}
		if !ok || string(got) != c.want {
			t.Errorf("%s+%s = %s (%v), want %s", c.a, c.b, got, ok, c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	pairs := []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true}, {`{"a":[1,"x"]}`, `{"a":[1,"x"]}`, true}, {`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false}, {`null`, `null`, true}, {`"1"`, `1`, false}, {`true`, `true`, true},
	}
	for _, p := range pairs {
		a, _ := Decode(json.RawMessage(p.a))
		b, _ := Decode(json.RawMessage(p.b))
		if equal(a, b) != p.eq {
			t.Errorf("Equal(%s,%s) != %v", p.a, p.b, p.eq)
		}
	}
}
