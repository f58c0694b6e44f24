package foreshadow

import (
	"testing"
)

// The summarizer's evidence quote is kept in the item's history entry
// (SPEC §25), after detail, and survives a rewrite and a rollback of a
// later chapter; an op without one writes the entry as before.
func TestMergeKeepsEvidence(t *testing.T) {
	global := items(t, `{"foreshadowing":[{"id":"F-1","description":"灯","status":"planted","planted_chapter":1,"history":[{"chapter":1,"action":"planted","detail":"亮","evidence":"灯芯亮了一下。"}]}]}`)
	merged, dropped := Merge(global, nil, ops(t, `[
	 {"op":"foreshadow","path":"F-1","value":"advanced","detail":"近","evidence":"他拧开灯座。"},
	 {"op":"foreshadow","path":"F-2","value":"planted","description":"信","evidence":"信纸发黄。"},
	 {"op":"foreshadow","path":"F-3","value":"planted","description":"刀"}]`), 5, "main-arc")
	if len(dropped) != 0 {
		t.Fatalf("dropped %+v", dropped)
	}
	got := js(t, merged)
	want := `[{"id":"F-1","description":"灯","status":"advanced","planted_chapter":1,"last_updated_chapter":5,"history":[{"chapter":1,"action":"planted","detail":"亮","evidence":"灯芯亮了一下。"},{"chapter":5,"action":"advanced","detail":"近","evidence":"他拧开灯座。"}]},` +
		`{"id":"F-2","description":"信","scope":"medium","status":"planted","planted_chapter":5,"planted_storyline":"main-arc","last_updated_chapter":5,"history":[{"chapter":5,"action":"planted","detail":"","evidence":"信纸发黄。"}]},` +
		`{"id":"F-3","description":"刀","scope":"medium","status":"planted","planted_chapter":5,"planted_storyline":"main-arc","last_updated_chapter":5,"history":[{"chapter":5,"action":"planted","detail":""}]}]`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if h := merged[0].History; h[0].Evidence != "灯芯亮了一下。" || h[1].Evidence != "他拧开灯座。" {
		t.Fatalf("typed evidence: %+v", h)
	}
	back := js(t, Rollback(merged, 5))
	if want := `[{"id":"F-1","description":"灯","status":"planted","planted_chapter":1,"last_updated_chapter":1,"history":[{"chapter":1,"action":"planted","detail":"亮","evidence":"灯芯亮了一下。"}]}]`; back != want {
		t.Fatalf("rollback\n%s\nwant\n%s", back, want)
	}
}
