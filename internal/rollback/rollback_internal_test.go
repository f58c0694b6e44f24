package rollback

import (
	"reflect"
	"strings"
	"testing"
)

func TestScanChangelog(t *testing.T) {
	lines := []string{
		`{"chapter":7,"state_version":2,"storyline_id":"old-line"}`, // before the baseline (version 3)
		`{"chapter":1,"state_version":4,"storyline_id":"a"}`,
		`{"chapter":2,"state_version":5,"storyline_id":"b"}`,
		`not json`,
		`{"chapter":3,"state_version":6,"storyline_id":"a"}`,
		`{"chapter":4,"state_version":7,"storyline_id":"b"}`,
		`{"chapter":5,"state_version":8,"storyline_id":"a"}`,
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	cut, before, touched := scanChangelog(data, 3, 3)
	if want := int64(strings.Index(string(data), `{"chapter":3`)); cut != want {
		t.Fatalf("cut = %d, want %d", cut, want)
	}
	if want := map[string]int{"old-line": 7, "a": 1, "b": 2}; !reflect.DeepEqual(before, want) {
		t.Fatalf("lastBefore = %v, want %v", before, want)
	}
	if want := map[string][]int{"a": {3, 5}, "b": {4}}; !reflect.DeepEqual(touched, want) {
		t.Fatalf("touched = %v, want %v", touched, want)
	}
	// Nothing at or after the chapter: no cut.
	if cut, _, touched := scanChangelog(data, 9, 3); cut != int64(len(data)) || len(touched) != 0 {
		t.Fatalf("to 9: cut %d touched %v", cut, touched)
	}
	// A line before the baseline never counts as rolled back.
	if cut, _, _ := scanChangelog(data, 6, 3); cut != int64(len(data)) {
		t.Fatalf("to 6: cut %d, want none", cut)
	}
}

func TestFilterUnknown(t *testing.T) {
	in := "{\"chapter\":1,\"name\":\"甲\"}\n{\"chapter\":3,\"name\":\"乙\"}\n{\"name\":\"无章\"}\n坏行\n{\"chapter\":2,\"name\":\"丙\"}"
	want := "{\"chapter\":1,\"name\":\"甲\"}\n{\"name\":\"无章\"}\n坏行\n{\"chapter\":2,\"name\":\"丙\"}\n"
	if got := string(filterUnknown([]byte(in), 3)); got != want {
		t.Fatalf("filterUnknown = %q, want %q", got, want)
	}
	if got := filterUnknown([]byte("{\"chapter\":3}\n"), 1); len(got) != 0 {
		t.Fatalf("all rolled back: %q", got)
	}
}
