package foreshadow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

func items(t *testing.T, s string) []Item {
	t.Helper()
	f, err := Parse([]byte(s), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	return f.Items
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonio.MarshalLine(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func ops(t *testing.T, s string) []Op {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raws); err != nil {
		t.Fatal(err)
	}
	return ParseOps(raws)
}

func TestParseShapes(t *testing.T) {
	if it := items(t, `[{"id":"a"}]`); len(it) != 1 || it[0].ID != "a" {
		t.Fatalf("bare list: %+v", it)
	}
	if it := items(t, `{"volume":2}`); len(it) != 0 {
		t.Fatalf("meta only: %+v", it)
	}
	for _, bad := range []string{`{"foreshadowing":{}}`, `{"items":[]}`, `"x"`, `3`} {
		if _, err := Parse([]byte(bad), "g.json"); !errs.Is(err, errs.Schema) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := Parse([]byte(`{"foreshadowing":[`), "g.json"); !errs.Is(err, errs.InvalidJSON) {
		t.Errorf("truncated: %v", err)
	}
}

func TestQuery(t *testing.T) {
	global := items(t, `{"foreshadowing":[
	 {"id":"b-overdue-short","scope":"short","status":"planted","target_resolve_range":[10,20],"extra":1},
	 {"id":"c-long-covering","description":"","scope":"long","status":"advanced","target_resolve_range":[40,60]},
	 {"id":"d-resolved","scope":"short","status":"resolved","target_resolve_range":[1,2]},
	 {"id":"e-bad-range","scope":"short","status":"planted","target_resolve_range":["1",2]},
	 {"id":"f-zero-range","scope":"short","status":"planted","target_resolve_range":[0,49]},
	 {"id":"g-plan-resolved","scope":"medium","status":"planted","target_resolve_range":[45,55]},
	 {"id":"h-long-past","scope":"long","status":"planted","target_resolve_range":[1,3]},
	 "junk", {"noid":true}
	]}`)
	plan := items(t, `{"volume":2,"foreshadowing":[
	 {"id":"a-plan-planted","description":"计划A","scope":"medium","status":"planted","planted_chapter":50},
	 {"id":"b-overdue-short","description":"计划描述B","scope":"medium","target_resolve_range":[1,99]},
	 {"id":"c-long-covering","description":"计划C"},
	 {"id":"g-plan-resolved","status":"resolved"},
	 {"id":"i-plan-bad","status":"planted","target_resolve_range":[60,50]}
	]}`)
	r := Query(global, plan, 50, 2)
	want := `{"schema_version":1,"chapter":50,"volume":2,"items":[` +
		`{"id":"a-plan-planted","description":"计划A","scope":"medium","status":"planted","planted_chapter":50},` +
		`{"id":"b-overdue-short","description":"计划描述B","scope":"short","status":"planted","target_resolve_range":[10,20]},` +
		`{"id":"c-long-covering","description":"计划C","scope":"long","status":"advanced","target_resolve_range":[40,60]}],` +
		`"stats":{"items":3,"relevant_from_plan":2,"relevant_from_global":2,"overdue_short":1},"sources":{"global":"","volume_plan":""}}`
	if got := js(t, r); got != want {
		t.Fatalf("query:\n got %s\nwant %s", got, want)
	}
	if r := Query(nil, nil, 1, 1); js(t, r.Items) != "[]" {
		t.Fatal("empty query must give []")
	}
}

// mergeWant is global.json after TestMerge's ops at chapter 48.
const mergeWant = `{
  "foreshadowing": [
    {
      "id": "old",
      "description": "旧伏笔",
      "scope": "long",
      "status": "advanced",
      "planted_chapter": 3,
      "planted_storyline": "main-arc",
      "target_resolve_range": [
        40,
        60
      ],
      "last_updated_chapter": 48,
      "history": [
        {
          "chapter": 3,
          "action": "planted",
          "detail": "埋下"
        },
        {
          "chapter": 48,
          "action": "planted",
          "detail": "不能降级"
        }
      ],
      "note": "keep me"
    },
    {
      "id": "untouched",
      "description": "不动",
      "status": "planted",
      "history": null
    },
    {
      "id": "new-plan",
      "description": "计划中的伏笔",
      "scope": "short",
      "status": "planted",
      "planted_chapter": 48,
      "planted_storyline": "main-arc",
      "target_resolve_range": [
        50,
        55
      ],
      "last_updated_chapter": 48,
      "history": [
        {
          "chapter": 48,
          "action": "planted",
          "detail": "林枫捡到符文 <残片>"
        }
      ]
    },
    {
      "id": "fresh",
      "description": "fresh",
      "scope": "medium",
      "status": "advanced",
      "last_updated_chapter": 48,
      "history": [
        {
          "chapter": 48,
          "action": "advanced",
          "detail": ""
        }
      ]
    }
  ]
}
`

func TestMerge(t *testing.T) {
	global := items(t, `{"foreshadowing":[
	 {"id":"old","description":"旧伏笔","scope":"long","status":"advanced","planted_chapter":3,"planted_storyline":"main-arc",
	  "last_updated_chapter":40,"history":[{"chapter":3,"action":"planted","detail":"埋下"}],"note":"keep me"},
	 {"id":"untouched","description":"不动","status":"planted","history":null}
	]}`)
	plan := items(t, `{"foreshadowing":[{"id":"new-plan","description":"计划中的伏笔","scope":"short","target_resolve_range":[50,55]},
	 {"id":"old","description":"计划描述不覆盖","target_resolve_range":[40,60]}]}`)
	o := ops(t, `[
	 {"op":"foreshadow","path":"old","value":"planted","detail":"不能降级"},
	 {"op":"foreshadow","path":"new-plan","value":"planted","detail":"林枫捡到符文 <残片>"},
	 {"op":"foreshadow","path":"new-plan","value":"planted","detail":"重复"},
	 {"op":"foreshadow","path":"fresh","value":"advanced"},
	 {"op":"set","path":"characters.lin-feng.location","value":"城北"},
	 {"op":"foreshadow","path":"a.b","value":"planted"},
	 {"op":"foreshadow","path":"x","value":"abandoned"},
	 {"op":"foreshadow","path":"","value":"planted"},
	 {"op":"foreshadow","path":"y","value":3}
	]`)
	merged, dropped := Merge(global, plan, o, 48, "main-arc")
	if len(dropped) != 4 {
		t.Fatalf("dropped %s", js(t, dropped))
	}
	if js(t, dropped[0].Op) != `{"op":"foreshadow","path":"a.b","value":"planted"}` {
		t.Fatalf("dropped op not echoed: %s", dropped[0].Op)
	}
	f := &File{}
	out, err := f.Encode(merged)
	if err != nil {
		t.Fatal(err)
	}
	want := mergeWant
	if string(out) != want {
		t.Fatalf("merged:\n%s", out)
	}
	// the input slice is not modified
	if global[0].LastUpdatedChapter != 40 || len(global[0].History) != 1 {
		t.Fatal("Merge modified its input")
	}
	// idempotent: the same ops again change nothing
	again, _ := Merge(merged, plan, o, 48, "main-arc")
	out2, _ := f.Encode(again)
	if string(out2) != string(out) {
		t.Fatalf("second merge differs:\n%s", out2)
	}
	// resolve later, then an older "advanced" never downgrades
	later, _ := Merge(merged, plan, ops(t, `[{"op":"foreshadow","path":"fresh","value":"resolved","detail":"揭晓"},
	 {"op":"foreshadow","path":"fresh","value":"advanced","detail":"回声"}]`), 50, "su-yao")
	for _, it := range later {
		if it.ID == "fresh" && (it.Status != Resolved || it.LastUpdatedChapter != 50 || len(it.History) != 3 || it.PlantedChapter != 0) {
			t.Fatalf("fresh after 50: %s", js(t, it))
		}
	}
}

func TestRollback(t *testing.T) {
	global := items(t, `{"foreshadowing":[
	 {"id":"old","description":"旧","scope":"long","status":"advanced","planted_chapter":3,"planted_storyline":"main-arc",
	  "last_updated_chapter":49,"history":[{"chapter":3,"action":"planted","detail":"埋"},{"chapter":49,"action":"advanced","detail":"推"}]},
	 {"id":"seeded","description":"预置","status":"advanced","planted_chapter":2,"last_updated_chapter":48,"history":[{"chapter":48,"action":"advanced","detail":""}]},
	 {"id":"created","description":"新","status":"planted","planted_chapter":48,"planted_storyline":"main-arc","last_updated_chapter":48,
	  "history":[{"chapter":48,"action":"planted","detail":""}]},
	 {"id":"early","description":"早","status":"resolved","last_updated_chapter":10,"history":[{"chapter":10,"action":"resolved","detail":""}]}
	]}`)
	got := js(t, Rollback(global, 48))
	want := `[{"id":"old","description":"旧","scope":"long","status":"planted","planted_chapter":3,"planted_storyline":"main-arc","last_updated_chapter":3,"history":[{"chapter":3,"action":"planted","detail":"埋"}]},` +
		`{"id":"seeded","description":"预置","status":"planted","planted_chapter":2,"last_updated_chapter":2,"history":[]},` +
		`{"id":"early","description":"早","status":"resolved","last_updated_chapter":10,"history":[{"chapter":10,"action":"resolved","detail":""}]}]`
	if got != want {
		t.Fatalf("rollback:\n got %s\nwant %s", got, want)
	}
	// merge then rollback of the same chapter restores the original items
	merged, _ := Merge(global, nil, ops(t, `[{"op":"foreshadow","path":"brand-new","value":"planted"},{"op":"foreshadow","path":"early","value":"advanced"}]`), 60, "main-arc")
	if js(t, Rollback(merged, 60)) != js(t, global) {
		t.Fatalf("merge+rollback not identity:\n%s", js(t, Rollback(merged, 60)))
	}
}
