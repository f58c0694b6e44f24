package manifest

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/textmeasure"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// readOptional decodes rel into v when it exists; present reports whether
// it did. A malformed file is an error naming it.
func readOptional(root *project.Root, rel string, v any) (present bool, err error) {
	if !root.Exists(rel) {
		return false, nil
	}
	if err := root.ReadJSON(rel, v); err != nil {
		return true, err
	}
	return true, nil
}

// ---- world rules ----

type rule struct {
	ID             string
	Category       string
	Rule           string
	ConstraintType string
	Exceptions     []string
	// Keywords are the words whose occurrence in a chapter puts the rule
	// in play (SPEC §25).
	Keywords []string
}

// loadHardRules reads world/rules.json ({"rules":[…]} or a bare list) and
// renders the hard rules, sorted by id, as SPEC §6 lines.
func loadHardRules(root *project.Root) ([]string, bool, error) {
	rules, present, err := loadRules(root)
	if err != nil || !present {
		return []string{}, present, err
	}
	lines := make([]string, 0, len(rules))
	for _, r := range rules {
		line := "- [" + r.ID + "][" + r.Category + "] " + r.Rule
		if len(r.Exceptions) > 0 {
			line += "（exceptions: " + strings.Join(r.Exceptions, "；") + "）"
		}
		lines = append(lines, line)
	}
	return lines, true, nil
}

// loadRules reads the hard rules of world/rules.json, sorted by id.
func loadRules(root *project.Root) ([]rule, bool, error) {
	var raw any
	present, err := readOptional(root, layout.WorldRules, &raw)
	if err != nil || !present {
		return nil, present, err
	}
	list, ok := raw.([]any)
	if obj, isObj := raw.(map[string]any); isObj {
		list, ok = obj["rules"].([]any)
		if obj["rules"] == nil {
			list, ok = []any{}, true
		}
	}
	if !ok {
		return nil, true, errs.SchemaIn(layout.WorldRules, "应为 {\"rules\":[…]}", "must be {\"rules\":[…]}")
	}
	var rules []rule
	for i, x := range list {
		m, isObj := x.(map[string]any)
		if !isObj {
			return nil, true, errs.SchemaIn(layout.WorldRules, "rules[%d] 必须是对象", "rules[%d] must be an object", i)
		}
		r := rule{ID: str(m["id"]), Category: str(m["category"]), Rule: str(m["rule"]), ConstraintType: str(m["constraint_type"])}
		if r.ConstraintType != "hard" {
			continue
		}
		r.Exceptions = textList(m["exceptions"])
		r.Keywords = textList(m["keywords"])
		rules = append(rules, r)
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules, true, nil
}

// textList reads a list of scalars as trimmed non-empty strings.
func textList(v any) []string {
	var out []string
	if list, isList := v.([]any); isList {
		for _, e := range list {
			if s := strings.TrimSpace(text(e)); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// text renders a scalar for a human line (numbers, bools; objects as JSON).
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := jsonio.MarshalLine(v)
	return strings.TrimSpace(string(b))
}

// ---- characters ----

// Character is one characters/active/{slug}.json (package cast).
type Character = cast.Character

func loadCharacters(root *project.Root) ([]Character, []string, error) { return cast.Load(root) }

// ---- style drift ----

func loadDrift(root *project.Root) (directives []string, active bool, err error) {
	var d struct {
		Active any `json:"active"`
		Drifts []struct {
			Directive any `json:"directive"`
		} `json:"drifts"`
	}
	present, err := readOptional(root, layout.StyleDrift, &d)
	if err != nil || !present {
		return nil, false, err
	}
	if d.Active != true {
		return nil, false, nil
	}
	for _, x := range d.Drifts {
		if s, ok := x.Directive.(string); ok && strings.TrimSpace(s) != "" {
			directives = append(directives, strings.TrimSpace(s))
		}
	}
	return directives, true, nil
}

// ---- continuity report ----

type continuityIssue struct {
	ID          string            `json:"id,omitempty"`
	Type        string            `json:"type,omitempty"`
	Severity    string            `json:"severity"`
	Confidence  string            `json:"confidence,omitempty"`
	Description string            `json:"description,omitempty"`
	Evidence    []json.RawMessage `json:"evidence,omitempty"`
	Suggestion  string            `json:"suggestion,omitempty"`
}

// ContinuitySummary is the judge's view of logs/continuity/latest.json.
type ContinuitySummary struct {
	Source       string            `json:"source"`
	ChapterRange json.RawMessage   `json:"chapter_range,omitempty"`
	High         int               `json:"high"`
	Medium       int               `json:"medium"`
	Issues       []continuityIssue `json:"issues"`
}

func loadContinuity(root *project.Root) (*ContinuitySummary, error) {
	var rep struct {
		ChapterRange json.RawMessage `json:"chapter_range"`
		Issues       []map[string]any
	}
	var raw map[string]json.RawMessage
	present, err := readOptional(root, layout.ContinuityLatest, &raw)
	if err != nil || !present {
		if errs.Is(err, errs.Schema) {
			return nil, errs.SchemaIn(layout.ContinuityLatest, "必须是 JSON 对象", "must be a JSON object")
		}
		return nil, err
	}
	rep.ChapterRange = raw["chapter_range"]
	if iss, ok := raw["issues"]; ok && !bytes.Equal(bytes.TrimSpace(iss), []byte("null")) {
		if err := jsonio.Decode(iss, layout.ContinuityLatest, &rep.Issues); err != nil {
			return nil, errs.SchemaIn(layout.ContinuityLatest, "issues 必须是对象数组", "issues must be a list of objects")
		}
	}
	s := &ContinuitySummary{Source: layout.ContinuityLatest, ChapterRange: rep.ChapterRange, Issues: []continuityIssue{}}
	var high, medium []continuityIssue
	for _, m := range rep.Issues {
		sev := str(m["severity"])
		if sev != "high" && sev != "medium" {
			continue
		}
		is := continuityIssue{ID: textmeasure.Clip(str(m["id"]), 240), Type: str(m["type"]), Severity: sev,
			Confidence: str(m["confidence"]), Description: textmeasure.Clip(str(m["description"]), 240), Suggestion: textmeasure.Clip(str(m["suggestion"]), 180)}
		if ev, ok := m["evidence"].([]any); ok {
			for _, e := range ev[:min(2, len(ev))] {
				b, _ := jsonio.MarshalLine(e)
				is.Evidence = append(is.Evidence, json.RawMessage(bytes.TrimSpace(b)))
			}
		}
		if sev == "high" {
			high = append(high, is)
		} else {
			medium = append(medium, is)
		}
	}
	s.High, s.Medium = len(high), len(medium)
	s.Issues = append(append(s.Issues, high...), medium...)
	s.Issues = s.Issues[:min(5, len(s.Issues))]
	return s, nil
}
