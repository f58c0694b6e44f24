package changelog

import (
	"reflect"
	"testing"
)

// TestParseEntryShapes: the three changelog line shapes of SPEC §22.1 —
// the suite's own, the TypeScript CLI's and the plugin's chapter line
// (the delta as committed: base_state_version only), and the plugin's
// per-op note (no ops, not a commit).
func TestParseEntryShapes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Entry
	}{
		{`{"chapter":3,"state_version":5,"base_state_version":4,"storyline_id":"a","committed_at":"x","ops":[],"dropped":[]}`,
			Entry{Chapter: 3, StateVersion: 5, BaseStateVersion: 4, StorylineID: "a", Ops: nil, Commit: true}},
		{`{"chapter":2,"base_state_version":1,"storyline_id":"main-arc","extra":"kept","ops":[{"op":"set"}]}`,
			Entry{Chapter: 2, StateVersion: 2, BaseStateVersion: 1, StorylineID: "main-arc", Ops: nil, Foreign: true, Commit: true}},
		{`{"chapter":2,"op":"canon_upgrade","target":"W-001","from":"planned","to":"established"}`,
			Entry{Chapter: 2}},
		{`{"chapter":4,"ops":[]}`,
			Entry{Chapter: 4, StateVersion: -1, BaseStateVersion: -1, Foreign: true, Commit: true}},
		{`{"chapter":6,"state_version":6,"storyline_id":"b"}`,
			Entry{Chapter: 6, StateVersion: 6, BaseStateVersion: 5, StorylineID: "b", Commit: true}},
	} {
		got, err := ParseEntry([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		got.Ops = nil // compared by count below
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
	if e, _ := ParseEntry([]byte(`{"chapter":2,"base_state_version":1,"ops":[{"op":"set"},{"op":"x"}]}`)); len(e.Ops) != 2 {
		t.Errorf("foreign ops kept raw, invalid ones included: got %d", len(e.Ops))
	}
	if _, err := readEntries([]byte("{\"chapter\":1,\"state_version\":1,\"ops\":[]}\n{\"chapter\":\n")); err == nil {
		t.Error("a line that does not parse must be an error")
	}
}
