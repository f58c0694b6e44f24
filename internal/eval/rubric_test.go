package eval

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// full scores every rubric dimension; by hand with the default weights
// .64+.56+.585+.27+.32+.30+.40+.32+.30 = 3.695, which rounds to 3.7.
const full = `{"chapter":3,"rubric_version":"2026-11.1","overall":4.3,"scores":{
 "plot_logic":{"score":4,"reason":"因果清楚","evidence":"他把灯芯剪短"},
 "character":{"score":3.5,"reason":"r","evidence":"e"},
 "immersion":{"score":4.5,"reason":"r","evidence":"e"},
 "foreshadowing":{"score":3,"reason":"r","evidence":"e"},
 "pacing":{"score":4,"reason":"r","evidence":"e"},
 "style_naturalness":{"score":2.5,"reason":"r","evidence":["他感到","心中涌起"]},
 "emotional_impact":{"score":5,"reason":"r","evidence":"e"},
 "storyline_coherence":{"score":4,"reason":"r","evidence":"e"},
 "tonal_variance":{"score":3,"reason":"r","evidence":"e"}}}`

func defaults() map[string]float64 {
	w := map[string]float64{}
	for _, d := range Rubric {
		w[d.Name] = d.Weight
	}
	return w
}

func TestRubricWeightsSumToOne(t *testing.T) {
	var sum float64
	for _, d := range Rubric {
		sum += d.Weight
	}
	if Round2(sum) != 1 || len(Rubric) != 9 {
		t.Fatalf("%d dimensions, weights sum %v", len(Rubric), sum)
	}
}

func TestWeighted(t *testing.T) {
	e, err := Parse([]byte(full), "e.json", 3)
	if err != nil {
		t.Fatal(err)
	}
	if e.RubricVersion != RubricVersion || e.Overall != 4.3 {
		t.Fatalf("%+v", e)
	}
	if ov, ok := e.Weighted(defaults()); !ok || ov != 3.7 {
		t.Fatalf("default weights: %v %v, want 3.7 true", ov, ok)
	}
	// reason is read as the feedback; a list of quotes is joined.
	if d := e.Dimensions[len(e.Dimensions)-2]; d.Name != "style_naturalness" || d.Feedback != "r" || d.Evidence != "他感到 / 心中涌起" {
		t.Fatalf("%+v", d)
	}
	if d := e.Dimensions[5]; d.Name != "plot_logic" || d.Feedback != "因果清楚" || d.Evidence != "他把灯芯剪短" {
		t.Fatalf("%+v", d)
	}
	// Custom weights: only immersion (4.5) and style_naturalness (2.5),
	// 0.3 and 0.1 → (1.35+0.25)/0.4 = 4.
	w := map[string]float64{"immersion": 0.3, "style_naturalness": 0.1, "plot_logic": 0}
	if ov, ok := e.Weighted(w); !ok || ov != 4 {
		t.Fatalf("custom weights: %v %v, want 4 true", ov, ok)
	}
	// Two thirds: (4×1 + 3.5×1 + 3×1)/3 = 3.5; (4.5+4.5+4)/3 = 4.333… → 4.33.
	if ov, _ := e.Weighted(map[string]float64{"plot_logic": 1, "character": 1, "foreshadowing": 1}); ov != 3.5 {
		t.Fatalf("equal weights: %v", ov)
	}
	if ov, _ := e.Weighted(map[string]float64{"immersion": 0.5, "pacing": 0.25}); ov != 4.33 {
		t.Fatalf("(4.5×.5+4×.25)/.75: %v, want 4.33", ov)
	}
	// All weights zero: nothing to weigh, the model's overall stands.
	if ov, ok := e.Weighted(map[string]float64{"plot_logic": 0}); ok || ov != 4.3 {
		t.Fatalf("zero weights: %v %v", ov, ok)
	}
}

func TestWeightedFallsBackToOwnOverall(t *testing.T) {
	for name, js := range map[string]string{
		"no version":      `{"chapter":3,"overall":4.3,"scores":{"plot_logic":{"score":1,"feedback":"x"}}}`,
		"other version":   `{"chapter":3,"rubric_version":"plugin-1","overall":4.3,"scores":{"plot_logic":1}}`,
		"missing weighed": `{"chapter":3,"rubric_version":"2026-11.1","overall":4.3,"scores":{"plot_logic":{"score":1,"reason":"x","evidence":"y"}}}`,
	} {
		e, err := Parse([]byte(js), "e.json", 3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ov, ok := e.Weighted(defaults()); ok || ov != 4.3 {
			t.Errorf("%s: %v %v, want 4.3 false", name, ov, ok)
		}
	}
}

func TestRubricScoreRange(t *testing.T) {
	for _, s := range []string{"0", "5.5", "-1"} {
		js := `{"chapter":3,"rubric_version":"2026-11.1","overall":3,"scores":{"pacing":{"score":` + s + `,"reason":"x","evidence":"y"}}}`
		_, err := Parse([]byte(js), "e.json", 3)
		if e := errs.As(err); e == nil || e.Code != errs.Schema || e.Details["field"] != "scores.pacing" {
			t.Errorf("score %s: %v", s, err)
		}
	}
	// Other rubrics keep their own scales.
	if _, err := Parse([]byte(`{"chapter":3,"overall":3,"scores":{"pacing":8}}`), "e.json", 3); err != nil {
		t.Errorf("plugin scale: %v", err)
	}
	if _, err := Parse([]byte(`{"chapter":3,"overall":3,"rubric_version":7}`), "e.json", 3); !errs.Is(err, errs.Schema) {
		t.Errorf("numeric rubric_version: %v", err)
	}
}

func TestRound2(t *testing.T) {
	for in, want := range map[float64]float64{3.695: 3.7, 4.125: 4.13, 4.124999: 4.12, 3.7: 3.7, 1: 1, 4.005: 4.01} {
		if got := Round2(in); got != want {
			t.Errorf("Round2(%v) = %v, want %v", in, got, want)
		}
	}
}
