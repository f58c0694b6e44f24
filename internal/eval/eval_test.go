package eval

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

const sample = `{"chapter":3,"overall":3.8,
 "scores":{"plot_logic":{"score":4,"feedback":"ok"},"pacing":{"score":3.2,"feedback":"slow"},"style":3},
 "contract_verification":{
   "l1_checks":[{"id":"W-001","status":"violation","confidence":"high","detail":"magic"}],
   "l2_checks":[{"id":"C-1","status":"violation","confidence":"medium"}],
   "l3_checks":[{"id":"O-1","status":"pass","confidence":"high"}],
   "ls_checks":[{"id":"S-1","status":"violation","confidence":"high","constraint_type":"soft"},
                {"id":"S-2","status":"violation","confidence":"high"},
                {"id":"S-3","status":"violation","confidence":"high","constraint_type":"hard"}]},
 "required_fixes":[{"target":"场景2","instruction":"补因果"},"plain"],
 "recommendation":"revise"}`

func TestParse(t *testing.T) {
	e, err := Parse([]byte(sample), "x.json", 3)
	if err != nil {
		t.Fatal(err)
	}
	if e.Overall != 3.8 || e.Chapter != 3 || e.Recommendation != "revise" {
		t.Fatalf("%+v", e)
	}
	if len(e.Dimensions) != 3 || e.Dimensions[0].Name != "pacing" || e.Dimensions[2].Name != "style" || e.Dimensions[2].Score != 3 {
		t.Fatalf("dims %+v", e.Dimensions)
	}
	high, warn := e.Violations()
	var ids []string
	for _, c := range high {
		ids = append(ids, c.ID)
	}
	if len(high) != 3 || ids[0] != "W-001" || ids[1] != "S-2" || ids[2] != "S-3" {
		t.Fatalf("high %v", ids)
	}
	if len(warn) != 2 || warn[0].ID != "C-1" || warn[1].ID != "S-1" {
		t.Fatalf("warn %+v", warn)
	}
	if len(e.RequiredFixes) != 2 || e.RequiredFixes[1].Instruction != "plain" || e.RequiredFixes[0].Target != "场景2" {
		t.Fatalf("fixes %+v", e.RequiredFixes)
	}
}

func TestParseWrapped(t *testing.T) {
	e, err := Parse([]byte(`{"eval_used":{"chapter":5,"overall":4}}`), "x", 5)
	if err != nil || e.Overall != 4 {
		t.Fatal(e, err)
	}
	e, err = Parse([]byte("\xEF\xBB\xBF"+`{"chapter_number":5,"overall":0}`), "x", 0)
	if err != nil || e.Chapter != 5 {
		t.Fatal(e, err)
	}
}

// The plugin's canonical eval keeps chapter (and metadata) on the outer
// object: {"chapter","eval_used":{…},"metadata"} (SPEC §22).
func TestParsePluginWrapped(t *testing.T) {
	for _, doc := range []string{
		`{"chapter":2,"eval_used":{"overall":4.2,"recommendation":"pass"},"metadata":{"judges":{"overall_final":4.2}}}`,
		`{"chapter":2,"eval_used":{"chapter":null,"overall":4.2,"recommendation":"pass"}}`,
		`{"chapter":9,"eval_used":{"chapter":2,"overall":4.2,"recommendation":"pass"}}`, // the inner one wins
	} {
		e, err := Parse([]byte(doc), "x", 2)
		if err != nil || e.Chapter != 2 || e.Overall != 4.2 || e.Recommendation != "pass" {
			t.Fatalf("%s: %+v %v", doc, e, err)
		}
	}
	u, ok := Unwrap(map[string]any{"chapter": 2, "eval_used": map[string]any{"overall": 1}, "metadata": "m"})
	if !ok || u["chapter"] != 2 || u["metadata"] != "m" || u["overall"] != 1 || u["eval_used"] != nil {
		t.Fatalf("%v %v", u, ok)
	}
	if _, err := Parse([]byte(`{"chapter":3,"eval_used":{"overall":4}}`), "x", 2); !errs.Is(err, errs.Schema) {
		t.Fatalf("outer chapter 3 for chapter 2: %v", err)
	}
	if _, err := Parse([]byte(`{"chapter":2,"eval_used":[1]}`), "x", 2); !errs.Is(err, errs.Schema) {
		t.Fatalf("eval_used list: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		`{"chapter":3,"overall":5.1}`:                       errs.Schema,
		`{"chapter":3,"overall":-1}`:                        errs.Schema,
		`{"chapter":3,"overall":"4"}`:                       errs.Schema,
		`{"chapter":4,"overall":4}`:                         errs.Schema,
		`{"overall":4}`:                                     errs.Schema,
		`[1,2]`:                                             errs.Schema,
		`null`:                                              errs.Schema,
		`{"chapter":3,"overall":4,"scores":[]}`:             errs.Schema,
		`{"chapter":3,"overall":4,"scores":{"a":"x"}}`:      errs.Schema,
		`{"chapter":3,"overall":4,"recommendation":"PASS"}`: errs.Schema,
		`{"chapter":3,"overall":4,"required_fixes":[1]}`:    errs.Schema,
		`{"chapter":3,"overall":4,"contract_verification":{"l1_checks":{}}}`:             errs.Schema,
		`{"chapter":3,"overall":4,"contract_verification":{"l1_checks":[1]}}`:            errs.Schema,
		`{"chapter":3,"overall":4,"contract_verification":{"l1_checks":[{"status":1}]}}`: errs.Schema,
		`{"eval_used":[1]}`:                errs.Schema,
		`{"chapter":3,`:                    errs.InvalidJSON,
		"":                                 errs.InvalidJSON,
		"{\"chapter\":3,\"overall\":\xff}": errs.InvalidJSON,
	}
	for in, code := range cases {
		_, err := Parse([]byte(in), "x.json", 3)
		if !errs.Is(err, code) {
			t.Errorf("%q: got %v, want %s", in, err, code)
		}
	}
}

func TestLogicReview(t *testing.T) {
	r, err := ParseLogicReview([]byte(`{"chapter_number":3,"overall_score":75,"issues":[{"issue_type":"因果断裂","description":"d","severity":"medium"}],"summary":"s"}`), "r", 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Blocks(75) || !r.Blocks(76) || r.HighCount() != 0 {
		t.Fatal("strict less-than")
	}
	r, err = ParseLogicReview([]byte(`{"overall_score":95.0,"issues":[{"severity":"high"},{"severity":"high"}]}`), "r", 3)
	if err != nil || !r.Blocks(75) || r.HighCount() != 2 || r.ChapterNumber != 3 {
		t.Fatal(r, err)
	}
	bad := []string{
		`{"overall_score":74.5}`, `{"overall_score":101}`, `{"overall_score":-1}`, `{"overall_score":"80"}`, `{}`,
		`{"overall_score":80,"issues":[{"severity":"HIGH"}]}`, `{"overall_score":80,"issues":[{"severity":"高"}]}`,
		`{"overall_score":80,"issues":[{"description":"no severity"}]}`, `{"overall_score":80,"issues":{}}`,
		`{"chapter_number":4,"overall_score":80}`, `[]`,
	}
	for _, in := range bad {
		if _, err := ParseLogicReview([]byte(in), "r", 3); !errs.Is(err, errs.Schema) {
			t.Errorf("%s: got %v", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"eval_used":{"chapter":3,"overall":4}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data, "x", 3)
		if err == nil && (e.Overall < 0 || e.Overall > 5 || e.Chapter != 3) {
			t.Fatalf("accepted invalid eval %+v", e)
		}
		if err != nil && errs.As(err) == nil {
			t.Fatalf("untyped error %v", err)
		}
	})
}

func FuzzParseLogicReview(f *testing.F) {
	f.Add([]byte(`{"chapter_number":3,"overall_score":75,"issues":[{"severity":"high"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseLogicReview(data, "r", 3)
		if err == nil && (r.OverallScore < 0 || r.OverallScore > 100) {
			t.Fatalf("accepted %+v", r)
		}
	})
}
