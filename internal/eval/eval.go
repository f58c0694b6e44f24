// Package eval reads QualityJudge evaluations (SPEC §2, including the
// wrapped {"eval_used":{…}} form) and logic-review reports, validating them
// the way the gate and step validation need (SPEC §3.2).
package eval

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// Recommendations a judge may give.
var Recommendations = []string{"pass", "polish", "revise", "review", "rewrite"}

// Levels are the contract-verification check groups, in output order.
var Levels = []string{"l1", "l2", "l3", "ls"}

// Check is one contract-verification item.
type Check struct {
	Level          string `json:"level"`
	ID             string `json:"id"`
	Status         string `json:"status"`
	Confidence     string `json:"confidence"`
	ConstraintType string `json:"constraint_type,omitempty"`
	Detail         string `json:"detail,omitempty"`
	// Evidence quotes the chapter (SPEC §25: every rule in play is checked
	// against a passage, for a pass as for a violation).
	Evidence string `json:"evidence,omitempty"`
	// Quotes are the evidence quotes one by one (CheckRules checks each).
	Quotes []string `json:"-"`
}

// Dimension is one scored dimension.
type Dimension struct {
	Name     string  `json:"dimension"`
	Score    float64 `json:"score"`
	Feedback string  `json:"feedback,omitempty"`
	Evidence string  `json:"evidence,omitempty"`
	// Quotes are the evidence quotes one by one (Strict checks each).
	Quotes []string `json:"-"`
}

// Fix is one required fix.
type Fix struct {
	Target      string `json:"target"`
	Instruction string `json:"instruction"`
	// Evidence optionally quotes the passage to change (SPEC §24): a fix
	// whose target or evidence is found in the draft can be applied by a
	// targeted revision.
	Evidence string `json:"evidence,omitempty"`
}

// Eval is a parsed QualityJudge evaluation.
type Eval struct {
	File           string
	Chapter        int
	Overall        float64
	Dimensions     []Dimension // sorted by name
	Checks         []Check     // l1, l2, l3, ls; file order inside a level
	RequiredFixes  []Fix
	Recommendation string
	RubricVersion  string // "" for evals made without the suite's rubric
	// IsStrict is set by Strict once the eval passed the suite packet's
	// rubric: its overall is then always recomputed (SPEC §24).
	IsStrict bool
}

// IsViolation reports whether the check is a violation.
func (c Check) IsViolation() bool { return c.Status == "violation" }

// IsHigh reports whether the check is a high-confidence violation that
// blocks (SPEC §7.1): any l1/l2/l3 violation with high confidence, and ls
// ones only when constraint_type is missing or "hard".
func (c Check) IsHigh() bool {
	if !c.IsViolation() || c.Confidence != "high" {
		return false
	}
	if c.Level == "ls" {
		return c.ConstraintType == "" || c.ConstraintType == "hard"
	}
	return true
}

// Violations splits the eval's violations into the blocking high-confidence
// ones and the rest (warnings, which never block).
func (e *Eval) Violations() (high, warnings []Check) {
	high, warnings = []Check{}, []Check{}
	for _, c := range e.Checks {
		switch {
		case c.IsHigh():
			high = append(high, c)
		case c.IsViolation():
			warnings = append(warnings, c)
		}
	}
	return high, warnings
}

func schemaErr(rel, zhWhat, enWhat string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zhWhat, "%s: "+enWhat, append([]any{rel}, args...)...).
		With("file", rel).
		Hint("按 SPEC §2 的评估格式修正该文件，或重新运行 judge 步骤", "fix the file to the eval schema of SPEC §2, or run the judge step again")
}

// decodeObject decodes a judge's or reviewer's JSON object; anything but
// an object is the format's own E_SCHEMA (bad), other errors as Decode
// gives them.
func decodeObject(data []byte, rel string, bad func(rel, zh, en string, args ...any) *errs.Error) (map[string]any, error) {
	var raw map[string]any
	if err := jsonio.Decode(data, rel, &raw); err != nil {
		if errs.Is(err, errs.Schema) {
			return nil, bad(rel, "必须是 JSON 对象", "must be a JSON object")
		}
		return nil, err
	}
	if raw == nil {
		return nil, bad(rel, "必须是 JSON 对象", "must be a JSON object")
	}
	return raw, nil
}

// Parse decodes and validates an eval of chapter (0 skips the chapter
// check). The wrapped form {"eval_used":{…}} is accepted (see Unwrap).
func Parse(data []byte, rel string, chapter int) (*Eval, error) {
	raw, err := decodeObject(data, rel, schemaErr)
	if err != nil {
		return nil, err
	}
	raw, ok := Unwrap(raw)
	if !ok {
		return nil, schemaErr(rel, "eval_used 必须是对象", "eval_used must be an object")
	}
	e := &Eval{File: rel}
	n, ok := chapterOf(raw)
	if !ok {
		return nil, schemaErr(rel, "缺少整数字段 chapter", "missing integer field chapter")
	}
	if chapter > 0 && n != chapter {
		return nil, schemaErr(rel, "chapter 为 %d，应为 %d", "chapter is %d, want %d", n, chapter).With("chapter", n).With("want", chapter)
	}
	e.Chapter = n
	ov, ok := jsonio.Float(raw["overall"])
	if !ok || ov < 0 || ov > 5 {
		return nil, schemaErr(rel, "overall 必须是 0 到 5 之间的数，实际为 %s", "overall must be a number in [0,5], got %s", show(raw["overall"])).With("field", "overall")
	}
	e.Overall = ov
	if v, present := raw["rubric_version"]; present && v != nil {
		s, isStr := v.(string)
		if !isStr {
			return nil, schemaErr(rel, "rubric_version 必须是字符串，实际为 %s", "rubric_version must be a string, got %s", show(v)).With("field", "rubric_version")
		}
		e.RubricVersion = s
	}
	if err := e.parseScores(raw["scores"], rel); err != nil {
		return nil, err
	}
	if err := e.parseChecks(raw["contract_verification"], rel); err != nil {
		return nil, err
	}
	if err := e.parseFixes(raw["required_fixes"], rel); err != nil {
		return nil, err
	}
	if v, present := raw["recommendation"]; present && v != nil {
		s, isStr := v.(string)
		if !isStr || !slices.Contains(Recommendations, s) {
			return nil, schemaErr(rel, "recommendation 必须是 pass|polish|revise|review|rewrite 之一，实际为 %s",
				"recommendation must be one of pass|polish|revise|review|rewrite, got %s", show(v)).With("field", "recommendation")
		}
		e.Recommendation = s
	}
	return e, nil
}

// Unwrap returns the eval proper of a decoded eval document. The plugin's
// wrapped form {"chapter","eval_used":{…},"metadata"} (recognised by an
// eval_used next to no top-level overall) becomes a copy of eval_used with
// the outer fields it lacks or leaves null (chapter, metadata, …) filled in, so the
// chapter on the outer object counts. Any other document is returned as
// is. ok is false when eval_used is not an object.
func Unwrap(raw map[string]any) (map[string]any, bool) {
	inner, wrapped := raw["eval_used"]
	if _, hasOverall := raw["overall"]; !wrapped || hasOverall {
		return raw, true
	}
	m, isObj := inner.(map[string]any)
	if !isObj {
		return nil, false
	}
	out := make(map[string]any, len(m)+len(raw))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range raw {
		if cur, dup := out[k]; (!dup || cur == nil) && k != "eval_used" {
			out[k] = v
		}
	}
	return out, true
}

func chapterOf(raw map[string]any) (int, bool) {
	v, ok := raw["chapter"]
	if !ok || v == nil {
		v, ok = raw["chapter_number"]
	}
	if !ok {
		return 0, false
	}
	n, isInt := jsonio.Int(v)
	return n, isInt && n >= 1
}

func (e *Eval) parseScores(v any, rel string) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return schemaErr(rel, "scores 必须是对象", "scores must be an object").With("field", "scores")
	}
	for name, sv := range m {
		d := Dimension{Name: name}
		switch x := sv.(type) {
		case map[string]any:
			f, isNum := jsonio.Float(x["score"])
			if !isNum {
				return schemaErr(rel, "scores.%s.score 必须是数，实际为 %s", "scores.%s.score must be a number, got %s", name, show(x["score"])).With("field", "scores."+name)
			}
			d.Score = f
			// The suite's rubric says reason; older evals say feedback.
			if fb, isStr := x["feedback"].(string); isStr {
				d.Feedback = fb
			} else if rs, isStr := x["reason"].(string); isStr {
				d.Feedback = rs
			}
			d.Quotes = evidenceQuotes(x["evidence"])
			d.Evidence = strings.Join(d.Quotes, " / ")
		default:
			// A bare number is the plugin's short form.
			f, isNum := jsonio.Float(sv)
			if !isNum {
				return schemaErr(rel, "scores.%s 必须是 {score,feedback} 对象或数，实际为 %s", "scores.%s must be a {score,feedback} object or a number, got %s", name, show(sv)).With("field", "scores."+name)
			}
			d.Score = f
		}
		if e.RubricVersion == RubricVersion && (d.Score < 1 || d.Score > 5) {
			return schemaErr(rel, "scores.%s.score 必须在 1 到 5 之间（评分标准 %s），实际为 %s", "scores.%s.score must be within 1..5 (rubric %s), got %s",
				name, RubricVersion, show(d.Score)).With("field", "scores."+name)
		}
		e.Dimensions = append(e.Dimensions, d)
	}
	sort.Slice(e.Dimensions, func(i, j int) bool { return e.Dimensions[i].Name < e.Dimensions[j].Name })
	return nil
}

// evidenceQuotes reads a dimension's evidence: one quote, or a list of
// quotes (joined with " / " for display).
func evidenceQuotes(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if x != "" {
			out = append(out, x)
		}
	case []any:
		for _, item := range x {
			if s, ok := item.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (e *Eval) parseChecks(v any, rel string) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return schemaErr(rel, "contract_verification 必须是对象", "contract_verification must be an object").With("field", "contract_verification")
	}
	for _, lvl := range Levels {
		key := lvl + "_checks"
		lv, present := m[key]
		if !present || lv == nil {
			continue
		}
		list, isArr := lv.([]any)
		if !isArr {
			return schemaErr(rel, "contract_verification.%s 必须是数组", "contract_verification.%s must be an array", key).With("field", "contract_verification."+key)
		}
		for i, item := range list {
			obj, isObj := item.(map[string]any)
			if !isObj {
				return schemaErr(rel, "contract_verification.%s[%d] 必须是对象", "contract_verification.%s[%d] must be an object", key, i).With("field", "contract_verification."+key)
			}
			c := Check{Level: lvl}
			for _, f := range []struct {
				name string
				dst  *string
			}{{"id", &c.ID}, {"status", &c.Status}, {"confidence", &c.Confidence}, {"constraint_type", &c.ConstraintType}, {"detail", &c.Detail}} {
				fv, has := obj[f.name]
				if !has || fv == nil {
					continue
				}
				s, isStr := fv.(string)
				if !isStr {
					if f.name == "id" {
						// Numeric ids are common in hand-written evals.
						if _, isNum := fv.(json.Number); isNum {
							*f.dst = string(fv.(json.Number))
							continue
						}
					}
					return schemaErr(rel, "contract_verification.%s[%d].%s 必须是字符串", "contract_verification.%s[%d].%s must be a string", key, i, f.name).With("field", "contract_verification."+key)
				}
				*f.dst = s
			}
			c.Quotes = evidenceQuotes(obj["evidence"])
			c.Evidence = strings.Join(c.Quotes, " / ")
			e.Checks = append(e.Checks, c)
		}
	}
	return nil
}

func (e *Eval) parseFixes(v any, rel string) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return schemaErr(rel, "required_fixes 必须是数组", "required_fixes must be an array").With("field", "required_fixes")
	}
	for i, item := range list {
		switch x := item.(type) {
		case string:
			e.RequiredFixes = append(e.RequiredFixes, Fix{Instruction: x})
		case map[string]any:
			f := Fix{}
			f.Target, _ = x["target"].(string)
			f.Instruction, _ = x["instruction"].(string)
			f.Evidence, _ = x["evidence"].(string)
			if f.Instruction == "" {
				return schemaErr(rel, "required_fixes[%d] 缺少 instruction 字符串", "required_fixes[%d] has no instruction string", i).With("field", "required_fixes")
			}
			e.RequiredFixes = append(e.RequiredFixes, f)
		default:
			return schemaErr(rel, "required_fixes[%d] 必须是对象 {target,instruction}", "required_fixes[%d] must be an object {target,instruction}", i).With("field", "required_fixes")
		}
	}
	return nil
}

// Load reads and parses an eval file of the project.
func Load(root *project.Root, rel string, chapter int) (*Eval, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return Parse(data, rel, chapter)
}

// show renders a JSON value briefly for messages.
func show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := jsonio.MarshalLine(v)
	if err != nil || len(b) > 80 {
		return jsonio.TypeName(v)
	}
	return string(b[:len(b)-1])
}
