// Package gate turns a chapter's evaluations (and logic review report)
// into a decision — pass, polish, revise, review or rewrite — records it in
// the gate file, applies the stage moves that follow (SPEC §7.1), and
// resolves paused chapters (SPEC §7.5).
package gate

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Decisions. Accepted is written by resolve --accept only.
const (
	Pass     = "pass"
	Polish   = "polish"
	Revise   = "revise"
	Review   = "review"
	Rewrite  = "rewrite"
	Accepted = "accepted"
)

// failedDimensionBelow is the score under which a dimension is listed as
// failed (SPEC §7.1).
const failedDimensionBelow = 3.5

// Violation is a contract check that failed, tagged with its judge.
type Violation struct {
	eval.Check
	Judge string `json:"judge"`
}

// Violations are the high-confidence (blocking) ones and the warnings.
type Violations struct {
	High     []Violation `json:"high"`
	Warnings []Violation `json:"warnings"`
}

// LogicSummary is the logic review part of a gate result.
type LogicSummary struct {
	File            string `json:"file"`
	Policy          string `json:"policy"`
	OverallScore    int    `json:"overall_score"`
	MinScore        int    `json:"min_score"`
	HighIssuesCount int    `json:"high_issues_count"`
	IssuesCount     int    `json:"issues_count"`
	Blocking        bool   `json:"blocking"`
}

// Config is the effective configuration a decision used.
type Config struct {
	GateThresholds      settings.Thresholds `json:"gate_thresholds"`
	MaxRevisions        int                 `json:"max_revisions"`
	LogicReviewPolicy   string              `json:"logic_review_policy"`
	LogicReviewMinScore int                 `json:"logic_review_min_score"`
	KeyChapter          bool                `json:"key_chapter"`
}

// Result is the gate decision of one chapter (SPEC §7.1), printed by
// decide and recorded in the gate file.
type Result struct {
	Chapter                    int              `json:"chapter"`
	Decision                   string           `json:"decision"`
	OverallFinal               float64          `json:"overall_final"`
	EvalUsed                   string           `json:"eval_used"`
	HasHighConfidenceViolation bool             `json:"has_high_confidence_violation"`
	Violations                 Violations       `json:"violations"`
	RevisionCount              int              `json:"revision_count"`
	MaxRevisions               int              `json:"max_revisions"`
	ForcePassed                bool             `json:"force_passed"`
	FailedDimensions           []eval.Dimension `json:"failed_dimensions"`
	RequiredFixes              []eval.Fix       `json:"required_fixes"`
	LogicReview                *LogicSummary    `json:"logic_review"`
	BlockedBy                  string           `json:"blocked_by,omitempty"`
	Scoring                    *Scoring         `json:"scoring,omitempty"`
	Lint                       *LintBlock       `json:"lint,omitempty"`
	Config                     Config           `json:"config"`
	NextStep                   *string          `json:"next_step"`
}

// Scoring records how the overalls were computed when at least one eval
// follows the suite's rubric (SPEC §18): the weights used and, per judge,
// the gate's overall next to the model's own.
type Scoring struct {
	RubricVersion string             `json:"rubric_version"`
	Weights       map[string]float64 `json:"weights"`
	Primary       JudgeScore         `json:"primary"`
	Secondary     *JudgeScore        `json:"secondary,omitempty"`
	// ModelOverall marks a decision taken on the model's own overall
	// (a hand-made eval with neither rubric_version nor a judge packet,
	// SPEC §24); it is written as "scoring": "model_overall".
	ModelOverall bool `json:"-"`
}

// scoringModelOverall is the scoring value of a decision taken on the
// eval's own overall.
const scoringModelOverall = "model_overall"

// MarshalJSON writes "model_overall" or the scoring record.
func (s Scoring) MarshalJSON() ([]byte, error) {
	if s.ModelOverall {
		return json.Marshal(scoringModelOverall)
	}
	type record Scoring
	return json.Marshal(record(s))
}

// UnmarshalJSON reads either form back (gate files are re-read).
func (s *Scoring) UnmarshalJSON(b []byte) error {
	var mode string
	if json.Unmarshal(b, &mode) == nil {
		*s = Scoring{ModelOverall: mode == scoringModelOverall}
		return nil
	}
	type record Scoring
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*s = Scoring(r)
	return nil
}

// JudgeScore is one judge's overall as the gate computed it.
type JudgeScore struct {
	Overall      float64 `json:"overall"`
	ModelOverall float64 `json:"model_overall"`
	Recomputed   bool    `json:"recomputed"`
}

func judgeScore(e *eval.Eval, w map[string]float64) JudgeScore {
	ov, ok := e.Weighted(w)
	return JudgeScore{Overall: ov, ModelOverall: e.Overall, Recomputed: ok}
}

// scoring computes each judge's overall; when no eval was recomputed the
// record only says the model's own overall decided.
func scoring(in Input) (primary float64, secondary float64, rec *Scoring) {
	w := in.Settings.Weights()
	rec = &Scoring{RubricVersion: eval.RubricVersion, Weights: w, Primary: judgeScore(in.Primary, w)}
	recomputed := rec.Primary.Recomputed
	primary = rec.Primary.Overall
	if in.KeyChapter && in.Secondary != nil {
		js := judgeScore(in.Secondary, w)
		rec.Secondary, secondary = &js, js.Overall
		recomputed = recomputed || js.Recomputed
	}
	if !recomputed {
		rec = &Scoring{ModelOverall: true}
	}
	return primary, secondary, rec
}

// LintBlock says why a chapter could not pass: the text to be committed
// still has errors no judge score outweighs (SPEC §20).
type LintBlock struct {
	File      string   `json:"file"`
	WordCount int      `json:"word_count"`
	Errors    []string `json:"errors"`
}

// IsPause reports whether the decision needs a person (review, rewrite).
func IsPause(decision string) bool { return decision == Review || decision == Rewrite }

// Input is everything a decision depends on.
type Input struct {
	Chapter       int
	Primary       *eval.Eval
	Secondary     *eval.Eval // used only on key chapters
	KeyChapter    bool
	Review        *eval.LogicReview // nil when there is no report
	Settings      settings.Settings
	RevisionCount int
	Lint          *lint.Report // the staging chapter's lint; nil when not linted
	// Warnings is the staging chapter's full lint (terms and previous
	// chapter loaded) whose warnings feed the fixes; nil: Lint's are used.
	Warnings *lint.Report
}

// Decide computes the gate result. It is pure: same input, same result.
func Decide(in Input) *Result {
	s := in.Settings
	t := s.GateThresholds
	r := &Result{
		Chapter:       in.Chapter,
		RevisionCount: in.RevisionCount,
		MaxRevisions:  s.MaxRevisions,
		Config: Config{GateThresholds: t, MaxRevisions: s.MaxRevisions, LogicReviewPolicy: s.LogicReviewPolicy,
			LogicReviewMinScore: s.LogicReviewMinScore, KeyChapter: in.KeyChapter},
		Violations:       Violations{High: []Violation{}, Warnings: []Violation{}},
		FailedDimensions: []eval.Dimension{},
		RequiredFixes:    []eval.Fix{},
	}
	pOverall, sOverall, rec := scoring(in)
	r.Scoring = rec
	used, usedName, usedOverall := in.Primary, stepid.RolePrimary, pOverall
	judges := []struct {
		e    *eval.Eval
		name string
	}{{in.Primary, stepid.RolePrimary}}
	if in.KeyChapter && in.Secondary != nil {
		judges = append(judges, struct {
			e    *eval.Eval
			name string
		}{in.Secondary, stepid.RoleSecondary})
		// The lower score decides; a tie goes to the strong second judge.
		if sOverall <= pOverall {
			used, usedName, usedOverall = in.Secondary, stepid.RoleSecondary, sOverall
		}
	}
	r.OverallFinal, r.EvalUsed = usedOverall, usedName
	for _, j := range judges {
		high, warn := j.e.Violations()
		for _, c := range high {
			r.Violations.High = append(r.Violations.High, Violation{Check: c, Judge: j.name})
		}
		for _, c := range warn {
			r.Violations.Warnings = append(r.Violations.Warnings, Violation{Check: c, Judge: j.name})
		}
	}
	r.HasHighConfidenceViolation = len(r.Violations.High) > 0

	d := byScore(r.OverallFinal, t)
	if r.HasHighConfidenceViolation {
		d = Revise
	}
	lintFixes := lintBlock(r, in, s.Language)
	if r.Lint != nil && (d == Pass || d == Polish) {
		d = Revise
	}
	if d == Revise && in.RevisionCount >= s.MaxRevisions {
		// At the cap a revise becomes a forced pass when the chapter is
		// acceptable, else a person decides.
		if !r.HasHighConfidenceViolation && r.Lint == nil && r.OverallFinal >= t.Revise {
			d, r.ForcePassed = Pass, true
		} else {
			d = Review
		}
	}
	if in.Review != nil {
		r.LogicReview = &LogicSummary{
			File: in.Review.File, Policy: s.LogicReviewPolicy, OverallScore: in.Review.OverallScore,
			MinScore: s.LogicReviewMinScore, HighIssuesCount: in.Review.HighCount(), IssuesCount: len(in.Review.Issues),
		}
		if s.LogicReviewPolicy == settings.PolicyBlocking && in.Review.Blocks(s.LogicReviewMinScore) {
			r.LogicReview.Blocking = true
			d, r.BlockedBy, r.ForcePassed = Review, "logic_review", false
		}
	}
	r.Decision = d

	for _, dim := range used.Dimensions {
		if dim.Score < failedDimensionBelow {
			r.FailedDimensions = append(r.FailedDimensions, dim)
		}
	}
	r.RequiredFixes = append(lintFixes, requiredFixes(used, r.Violations.High)...)
	// A polish works on something (SPEC §24): the judges' fixes and the
	// lint warnings, and the two lowest dimensions when none failed;
	// a revise gets the lint warnings after its own fixes.
	switch d {
	case Polish:
		r.RequiredFixes = polishFixes(in, used, r.Violations.High, warningFixes(in, s.Language))
		if len(r.FailedDimensions) == 0 {
			r.FailedDimensions = append(r.FailedDimensions, lowest(used.Dimensions, 2)...)
		}
	case Revise:
		r.RequiredFixes = withWarnings(r.RequiredFixes, warningFixes(in, s.Language))
	}
	r.NextStep = nextStep(in.Chapter, d)
	return r
}

func byScore(x float64, t settings.Thresholds) string {
	switch {
	case x >= t.Pass:
		return Pass
	case x >= t.Polish:
		return Polish
	case x >= t.Revise:
		return Revise
	case x >= t.Review:
		return Review
	}
	return Rewrite
}

// requiredFixes: the eval's own, else one per high violation, else the
// feedback of the two lowest dimensions (SPEC §7.1).
func requiredFixes(used *eval.Eval, high []Violation) []eval.Fix {
	out := []eval.Fix{}
	if len(used.RequiredFixes) > 0 {
		return append(out, used.RequiredFixes...)
	}
	if len(high) > 0 {
		for _, v := range high {
			ins := v.Detail
			if ins == "" {
				ins = "修正违反 " + v.ID + " 的内容（" + v.Level + "）"
			}
			out = append(out, eval.Fix{Target: v.ID, Instruction: ins})
		}
		return out
	}
	dims := append([]eval.Dimension(nil), used.Dimensions...)
	sort.SliceStable(dims, func(i, j int) bool {
		if dims[i].Score != dims[j].Score {
			return dims[i].Score < dims[j].Score
		}
		return dims[i].Name < dims[j].Name
	})
	for i := 0; i < len(dims) && i < 2; i++ {
		ins := dims[i].Feedback
		if ins == "" {
			ins = "提升 " + dims[i].Name + "（当前 " + strconv.FormatFloat(dims[i].Score, 'f', -1, 64) + " 分）"
		}
		out = append(out, eval.Fix{Target: dims[i].Name, Instruction: ins})
	}
	return out
}

func nextStep(c int, decision string) *string {
	var stage string
	switch decision {
	case Pass, Accepted:
		stage = stepid.Commit
	case Polish:
		stage = stepid.Polish
	case Revise:
		stage = stepid.Draft
	default:
		return nil
	}
	s := "chapter:" + layout.Pad(c) + ":" + stage
	return &s
}

// lintBlock records the gate-blocking lint errors of the staging chapter
// (length, model_artifacts) and returns the fixes they call for.
func lintBlock(r *Result, in Input, lang string) []eval.Fix {
	if in.Lint == nil {
		return []eval.Fix{}
	}
	fired := in.Lint.Fired(lint.Error, lint.GateBlocking...)
	if len(fired) == 0 {
		return []eval.Fix{}
	}
	r.Lint = &LintBlock{File: in.Lint.File, WordCount: in.Lint.WordCount, Errors: []string{}}
	for _, c := range fired {
		r.Lint.Errors = append(r.Lint.Errors, c.ID)
	}
	fixes := []eval.Fix{}
	for _, f := range in.Lint.Fixes(lang, lint.GateBlocking...) {
		fixes = append(fixes, eval.Fix{Target: f[0], Instruction: f[1]})
	}
	return fixes
}
