package stepid

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestParse(t *testing.T) {
	ok := map[string]string{
		"chapter:48:draft":         "chapter:048:draft",
		"  chapter:0048:judge \n":  "chapter:048:judge",
		"chapter:1:logic-review":   "chapter:001:logic-review",
		"chapter:1000:commit":      "chapter:1000:commit",
		"chapter:000000012:polish": "chapter:012:polish",
		"volume:2:plan":            "volume:02:plan",
		"volume:002:plan":          "volume:02:plan",
		"volume:1:review":          "volume:01:review",
		"volume:03:contracts":      "volume:03:contracts",
		"chapter:999999:summarize": "chapter:999999:summarize",
		"chapter:07:refine":        "chapter:007:refine",
		"chapter:5:gate":           "chapter:005:gate",
		"setup:world":              "setup:world",
		" setup:characters ":       "setup:characters",
		"setup:style":              "setup:style",
	}
	for in, want := range ok {
		s, err := Parse(in)
		if err != nil || s.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	bad := []string{"", "chapter:48", "chapter:0:draft", "chapter:000:draft", "Chapter:48:draft",
		"chapter:48:Draft", "chapter:-1:draft", "chapter:+4:draft", "chapter:４８:draft", "chapter:4 8:draft",
		"chapter:48:draft:x", "chapter::draft", "volume:1:draft", "chapter:48:plan", "chapter:48:review", "volume:1:Review", "volume:0:review", "scene:1:draft",
		"chapter:1000000:draft", "setup:World", "setup:plan", "setup:", "setup:world:x", "setup:01:world", "chapter:99999999999999999999999:draft", "chapter:48: draft"}
	for _, in := range bad {
		if _, err := Parse(in); !errs.Is(err, errs.StepID) {
			t.Errorf("Parse(%q) err = %v, want E_STEP_ID", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"chapter:48:draft", "volume:01:plan", "chapter:0:x", "：", "chapter:١:draft"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if !errs.Is(err, errs.StepID) {
				t.Fatalf("unexpected error type %v", err)
			}
			return
		}
		again, err := Parse(s.String())
		if err != nil || again != s {
			t.Fatalf("round trip %q -> %q -> %v %v", in, s.String(), again, err)
		}
	})
}

func TestParseAudit(t *testing.T) {
	for in, want := range map[string]string{"audit:5": "audit:005", " audit:0010 ": "audit:010", "audit:2000": "audit:2000"} {
		s, err := ParseAudit(in)
		if err != nil || s.String() != want || s.Agent() != "continuity-auditor" || !s.IsAgent() {
			t.Errorf("ParseAudit(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for _, in := range []string{"", "audit:0", "audit:x", "audit:5:draft", "chapter:005:audit", "Audit:5"} {
		if _, err := ParseAudit(in); errs.As(err) == nil || errs.As(err).Code != errs.StepID {
			t.Errorf("ParseAudit(%q) = %v; want E_STEP_ID", in, err)
		}
	}
	if _, err := Parse("audit:5"); err == nil {
		t.Error("Parse accepts audit:5; audit steps are not checkpoint steps")
	}
	if _, err := Parse("chapter:5:audit"); err == nil {
		t.Error("Parse accepts chapter:5:audit")
	}
}
