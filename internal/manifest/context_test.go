package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/stepid"
)

func TestEstimateText(t *testing.T) {
	for _, c := range []struct {
		in           string
		chars, token int
	}{
		{"", 0, 0},
		{"abc", 3, 1},      // ⌈0.9⌉
		{"沈砚", 2, 2},       // ⌈1.2⌉
		{"沈砚，a b", 6, 3},   // 3 CJK (，is full-width) → 1.8, 3 other → 0.9 → ⌈2.7⌉
		{"「第七盏灯」\n", 7, 4}, // corner brackets are CJK punctuation: 6×0.6 + 0.3 = 3.9
	} {
		got := EstimateText(c.in)
		if got.Chars != c.chars || got.Tokens != c.token {
			t.Errorf("EstimateText(%q) = %+v, want chars %d tokens %d", c.in, got, c.chars, c.token)
		}
	}
}

func TestTail(t *testing.T) {
	long := strings.Repeat("甲", 500)
	for _, c := range []struct{ name, in, want string }{
		{"short chapter whole", "# 第1章\n\n正文。\n\n", "# 第1章\n\n正文。"},
		{"paragraph boundary", long + "\n\n" + strings.Repeat("乙", 300) + "\n" + strings.Repeat("丙", 400) + "\n",
			strings.Repeat("乙", 300) + "\n" + strings.Repeat("丙", 400)},
		{"sentence end when one paragraph is longer", strings.Repeat("丁", 300) + "。」" + strings.Repeat("戊", 700) + "。",
			strings.Repeat("戊", 700) + "。"},
		{"no boundary at all", strings.Repeat("己", 900), strings.Repeat("己", 800)},
		{"CRLF", "a\r\n\r\nb\r\n", "a\n\nb"},
	} {
		got := Tail(c.in, 800)
		if got != c.want {
			t.Errorf("%s: Tail = %q…(%d runes), want %q…(%d runes)", c.name, head(got), len([]rune(got)), head(c.want), len([]rune(c.want)))
		}
		if n := len([]rune(got)); n > 800 {
			t.Errorf("%s: %d runes > 800", c.name, n)
		}
	}
}

func head(s string) string {
	r := []rune(s)
	return string(r[:min(10, len(r))])
}

// The canonical fast path cuts exactly what a full split gives, and a
// state that is not canonical falls back to the full split.
func TestStateMembers(t *testing.T) {
	st := map[string]any{"schema_version": 1, "state_version": 12, "last_updated_chapter": 11, "active_foreshadowing": []any{"F-1"},
		"characters": map[string]any{"a": map[string]any{"rel": map[string]any{"b": "友"}, "bag": []any{"x"}}, "b": map[string]any{}},
		"items":      map[string]any{"i": map[string]any{"owner": "a"}}, "locations": map[string]any{}, "factions": map[string]any{"f": []any{}},
		"world_state": map[string]any{"season": "冬"}}
	canonical, err := jsonio.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(st)
	fast, ok := canonicalMembers(canonical)
	if !ok {
		t.Fatal("canonical state not recognised")
	}
	if _, ok := canonicalMembers(compact); ok {
		t.Fatal("compact state taken for canonical")
	}
	full, err := stateMembers(compact)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fast {
		var a, b any
		if json.Unmarshal(v, &a) != nil || json.Unmarshal(full[k], &b) != nil {
			t.Fatalf("%s: fast %q, full %q", k, v, full[k])
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: fast %s, full %s", k, ja, jb)
		}
	}
	if _, err := stateMembers([]byte("{\"characters\": ")); err == nil {
		t.Error("a broken state must be an error")
	}
}

func TestBudgetRole(t *testing.T) {
	for _, c := range []struct{ agent, mode, role string }{
		{stepid.ChapterWriter, stepid.ModeDraft, "draft"}, {stepid.ChapterWriter, stepid.ModeRevision, "draft"},
		{stepid.Summarizer, stepid.ModeSummarize, "summarize"}, {stepid.Summarizer, stepid.ModeAmend, "summarize"},
		{stepid.StyleRefiner, stepid.ModePolish, "refine"}, {stepid.QualityJudge, stepid.ModeSecondary, "judge"},
		{stepid.LogicReviewer, stepid.ModeReview, "logic-review"}, {stepid.PlotArchitect, stepid.ModePlan, "plan"},
		{stepid.PlotArchitect, stepid.ModeReview, "plan"}, {stepid.PlotArchitect, stepid.ModeContracts, "plan"},
		{stepid.WorldBuilder, stepid.ModeSetup, "setup"},
	} {
		if got := BudgetRole(c.agent, c.mode); got != c.role {
			t.Errorf("BudgetRole(%s, %s) = %s, want %s", c.agent, c.mode, got, c.role)
		}
	}
}

// splitGroup's canonical line search and the generic scanner agree.
func TestSplitGroup(t *testing.T) {
	st := map[string]any{"characters": map[string]any{
		"a": map[string]any{"rel": map[string]any{"b": "友"}, "note": "含\"引号\"与\\n", "bag": []any{"x", map[string]any{"k": 1}}},
		"b": map[string]any{}, "c": 3, "d": []any{}, "e\"q": "x"}}
	canonical, _ := jsonio.Marshal(st)
	top, ok := canonicalMembers(append(canonical[:len(canonical)-2:len(canonical)-2],
		[]byte(",\n  \"factions\": {},\n  \"items\": {},\n  \"last_updated_chapter\": 1,\n  \"locations\": {},\n  \"state_version\": 1,\n  \"world_state\": {}\n}\n")...))
	if !ok {
		t.Fatal("not canonical")
	}
	var fast, slow []string
	splitGroup(top["characters"], func(k string, v json.RawMessage) { fast = append(fast, k+"="+string(v)) })
	jsonio.SplitObject(top["characters"], func(k string, v json.RawMessage) { slow = append(slow, k+"="+string(v)) })
	if strings.Join(fast, "|") != strings.Join(slow, "|") || len(fast) != 5 {
		t.Errorf("fast %q\nslow %q", fast, slow)
	}
}
