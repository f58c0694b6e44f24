package eval

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// rulesEval is strictEval with the given l1_checks.
func rulesEval(t *testing.T, l1 string) *Eval {
	t.Helper()
	return strictEval(t, `"tonal_variance":{"score":4,"reason":"r"}}`,
		`"tonal_variance":{"score":4,"reason":"r"}},"contract_verification":{"l1_checks":`+l1+`}`)
}

// SPEC §25 "Rules checked one by one": every rule in play has its own
// l1 line with a verbatim quote, for a pass as for a violation.
func TestRulesInPlayEachListedWithEvidence(t *testing.T) {
	ok := rulesEval(t, `[{"id":"W-002","status":"violation","confidence":"high","evidence":"「灯灭者不可复燃。」"},
	  {"id":"W-001","status":"pass","confidence":"high","evidence":["他把灯芯剪短"]}]`)
	if err := ok.CheckRules([]string{"W-001", "W-002"}, judged); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		l1, rule, en string
	}{
		{`[{"id":"W-001","status":"pass","confidence":"high","evidence":"他把灯芯剪短"}]`, "W-002",
			"staging/evaluations/chapter-003-eval.json: the rule in play W-002 is not in contract_verification.l1_checks (check every rule in play one by one, with a quote from the chapter)"},
		{`[{"id":"W-001","status":"pass","confidence":"high"},{"id":"W-002","status":"pass","confidence":"high","evidence":"火苗跳了一下"}]`, "W-001",
			"staging/evaluations/chapter-003-eval.json: the l1 check of rule W-001 has no evidence (quote the passage of the chapter it was checked against, for a pass too)"},
		{`[{"id":"W-001","status":"pass","confidence":"high","evidence":"他把灯芯剪断"},{"id":"W-002","status":"pass","confidence":"high","evidence":"火苗跳了一下"}]`, "W-001",
			"staging/evaluations/chapter-003-eval.json: rule W-001: the evidence 「他把灯芯剪断」 is not in the chapter (quote the text verbatim)"},
		{`[{"id":"W-001","status":"pass","confidence":"high","evidence":"他把"},{"id":"W-002","status":"pass","confidence":"high","evidence":"火苗跳了一下"}]`, "W-001",
			"staging/evaluations/chapter-003-eval.json: rule W-001: the evidence 「他把」 is 2 characters long; quote 4–120 characters of the chapter"},
		{`[{"id":"W-001","status":"n/a","confidence":"high","evidence":"他把灯芯剪短"},{"id":"W-002","status":"pass","confidence":"high","evidence":"火苗跳了一下"}]`, "W-001",
			"staging/evaluations/chapter-003-eval.json: the l1 check of rule W-001 has status \"n/a\"; a rule in play is pass or violation"},
	}
	for _, tc := range cases {
		e := rulesEval(t, tc.l1)
		err := e.CheckRules([]string{"W-001", "W-002"}, judged)
		x := errs.As(err)
		if x == nil || x.Code != errs.Schema || x.Message("en") != tc.en || x.Details["rule"] != tc.rule {
			t.Fatalf("l1 %s: got %v, want E_SCHEMA %q naming %s", tc.l1, err, tc.en, tc.rule)
		}
	}
	// No rule in play: nothing is required.
	if err := strictEval(t).CheckRules(nil, judged); err != nil {
		t.Fatal(err)
	}
}

// A knowledge (l2) or story_time (l3) violation is a claim about a
// passage: it must quote it verbatim (SPEC §25 "with evidence").
func TestLedgerViolationsQuote(t *testing.T) {
	cases := []struct{ cv, en string }{
		{`"l2_checks":[{"id":"knowledge","status":"violation","confidence":"medium","evidence":"火苗跳了一下"}]`, ""},
		{`"l2_checks":[{"id":"knowledge","status":"pass","confidence":"high"}]`, ""},
		{`"l2_checks":[{"id":"knowledge","status":"violation","confidence":"medium"}]`,
			"staging/evaluations/chapter-003-eval.json: the l2 check knowledge is a violation without evidence (quote the passage verbatim)"},
		{`"l3_checks":[{"id":"story_time","status":"violation","confidence":"high","evidence":"昨夜的灯"}]`,
			"staging/evaluations/chapter-003-eval.json: the l3 check story_time: the evidence 「昨夜的灯」 is not in the chapter (quote the text verbatim)"},
	}
	for _, c := range cases {
		e := strictEval(t, `"tonal_variance":{"score":4,"reason":"r"}}`, `"tonal_variance":{"score":4,"reason":"r"}},"contract_verification":{`+c.cv+`}`)
		err := e.CheckRules(nil, judged)
		if c.en == "" {
			if err != nil {
				t.Errorf("%s: %v", c.cv, err)
			}
			continue
		}
		if x := errs.As(err); x == nil || x.Code != errs.Schema || x.Message("en") != c.en {
			t.Errorf("%s: got %v, want %q", c.cv, err, c.en)
		}
	}
}
