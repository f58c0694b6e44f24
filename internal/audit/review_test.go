package audit

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestParseReview(t *testing.T) {
	good := `{"scope":"sliding_window","chapter_range":[11,20],"issues":[
 {"id":"CONT-001","type":"knowledge_leak","severity":"high","description":"d","evidence":[{"chapter":14,"excerpt":"x"}]},
 {"id":"CONT-002","type":"location_jump","severity":"low","confidence":"high","description":"d","entities":["a"],"evidence":[{"chapter":20,"excerpt":"y"}]}],
 "stats":{"issues_by_severity":{"high":9}}}`
	r, err := ParseReview([]byte(good), "a.json", 11, 20, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.High != 1 || r.Stats.Low != 1 || r.Stats.Chapters != 10 || r.Stats.ByType["knowledge_leak"] != 1 ||
		r.Issues[0].Confidence != "agent" || r.Issues[1].Confidence != "high" || r.Issues[0].Entities == nil || r.GeneratedAt != "2026-01-01T00:00:00Z" {
		t.Fatalf("%+v", r)
	}
	issue := func(s string) string {
		return `{"scope":"sliding_window","chapter_range":[11,20],"issues":[` + s + `]}`
	}
	for _, c := range []struct{ in, want string }{
		{`[]`, "a.json"},
		{`{"scope":"global","chapter_range":[11,20],"issues":[]}`, "scope must be sliding_window"},
		{`{"scope":"sliding_window","chapter_range":[12,20],"issues":[]}`, "chapter_range must be [11, 20]"},
		{`{"scope":"sliding_window","chapter_range":[11,20]}`, "lacks the issues array"},
		{issue(`{"type":"naming","severity":"low","description":"d","evidence":[{"chapter":11,"excerpt":"x"}]}`), "issues[0] lacks an id"},
		{issue(`{"id":"1","type":"typo","severity":"low","description":"d","evidence":[{"chapter":11,"excerpt":"x"}]}`), `issues[0].type "typo" is not a known type`},
		{issue(`{"id":"1","type":"naming","severity":"critical","description":"d","evidence":[{"chapter":11,"excerpt":"x"}]}`), "severity must be high, medium or low"},
		{issue(`{"id":"1","type":"naming","severity":"low","description":" ","evidence":[{"chapter":11,"excerpt":"x"}]}`), "lacks a description"},
		{issue(`{"id":"1","type":"naming","severity":"low","description":"d","evidence":[]}`), "has no evidence"},
		{issue(`{"id":"1","type":"naming","severity":"low","description":"d","evidence":[{"chapter":21,"excerpt":"x"}]}`), "evidence[0] must quote chapters 11–20"},
		{issue(`{"id":"1","type":"naming","severity":"low","description":"d","evidence":[{"chapter":12,"excerpt":""}]}`), "evidence[0] must quote chapters 11–20"},
	} {
		_, err := ParseReview([]byte(c.in), "a.json", 11, 20, "")
		e := errs.As(err)
		if e == nil || !strings.Contains(e.Message("en"), c.want) {
			t.Errorf("%s: got %v, want …%s…", c.in, err, c.want)
		}
	}
}
