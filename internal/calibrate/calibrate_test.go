package calibrate

import (
	"testing"
	"testing/fstest"

	"github.com/novelsuite/novel/examples/calibration"
	"github.com/novelsuite/novel/internal/errs"
)

func TestVerdictThresholds(t *testing.T) {
	for _, c := range []struct {
		passed, pairs int
		want          string
	}{{8, 8, Usable}, {7, 8, Usable}, {6, 8, Weak}, {5, 8, Weak}, {4, 8, Unusable}, {0, 8, Unusable},
		{14, 16, Usable}, {13, 16, Weak}, {10, 16, Weak}, {9, 16, Unusable}} {
		if got := verdict(c.passed, c.pairs); got != c.want {
			t.Errorf("verdict(%d, %d) = %s, want %s", c.passed, c.pairs, got, c.want)
		}
	}
}

func f(x float64) *float64 { return &x }

func TestScoreNeedsMarginAndTheLabelledDimensionMarkedDown(t *testing.T) {
	p := Pair{ID: "x", Dimension: "pacing", Checks: []string{"W-002"}}
	clean := Variant{Overall: f(4.3), scores: map[string]float64{"pacing": 4, "character": 4.5}}
	for _, c := range []struct {
		name                   string
		flawed                 Variant
		ranked, caught, passed bool
	}{
		{"lowest and lower", Variant{Overall: f(3.8), Lowest: []string{"pacing"}, scores: map[string]float64{"pacing": 2, "character": 4.5}}, true, true, true},
		{"margin 0.49 is not ranked", Variant{Overall: f(3.81), Lowest: []string{"pacing"}, scores: map[string]float64{"pacing": 2}}, false, true, false},
		// Everything tied at the clean score: the tie catches nothing.
		{"tied, not marked down", Variant{Overall: f(3.3), Lowest: []string{"character", "pacing"}, scores: map[string]float64{"pacing": 4, "character": 4}}, true, false, false},
		{"labelled violation", Variant{Overall: f(3.3), Lowest: []string{"character"}, Violations: []string{"W-002"}, scores: map[string]float64{"pacing": 4, "character": 3}}, true, true, true},
		{"other violation", Variant{Overall: f(3.3), Lowest: []string{"character"}, Violations: []string{"W-001"}, scores: map[string]float64{"pacing": 4, "character": 3}}, true, false, false},
		{"invalid answer", Variant{Error: "bad"}, false, false, false},
	} {
		got := score(p, clean, c.flawed)
		if got.Ranked != c.ranked || got.Caught != c.caught || got.Passed != c.passed {
			t.Errorf("%s: ranked %v caught %v passed %v, want %v %v %v", c.name, got.Ranked, got.Caught, got.Passed, c.ranked, c.caught, c.passed)
		}
	}
}

// The built-in set is what SPEC §24 asks for: at least 8 pairs, the eight
// defect kinds, each flawed text differing from its clean one.
func TestBuiltinSet(t *testing.T) {
	s, err := LoadSet(calibration.FS, "built-in")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"skipped-objective", "contradicts-previous", "ai-flavour", "exposition-dump",
		"dead-character-speaks", "world-rule-broken", "pov-break", "flat-ending"}
	if len(s.Pairs) != len(want) {
		t.Fatalf("%d pairs, want %d", len(s.Pairs), len(want))
	}
	for i, p := range s.Pairs {
		if p.ID != want[i] {
			t.Errorf("pair %d is %s, want %s", i, p.ID, want[i])
		}
		a, _ := calibration.FS.ReadFile(p.Clean)
		b, _ := calibration.FS.ReadFile(p.Flawed)
		if len(a) == 0 || string(a) == string(b) {
			t.Errorf("%s: the flawed text must be a changed copy of the clean one", p.ID)
		}
	}
}

func TestLoadSetRefusals(t *testing.T) {
	cp := []byte(`{"schema_version":2,"orchestrator_state":"WRITING","current_volume":1,"last_completed_chapter":3,"pipeline_stage":"committed","inflight_chapter":null,"revision_count":0}`)
	base := fstest.MapFS{"b/.checkpoint.json": {Data: cp}, "c.md": {Data: []byte("# 第4章 x\n")}, "f.md": {Data: []byte("# 第4章 y\n")}}
	for _, c := range []struct{ name, set, field string }{
		{"version", `{"version":2,"pairs":[]}`, "version"},
		{"empty", `{"version":1,"pairs":[]}`, "pairs"},
		{"dimension", `{"version":1,"pairs":[{"id":"a","chapter":4,"base":"b","clean":"c.md","flawed":"f.md","dimension":"plot"}]}`, "pairs[0].dimension"},
		{"same file", `{"version":1,"pairs":[{"id":"a","chapter":4,"base":"b","clean":"c.md","flawed":"c.md","dimension":"pacing"}]}`, "pairs[0]"},
		{"missing text", `{"version":1,"pairs":[{"id":"a","chapter":4,"base":"b","clean":"c.md","flawed":"g.md","dimension":"pacing"}]}`, "pairs[0]"},
		{"escaping path", `{"version":1,"pairs":[{"id":"a","chapter":4,"base":"b","clean":"../c.md","flawed":"f.md","dimension":"pacing"}]}`, "pairs[0]"},
		{"base behind", `{"version":1,"pairs":[{"id":"a","chapter":5,"base":"b","clean":"c.md","flawed":"f.md","dimension":"pacing"}]}`, "pairs[0].base"},
		{"duplicate id", `{"version":1,"pairs":[{"id":"a","chapter":4,"base":"b","clean":"c.md","flawed":"f.md","dimension":"pacing"},{"id":"a","chapter":4,"base":"b","clean":"c.md","flawed":"f.md","dimension":"pacing"}]}`, "pairs[1].id"},
	} {
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		fsys["set.json"] = &fstest.MapFile{Data: []byte(c.set)}
		_, err := LoadSet(fsys, "s")
		e := errs.As(err)
		if e == nil || e.Code != errs.Schema || e.Details["field"] != c.field || e.Details["file"] != "s/set.json" {
			t.Errorf("%s: got %v, want E_SCHEMA on %s", c.name, err, c.field)
		}
	}
}
