package eval

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

const judged = "# 第3章 灯\n\n他把灯芯剪短，\n火苗跳了一下。\n\n她说：「灯灭者不可复燃。」\n"

// strictEval is a complete eval of judged; edit replaces one substring.
func strictEval(t *testing.T, edit ...string) *Eval {
	t.Helper()
	doc := `{"chapter":3,"rubric_version":"2026-11.1","overall":4.9,"scores":{
 "plot_logic":{"score":2,"reason":"r","evidence":"他把灯芯剪短"},
 "character":{"score":2,"reason":"r","evidence":"火苗跳了一下"},
 "immersion":{"score":2,"reason":"r","evidence":"他把灯芯剪短，火苗跳了一下"},
 "foreshadowing":{"score":2,"reason":"r","evidence":"「灯灭者不可复燃。」"},
 "pacing":{"score":2,"reason":"r","evidence":"灯灭者不可复燃"},
 "style_naturalness":{"score":2,"reason":"r","evidence":["他把灯芯剪短","火苗跳了一下"]},
 "emotional_impact":{"score":2,"reason":"r","evidence":"火苗跳了一下"},
 "storyline_coherence":{"score":2,"reason":"r","evidence":"火苗跳了一下"},
 "tonal_variance":{"score":4,"reason":"r"}}}`
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(doc, edit[i]) {
			t.Fatalf("edit %q not found", edit[i])
		}
		doc = strings.Replace(doc, edit[i], edit[i+1], 1)
	}
	e, err := Parse([]byte(doc), "staging/evaluations/chapter-003-eval.json", 3)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The repro: eight dimensions at 2.0 and "overall": 4.9. With all
// nine the gate's overall is the weighted one; with one dropped the eval
// is refused, so the model's 4.9 can never gate.
func TestStrictRecomputesAndRefusesMissingDimension(t *testing.T) {
	e := strictEval(t)
	if err := e.Strict(defaults(), judged); err != nil {
		t.Fatal(err)
	}
	// 0.90 of the weight at 2, tonal_variance (0.10) at 4 → 2.2.
	if ov, ok := e.Weighted(defaults()); !ok || ov != 2.2 {
		t.Fatalf("weighted %v %v, want 2.2 true", ov, ok)
	}
	dropped := strictEval(t, `"tonal_variance":{"score":4,"reason":"r"}`, `"tone":{"score":4,"reason":"r"}`)
	err := dropped.Strict(defaults(), judged)
	want := "staging/evaluations/chapter-003-eval.json: the rubric dimension tonal_variance is missing (rubric 2026-11.1 scores every weighted dimension)"
	if e := errs.As(err); e == nil || e.Code != errs.Schema || e.Message("en") != want || e.Details["dimension"] != "tonal_variance" {
		t.Fatalf("got %v, want E_SCHEMA %q", err, want)
	}
	if dropped.IsStrict {
		t.Fatal("a refused eval must not be marked strict")
	}
}

func TestStrictRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit []string
		want string
	}{
		{"extra dimension", []string{`"tonal_variance"`, `"pace_extra":{"score":4,"reason":"r"},"tonal_variance"`},
			"pace_extra is not a rubric dimension (use character, emotional_impact, foreshadowing, immersion, pacing, plot_logic, storyline_coherence, style_naturalness, tonal_variance)"},
		{"off the half-step scale", []string{`"tonal_variance":{"score":4,`, `"tonal_variance":{"score":4.3,`},
			"tonal_variance: the score 4.3 is not on the half-step scale 1, 1.5, …, 5"},
		{"no reason", []string{`"tonal_variance":{"score":4,"reason":"r"}`, `"tonal_variance":{"score":4,"reason":" "}`},
			"tonal_variance has no reason"},
		{"quote not in the chapter", []string{`"evidence":"他把灯芯剪短"}`, `"evidence":"他把灯芯剪得很短"}`},
			"plot_logic: the evidence 「他把灯芯剪得很短」 is not in the chapter (quote the text verbatim)"},
		{"quote too short", []string{`"evidence":"他把灯芯剪短"}`, `"evidence":"灯芯"}`},
			"plot_logic: the evidence 「灯芯」 is 2 characters long; quote 4–120 characters of the chapter"},
		{"low score without evidence", []string{`"plot_logic":{"score":2,"reason":"r","evidence":"他把灯芯剪短"}`, `"plot_logic":{"score":3,"reason":"r"}`},
			"plot_logic scored 3 (≤ 3) needs at least one evidence quote taken verbatim from the chapter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := strictEval(t, tc.edit...).Strict(defaults(), judged)
			want := "staging/evaluations/chapter-003-eval.json: " + tc.want
			if e := errs.As(err); e == nil || e.Code != errs.Schema || e.Message("en") != want {
				t.Fatalf("got %v\nwant E_SCHEMA %s", err, want)
			}
		})
	}
}

// A weight of 0 leaves the dimension optional.
func TestStrictZeroWeightOptional(t *testing.T) {
	w := defaults()
	w["tonal_variance"] = 0
	e := strictEval(t, `,
 "tonal_variance":{"score":4,"reason":"r"}`, ``)
	if err := e.Strict(w, judged); err != nil {
		t.Fatal(err)
	}
}
