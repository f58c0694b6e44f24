package stateops

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// The story clock and the knows ledger (SPEC §25) have fixed shapes: the
// summarizer sets world_state.story_time whole, {"day":N,"label":"…"},
// and adds or removes short facts on characters.{slug}.knows.
func TestValidateLedgerOps(t *testing.T) {
	long := strings.Repeat("知", 61)
	cases := []struct{ op, reason string }{
		{`{"op":"set","path":"world_state.story_time","value":{"day":3,"label":"四月十六 清晨"}}`, ""},
		{`{"op":"set","path":"world_state.story_time","value":{"day":1,"label":""}}`, ""},
		{`{"op":"set","path":"world_state.story_time","value":{"day":0,"label":"x"}}`, "world_state.story_time must be {\"day\": N ≥ 1, \"label\": \"…\"}"},
		{`{"op":"set","path":"world_state.story_time","value":{"day":2.5,"label":"x"}}`, "world_state.story_time must be {\"day\": N ≥ 1, \"label\": \"…\"}"},
		{`{"op":"set","path":"world_state.story_time","value":{"day":2}}`, "world_state.story_time must be {\"day\": N ≥ 1, \"label\": \"…\"}"},
		{`{"op":"set","path":"world_state.story_time","value":"第三天"}`, "world_state.story_time must be {\"day\": N ≥ 1, \"label\": \"…\"}"},
		{`{"op":"set","path":"world_state.story_time","value":{"day":2,"label":"x","hour":3}}`, "world_state.story_time must be {\"day\": N ≥ 1, \"label\": \"…\"}"},
		{`{"op":"inc","path":"world_state.story_time","value":1}`, "world_state.story_time is set whole with set"},
		{`{"op":"set","path":"world_state.story_time.day","value":4}`, "world_state.story_time is set whole with set"},
		{`{"op":"add","path":"characters.lin-jin.knows","value":"顾衡曾是校时局首席钟匠"}`, ""},
		{`{"op":"remove","path":"characters.lin-jin.knows","value":"顾衡曾是校时局首席钟匠"}`, ""},
		{`{"op":"add","path":"characters.lin-jin.knows","value":"` + long + `"}`, "characters.lin-jin.knows takes a fact of 1–60 characters"},
		{`{"op":"add","path":"characters.lin-jin.knows","value":"  "}`, "characters.lin-jin.knows takes a fact of 1–60 characters"},
		{`{"op":"add","path":"characters.lin-jin.knows","value":["a"]}`, "characters.lin-jin.knows takes a fact of 1–60 characters"},
		{`{"op":"set","path":"characters.lin-jin.knows","value":["a"]}`, "characters.lin-jin.knows changes by add and remove, one fact at a time"},
		{`{"op":"add","path":"characters.lin-jin.knows.x","value":"a"}`, "characters.lin-jin.knows changes by add and remove, one fact at a time"},
		// knows is a character field only; an item may have its own
		{`{"op":"set","path":"items.lamp.knows","value":1}`, ""},
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

// HasStoryTime reads the canonical state without decoding it, and any
// other layout in full; a story_time outside world_state does not count.
func TestHasStoryTime(t *testing.T) {
	clock := map[string]any{"day": 2, "label": "x"}
	cases := []struct {
		ws, chars map[string]any
		want      bool
	}{
		{map[string]any{"season": "冬", "story_time": clock}, nil, true},
		{map[string]any{"season": "冬"}, map[string]any{"a": map[string]any{"story_time": clock}}, false},
		{map[string]any{}, nil, false},
	}
	for i, c := range cases {
		chars := c.chars
		if chars == nil {
			chars = map[string]any{}
		}
		st := map[string]any{"schema_version": 1, "state_version": 3, "last_updated_chapter": 3, "characters": chars,
			"items": map[string]any{}, "locations": map[string]any{}, "factions": map[string]any{}, "world_state": c.ws, "active_foreshadowing": []any{}}
		canonical, err := jsonio.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		compact, _ := json.Marshal(st)
		for _, data := range [][]byte{canonical, compact} {
			if _, ok := canonicalHasClock(data); ok != bytes.Equal(data, canonical) {
				t.Errorf("case %d: fast path taken %v for %s", i, ok, data[:20])
			}
			root := testkit.Project(t, map[string]string{"state/current-state.json": string(data)})
			if got, err := HasStoryTime(root); err != nil || got != c.want {
				t.Errorf("case %d: HasStoryTime = %v, %v; want %v", i, got, err, c.want)
			}
		}
	}
}
