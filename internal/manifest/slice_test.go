package manifest

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// A list longer than MaxSliceList keeps its entries that name a cast
// member and the last others, ten in all, in order, after a marker; lists
// at any depth are bounded; anything shorter is returned byte for byte.
func TestListBound(t *testing.T) {
	lb := listBounder{cast: [][]byte{[]byte(`"lu-zhao"`)}}
	var notes []string
	for i := 1; i <= 15; i++ {
		notes = append(notes, strconv.Quote("n"+strconv.Itoa(i)))
	}
	notes[1] = `"lu-zhao"`
	hist := `[{"chapter":1,"holder":"lu-zhao"}` + strings.Repeat(`,{"chapter":2,"holder":"x"}`, 11) + `]`
	in := `{"notes": [` + strings.Join(notes, ", ") + `], "deep": {"h": ` + hist + `}, "short": [1,2,3,4,5,6,7,8,9,10], "键": "值"}`
	got := string(lb.bound(json.RawMessage(in)))
	want := `{"notes":["…（略去 5 条，全文见 state/current-state.json）","lu-zhao","n7","n8","n9","n10","n11","n12","n13","n14","n15"],` +
		`"deep":{"h":["…（略去 2 条，全文见 state/current-state.json）",{"chapter":1,"holder":"lu-zhao"}` + strings.Repeat(`,{"chapter":2,"holder":"x"}`, 9) + `]},` +
		`"short":[1,2,3,4,5,6,7,8,9,10],"键":"值"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for _, same := range []string{`{"short": [1, 2], "x": "y"}`, `[1,2,3,4,5,6,7,8,9,10]`, `"s"`, `{"bad": [1,`, ``} {
		if got := string(lb.bound(json.RawMessage(same))); got != same {
			t.Errorf("%q changed to %q", same, got)
		}
	}
	// More cast entries than places: all of them stay.
	var all []string
	for i := 0; i < 12; i++ {
		all = append(all, `"lu-zhao"`)
	}
	if got := string(lb.bound(json.RawMessage("[" + strings.Join(append(all, `"x"`), ",") + "]"))); got != `["…（略去 1 条，全文见 state/current-state.json）",`+strings.Join(all, ",")+`]` {
		t.Fatalf("cast entries: %s", got)
	}
}
