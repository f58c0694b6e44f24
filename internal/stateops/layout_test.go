package stateops

import (
	"bytes"
	"reflect"
	"testing"
)

// The layout recorded by the canonical scan is the one the splice would
// find by searching: the top-level members and each group's members.
func checkLayout(t *testing.T, data []byte) {
	t.Helper()
	lay, ok := scanCanonical(data)
	if ok != IsCanonical(data) {
		t.Fatalf("scanCanonical ok=%v, IsCanonical=%v for %q", ok, !ok, data)
	}
	if !ok {
		return
	}
	top, ok := spliceLayout(data)
	if !ok {
		if layoutOK(data, lay.top) && len(data) > 0 && data[0] == '{' {
			t.Fatalf("recorded layout usable but spliceLayout refused %q", data)
		}
		return
	}
	if !reflect.DeepEqual(top, lay.top) {
		t.Fatalf("top members differ:\nscan   %+v\nsearch %+v", lay.top, top)
	}
	for _, m := range top {
		if data[m.valStart] != '{' {
			continue
		}
		want, _, ok := scanObject(data, m.valStart, 4)
		if !ok {
			t.Fatalf("scanObject refused group %s of a canonical document", m.key)
		}
		if got := lay.groups[m.key]; !reflect.DeepEqual(got, want) {
			t.Fatalf("group %s members differ:\nscan   %+v\nsearch %+v", m.key, got, want)
		}
	}
}

func TestScanLayout(t *testing.T) {
	checkLayout(t, canonicalState(t, seedState))
	checkLayout(t, []byte("{\n  \"active_foreshadowing\": [],\n  \"characters\": {},\n  \"factions\": {},\n  \"items\": {},\n  \"last_updated_chapter\": 0,\n  \"locations\": {},\n  \"state_version\": 0,\n  \"world_state\": {}\n}\n"))
}

// UTF-8 is checked inside strings as utf8.Valid would, plus the
// encoder's own escapes (U+2028/U+2029).
func TestCanonicalUTF8(t *testing.T) {
	for _, s := range []string{"é", "林枫", "𝄞", "\u07ff", "\uffff", "\U0010ffff"} {
		if doc := "{\n  \"a\": \"" + s + "\"\n}\n"; !IsCanonical([]byte(doc)) {
			t.Errorf("rejected valid %q", doc)
		}
	}
	for _, s := range []string{"\xff", "\x80", "\xc0\xaf", "\xc2", "\xe0\x80\xaf", "\xed\xa0\x80", "\xe4\xb8", "\xe4\xb8\"",
		"\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf0\x9d\x84", "\u2028", "\u2029"} {
		if doc := "{\n  \"a\": \"" + s + "\"\n}\n"; IsCanonical([]byte(doc)) {
			t.Errorf("accepted %q", doc)
		}
		if doc := "{\n  \"" + s + "\": 1\n}\n"; IsCanonical([]byte(doc)) {
			t.Errorf("accepted key %q", doc)
		}
	}
}

func FuzzScanLayout(f *testing.F) {
	f.Add([]byte(seedState))
	f.Add([]byte("{\n  \"a\": {\n    \"b\": [\n      1\n    ],\n    \"c\": \"\\u001f\"\n  },\n  \"d\": {}\n}\n"))
	f.Add([]byte("{\n  \"林\": \"枫\xe2\x80\xa8\xed\x9f\xbf\xe0\xa0\x80𝄞é\"\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := Canonical(data); err == nil {
			if IsCanonical(data) != bytes.Equal(c, data) {
				t.Fatalf("IsCanonical=%v, canonical form equal=%v for %q", IsCanonical(data), bytes.Equal(c, data), data)
			}
			checkLayout(t, c)
		}
		checkLayout(t, data)
	})
}
