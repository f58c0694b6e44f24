package eval

import (
	"slices"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// Severities a logic-review issue may have (exact, lowercase).
var Severities = []string{"low", "medium", "high"}

// Issue is one logic-review finding.
type Issue struct {
	IssueType       string `json:"issue_type"`
	Description     string `json:"description"`
	Severity        string `json:"severity"`
	Evidence        string `json:"evidence,omitempty"`
	FixInstructions string `json:"fix_instructions,omitempty"`
}

// LogicReview is a parsed logic-review report (SPEC §2, §7.2).
type LogicReview struct {
	File          string
	ChapterNumber int
	OverallScore  int
	Issues        []Issue
	Summary       string
}

// HighCount is the number of issues with severity high.
func (r *LogicReview) HighCount() int {
	n := 0
	for _, is := range r.Issues {
		if is.Severity == "high" {
			n++
		}
	}
	return n
}

// Blocks reports whether the report blocks the chapter at minScore:
// score strictly below it, or any high issue (SPEC §7.2).
func (r *LogicReview) Blocks(minScore int) bool {
	return r.OverallScore < minScore || r.HighCount() > 0
}

func reviewErr(rel, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, append([]any{rel}, args...)...).
		With("file", rel).
		Hint("按 SPEC §2 的逻辑审查报告格式修正该文件，或重新运行 logic-review 步骤", "fix the file to the logic review schema of SPEC §2, or run the logic-review step again")
}

// ParseLogicReview decodes and validates a report of chapter (0 skips the
// chapter check): overall_score an integer 0..100, every severity exactly
// low|medium|high — anything else is an error, never a silent pass.
func ParseLogicReview(data []byte, rel string, chapter int) (*LogicReview, error) {
	raw, err := decodeObject(data, rel, reviewErr)
	if err != nil {
		return nil, err
	}
	r := &LogicReview{File: rel, ChapterNumber: chapter}
	if v, ok := raw["chapter_number"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		if !isInt || n < 1 {
			return nil, reviewErr(rel, "chapter_number 必须是正整数，实际为 %s", "chapter_number must be a positive integer, got %s", show(v)).With("field", "chapter_number")
		}
		if chapter > 0 && n != chapter {
			return nil, reviewErr(rel, "chapter_number 为 %d，应为 %d", "chapter_number is %d, want %d", n, chapter).With("field", "chapter_number")
		}
		r.ChapterNumber = n
	}
	sc, ok := jsonio.Int(raw["overall_score"])
	if !ok || sc < 0 || sc > 100 {
		return nil, reviewErr(rel, "overall_score 必须是 0..100 的整数，实际为 %s", "overall_score must be an integer 0..100, got %s", show(raw["overall_score"])).With("field", "overall_score")
	}
	r.OverallScore = sc
	if v, present := raw["issues"]; present && v != nil {
		list, isArr := v.([]any)
		if !isArr {
			return nil, reviewErr(rel, "issues 必须是数组", "issues must be an array").With("field", "issues")
		}
		for i, item := range list {
			obj, isObj := item.(map[string]any)
			if !isObj {
				return nil, reviewErr(rel, "issues[%d] 必须是对象", "issues[%d] must be an object", i).With("field", "issues")
			}
			var is Issue
			for _, f := range []struct {
				name string
				dst  *string
			}{{"issue_type", &is.IssueType}, {"description", &is.Description}, {"severity", &is.Severity}, {"evidence", &is.Evidence}, {"fix_instructions", &is.FixInstructions}} {
				fv, has := obj[f.name]
				if !has || fv == nil {
					continue
				}
				s, isStr := fv.(string)
				if !isStr {
					return nil, reviewErr(rel, "issues[%d].%s 必须是字符串", "issues[%d].%s must be a string", i, f.name).With("field", "issues")
				}
				*f.dst = s
			}
			if !slices.Contains(Severities, is.Severity) {
				return nil, reviewErr(rel, "issues[%d].severity 必须是 low、medium 或 high（小写），实际为 %s",
					"issues[%d].severity must be low, medium or high (lowercase), got %s", i, show(obj["severity"])).With("field", "issues")
			}
			r.Issues = append(r.Issues, is)
		}
	}
	if s, isStr := raw["summary"].(string); isStr {
		r.Summary = s
	}
	return r, nil
}

// LoadLogicReview reads and parses a report file of the project.
func LoadLogicReview(root *project.Root, rel string, chapter int) (*LogicReview, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return ParseLogicReview(data, rel, chapter)
}
