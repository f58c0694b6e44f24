package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

func ev(t *testing.T, js string) *eval.Eval {
	t.Helper()
	e, err := eval.Parse([]byte(js), "e.json", 3)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func score(x string) string { return `{"chapter":3,"overall":` + x + `}` }

func TestThresholdBoundaries(t *testing.T) {
	cases := map[string]string{"5": Pass, "4.0": Pass, "3.99": Polish, "3.5": Polish, "3.49": Revise, "3.0": Revise,
		"2.99": Review, "2.0": Review, "1.99": Rewrite, "0": Rewrite}
	for x, want := range cases {
		r := Decide(Input{Chapter: 3, Primary: ev(t, score(x)), Settings: settings.Defaults()})
		if r.Decision != want {
			t.Errorf("%s: %s, want %s", x, r.Decision, want)
		}
		if IsPause(want) != (r.NextStep == nil) {
			t.Errorf("%s: next step %v", x, r.NextStep)
		}
	}
}

func TestViolations(t *testing.T) {
	s := settings.Defaults()
	high := `{"chapter":3,"overall":4.8,"contract_verification":{"l2_checks":[{"id":"C-1","status":"violation","confidence":"high","detail":"人设崩"}]}}`
	r := Decide(Input{Chapter: 3, Primary: ev(t, high), Settings: s})
	if r.Decision != Revise || !r.HasHighConfidenceViolation || len(r.RequiredFixes) != 1 || r.RequiredFixes[0].Instruction != "人设崩" {
		t.Fatalf("%+v", r)
	}
	// At the cap a high violation goes to a person, even with 4.8.
	r = Decide(Input{Chapter: 3, Primary: ev(t, high), Settings: s, RevisionCount: 2})
	if r.Decision != Review || r.ForcePassed {
		t.Fatalf("%+v", r)
	}
	medium := `{"chapter":3,"overall":4.2,"contract_verification":{"l1_checks":[{"id":"W","status":"violation","confidence":"medium"}],"ls_checks":[{"id":"S","status":"violation","confidence":"high","constraint_type":"soft"}]}}`
	r = Decide(Input{Chapter: 3, Primary: ev(t, medium), Settings: s})
	if r.Decision != Pass || len(r.Violations.Warnings) != 2 || len(r.Violations.High) != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestRevisionCap(t *testing.T) {
	s := settings.Defaults()
	r := Decide(Input{Chapter: 3, Primary: ev(t, score("3.2")), Settings: s, RevisionCount: 2})
	if r.Decision != Pass || !r.ForcePassed {
		t.Fatalf("%+v", r)
	}
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("3.2")), Settings: s, RevisionCount: 1})
	if r.Decision != Revise || r.ForcePassed {
		t.Fatalf("%+v", r)
	}
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("2.9")), Settings: s, RevisionCount: 2})
	if r.Decision != Review {
		t.Fatalf("%+v", r)
	}
}

func TestDualJudge(t *testing.T) {
	s := settings.Defaults()
	p, q := ev(t, score("4.1")), ev(t, score("4.1"))
	r := Decide(Input{Chapter: 3, Primary: p, Secondary: q, KeyChapter: true, Settings: s})
	if r.EvalUsed != stepid.RoleSecondary || r.Decision != Pass {
		t.Fatalf("tie: %+v", r)
	}
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("3.6")), Secondary: ev(t, score("4.5")), KeyChapter: true, Settings: s})
	if r.EvalUsed != stepid.RolePrimary || r.Decision != Polish || r.OverallFinal != 3.6 {
		t.Fatalf("min: %+v", r)
	}
	hv := `{"chapter":3,"overall":4.9,"contract_verification":{"l3_checks":[{"id":"O","status":"violation","confidence":"high"}]}}`
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("4.5")), Secondary: ev(t, hv), KeyChapter: true, Settings: s})
	if r.Decision != Revise || r.EvalUsed != stepid.RolePrimary || r.Violations.High[0].Judge != stepid.RoleSecondary {
		t.Fatalf("or: %+v", r)
	}
	// Not a key chapter: the secondary is ignored.
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("4.5")), Secondary: ev(t, score("1")), Settings: s})
	if r.EvalUsed != stepid.RolePrimary || r.Decision != Pass {
		t.Fatalf("non-key: %+v", r)
	}
}

func TestLogicReviewBlock(t *testing.T) {
	s := settings.Defaults()
	s.LogicReviewPolicy = settings.PolicyBlocking
	for sc, block := range map[string]bool{"74": true, "75": false, "76": false} {
		lr, err := eval.ParseLogicReview([]byte(`{"overall_score":`+sc+`}`), "r", 3)
		if err != nil {
			t.Fatal(err)
		}
		r := Decide(Input{Chapter: 3, Primary: ev(t, score("4.5")), Review: lr, Settings: s})
		if (r.Decision == Review) != block || (r.BlockedBy == "logic_review") != block {
			t.Errorf("%s: %+v", sc, r)
		}
	}
	lr, _ := eval.ParseLogicReview([]byte(`{"overall_score":95,"issues":[{"severity":"high"}]}`), "r", 3)
	r := Decide(Input{Chapter: 3, Primary: ev(t, score("3.2")), Review: lr, Settings: s, RevisionCount: 2})
	if r.Decision != Review || r.ForcePassed || r.LogicReview.HighIssuesCount != 1 {
		t.Fatalf("%+v", r)
	}
	s.LogicReviewPolicy = settings.PolicyOff
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("4.5")), Review: lr, Settings: s})
	if r.Decision != Pass || r.LogicReview == nil || r.LogicReview.Blocking {
		t.Fatalf("off: %+v", r)
	}
}

func TestRequiredFixesFallback(t *testing.T) {
	e := ev(t, `{"chapter":3,"overall":3.6,"scores":{"a":{"score":3,"feedback":"fa"},"b":{"score":2.5},"c":{"score":3,"feedback":"fc"},"d":4}}`)
	r := Decide(Input{Chapter: 3, Primary: e, Settings: settings.Defaults()})
	if len(r.RequiredFixes) != 2 || r.RequiredFixes[0].Target != "b" || r.RequiredFixes[1].Instruction != "fa" {
		t.Fatalf("%+v", r.RequiredFixes)
	}
	if len(r.FailedDimensions) != 3 || r.FailedDimensions[0].Name != "a" {
		t.Fatalf("%+v", r.FailedDimensions)
	}
}

func TestGateFile(t *testing.T) {
	dir := t.TempDir()
	root, _ := project.New(dir)
	if g, err := LoadGateFile(root, 3); g != nil || err != nil {
		t.Fatal(g, err)
	}
	r := Decide(Input{Chapter: 3, Primary: ev(t, score("3.7")), Settings: settings.Defaults()})
	if err := saveGateFile(root, &GateFile{Result: *r, DecidedAt: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := MarkPolished(root, 3); err != nil {
		t.Fatal(err)
	}
	g, err := LoadGateFile(root, 3)
	if err != nil || g.Decision != Pass || !g.Polished || g.OriginalDecision != Polish || !g.Settled() || *g.NextStep != "chapter:003:commit" {
		t.Fatal(g, err)
	}
	os.WriteFile(filepath.Join(dir, "staging/evaluations/chapter-003-gate.json"), []byte(`{"chapter":3,"decision":"maybe"}`), 0o644)
	if _, err := LoadGateFile(root, 3); !errs.Is(err, errs.Schema) {
		t.Fatal(err)
	}
}

// rubricEval scores all nine dimensions with s each, except plot_logic,
// which gets p; the model claims overall model.
func rubricEval(t *testing.T, model, s, p string) *eval.Eval {
	t.Helper()
	js := `{"chapter":3,"rubric_version":"` + eval.RubricVersion + `","overall":` + model + `,"scores":{`
	for i, d := range eval.Rubric {
		sc := s
		if d.Name == "plot_logic" {
			sc = p
		}
		if i > 0 {
			js += ","
		}
		js += `"` + d.Name + `":{"score":` + sc + `,"reason":"r","evidence":"e"}`
	}
	return ev(t, js+`}}`)
}

func TestRubricRecomputesOverall(t *testing.T) {
	s := settings.Defaults()
	// All 4 except plot_logic 2: 4 − .16×2 = 3.68 → polish, though the
	// model said 4.5.
	r := Decide(Input{Chapter: 3, Primary: rubricEval(t, "4.5", "4", "2"), Settings: s})
	if r.Decision != Polish || r.OverallFinal != 3.68 || r.Scoring == nil ||
		r.Scoring.Primary != (JudgeScore{Overall: 3.68, ModelOverall: 4.5, Recomputed: true}) ||
		r.Scoring.RubricVersion != eval.RubricVersion || r.Scoring.Weights["character"] != 0.16 || r.Scoring.Secondary != nil {
		t.Fatalf("%+v %+v", r, r.Scoring)
	}
	if len(r.FailedDimensions) != 1 || r.FailedDimensions[0].Name != "plot_logic" || r.FailedDimensions[0].Evidence != "e" {
		t.Fatalf("failed %+v", r.FailedDimensions)
	}
	// Key chapter: the primary is recomputed (all 3.5, plot 5 → 3.74),
	// the plugin-era secondary keeps its own 3.8; the lower one decides.
	r = Decide(Input{Chapter: 3, KeyChapter: true, Primary: rubricEval(t, "4.6", "3.5", "5"),
		Secondary: ev(t, score("3.8")), Settings: s})
	if r.OverallFinal != 3.74 || r.EvalUsed != stepid.RolePrimary || r.Decision != Polish ||
		*r.Scoring.Secondary != (JudgeScore{Overall: 3.8, ModelOverall: 3.8, Recomputed: false}) {
		t.Fatalf("%+v %+v", r, r.Scoring)
	}
	// Weights from settings: plot_logic alone decides → 2 → review.
	s.JudgeWeights = [len(eval.Rubric)]float64{1}
	r = Decide(Input{Chapter: 3, Primary: rubricEval(t, "4.5", "4", "2"), Settings: s})
	if r.Decision != Review || r.OverallFinal != 2 {
		t.Fatalf("%+v", r)
	}
	// Evals without the rubric are gated on their own overall, and the
	// result says so: "scoring": "model_overall" (SPEC §24).
	r = Decide(Input{Chapter: 3, Primary: ev(t, score("4.5")), Settings: settings.Defaults()})
	if r.Decision != Pass || r.OverallFinal != 4.5 || r.Scoring == nil || !r.Scoring.ModelOverall {
		t.Fatalf("%+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"scoring":"model_overall"`) {
		t.Fatalf("%s %v", b, err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Scoring == nil || !back.Scoring.ModelOverall {
		t.Fatalf("read back: %+v %v", back.Scoring, err)
	}
}

// A premature reveal the judge can pin to a later chapter's event is a
// high-confidence l3 violation and forces a revision whatever the score
// (SPEC §24 plan_discipline, §7.1); a medium one is only a warning.
func TestPrematureRevealForcesRevision(t *testing.T) {
	s := settings.Defaults()
	high := `{"chapter":3,"overall":4.6,"contract_verification":{"l3_checks":[{"id":"OBJ-003-1","status":"pass","confidence":"high"},{"id":"premature_reveal","status":"violation","confidence":"high","detail":"「周伯是被柳言调去雪关的」是第 7 章才揭开的真相"}]}}`
	r := Decide(Input{Chapter: 3, Primary: ev(t, high), Settings: s})
	if r.Decision != Revise || !r.HasHighConfidenceViolation || len(r.Violations.High) != 1 || r.Violations.High[0].ID != "premature_reveal" ||
		len(r.RequiredFixes) != 1 || r.RequiredFixes[0].Instruction != "「周伯是被柳言调去雪关的」是第 7 章才揭开的真相" {
		t.Fatalf("%+v", r)
	}
	medium := `{"chapter":3,"overall":4.6,"contract_verification":{"l3_checks":[{"id":"premature_reveal","status":"violation","confidence":"medium","detail":"方向相近"}]}}`
	if r := Decide(Input{Chapter: 3, Primary: ev(t, medium), Settings: s}); r.Decision != Pass || len(r.Violations.Warnings) != 1 {
		t.Fatalf("%+v", r)
	}
}
