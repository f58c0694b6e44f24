package setupstep

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

const cp = `{"schema_version":2,"last_completed_chapter":0,"current_volume":0,"orchestrator_state":"QUICK_START"}`

// TestNextFollowsCommittedProducts: the first setup step whose committed
// products are missing is next; NextAfter skips the step being committed.
func TestNextFollowsCommittedProducts(t *testing.T) {
	files := map[string]string{".checkpoint.json": cp}
	steps := []struct {
		add  map[string]string
		next string
	}{
		{nil, "world"},
		{map[string]string{"world/rules.json": "{}", "storylines/storylines.json": "{}"}, "world"}, // no world/*.md yet
		{map[string]string{"world/overview.md": "# x"}, "characters"},
		{map[string]string{"characters/active/a.json": "{}"}, "characters"}, // one is not a cast
		{map[string]string{"characters/active/b.json": "{}"}, "book"},
		{map[string]string{"book-plan.json": "{}"}, "style"},
		{map[string]string{"style-profile.json": "{}"}, ""},
	}
	for i, s := range steps {
		for k, v := range s.add {
			files[k] = v
		}
		root := testkit.Project(t, files)
		got, err := Next(root)
		if err != nil || got != s.next {
			t.Fatalf("step %d: Next = %q, %v; want %q", i, got, err, s.next)
		}
	}
	root := testkit.Project(t, map[string]string{".checkpoint.json": cp})
	if n, _ := NextAfter(root, "world", true); n != "setup:characters" {
		t.Errorf("after world: %s", n)
	}
	full := testkit.Project(t, map[string]string{".checkpoint.json": cp, "world/overview.md": "# x", "world/rules.json": "{}",
		"storylines/storylines.json": "{}", "characters/active/a.json": "{}", "characters/active/b.json": "{}", "book-plan.json": "{}"})
	if n, _ := NextAfter(full, "style", true); n != "volume:01:plan" {
		t.Errorf("after the last setup step in QUICK_START: %s", n)
	}
	if n, _ := NextAfter(full, "style", false); n != "novel-step next" {
		t.Errorf("after the last setup step in WRITING: %s", n)
	}
}

// TestValidateStyleProfile: every required field of the style profile.
func TestValidateStyleProfile(t *testing.T) {
	good := `{"platform":"fanqie","source_type":"reference","avg_sentence_length":17.5,"dialogue_ratio":0.3,"preferred_expressions":[],"voice":{"narrator":"a","protagonist_tone":"b"}}`
	cases := map[string]struct{ profile, field string }{
		"ok":              {good, ""},
		"no platform":     {strings.Replace(good, `"platform":"fanqie",`, "", 1), "platform"},
		"bad source":      {strings.Replace(good, `"reference"`, `"mine"`, 1), "source_type"},
		"zero length":     {strings.Replace(good, `17.5`, `0`, 1), "avg_sentence_length"},
		"length a string": {strings.Replace(good, `17.5`, `"17"`, 1), "avg_sentence_length"},
		"ratio above 1":   {strings.Replace(good, `0.3`, `1.2`, 1), "dialogue_ratio"},
		"no expressions":  {strings.Replace(good, `"preferred_expressions":[],`, "", 1), "preferred_expressions"},
		"no tone":         {strings.Replace(good, `,"protagonist_tone":"b"`, "", 1), "voice.protagonist_tone"},
	}
	for name, c := range cases {
		root := testkit.Project(t, map[string]string{".checkpoint.json": cp,
			"staging/setup/style-profile.json": c.profile, "staging/setup/style-samples.md": "# 文风样本\n"})
		files, err := Validate(root, "style")
		if c.field == "" {
			if err != nil || strings.Join(files, " ") != "style-profile.json style-samples.md" {
				t.Errorf("%s: %v %v", name, files, err)
			}
			continue
		}
		e := errs.As(err)
		if e == nil || e.Code != errs.Schema || e.Details["field"] != c.field || e.Details["file"] != "staging/setup/style-profile.json" {
			t.Errorf("%s: want E_SCHEMA on %s, got %v", name, c.field, err)
		}
	}
}

// TestValidateRuleKeywords: a world rule may carry keywords, the words
// that put it in play in a chapter (SPEC §25); they must be a list of
// non-empty strings.
func TestValidateRuleKeywords(t *testing.T) {
	rule := func(n int, kw string) string {
		return `{"id":"W-00` + string(rune('0'+n)) + `","category":"c","rule":"r","constraint_type":"hard"` + kw + `}`
	}
	for name, c := range map[string]struct{ kw, field string }{
		"keywords":     {`,"keywords":["魂灯","灯油"]`, ""},
		"none":         {``, ""},
		"not a list":   {`,"keywords":"魂灯"`, "rules[0].keywords"},
		"a number":     {`,"keywords":["魂灯",3]`, "rules[0].keywords"},
		"empty string": {`,"keywords":["魂灯"," "]`, "rules[0].keywords"},
	} {
		rules := `{"rules":[` + rule(1, c.kw) + `,` + rule(2, "") + `,` + rule(3, "") + `]}`
		root := testkit.Project(t, map[string]string{".checkpoint.json": cp,
			"staging/setup/world/overview.md": "# 世界\n", "staging/setup/world/rules.json": rules,
			"staging/setup/storylines/storylines.json": `{"storylines":[{"id":"main","name":"主线","type":"main_arc"}]}`})
		_, err := Validate(root, "world")
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		e := errs.As(err)
		if e == nil || e.Code != errs.Schema || e.Details["field"] != c.field {
			t.Errorf("%s: want E_SCHEMA on %s, got %v", name, c.field, err)
		}
	}
}
