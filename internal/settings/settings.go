// Package settings loads settings.json (optional) with environment
// overrides. Invalid values are E_CONFIG errors naming the key and source;
// they are never silently replaced by defaults (SPEC §7.6).
package settings

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gofrs/uuid/v5"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/project"
)

// Logic review policies.
const (
	PolicyOff      = "off"
	PolicyBlocking = "blocking"
)

// Thresholds are the gate's overall-score cut-offs, descending.
type Thresholds struct {
	Pass   float64 `json:"pass"`
	Polish float64 `json:"polish"`
	Revise float64 `json:"revise"`
	Review float64 `json:"review"`
}

// Settings are the effective values.
type Settings struct {
	Language            string     `json:"language"`
	LogicReviewPolicy   string     `json:"logic_review_policy"`
	LogicReviewMinScore int        `json:"logic_review_min_score"`
	MaxRevisions        int        `json:"max_revisions"`
	GateThresholds      Thresholds `json:"gate_thresholds"`
	LockStaleMinutes    int        `json:"lock_stale_minutes"`
	// Title and Author name the book in exports (§23); empty when unset.
	Title  string `json:"title,omitempty"`
	Author string `json:"author,omitempty"`
	// BookID is the book's identifier in exports (§22.1), a UUID in its
	// canonical form; empty when unset.
	BookID string `json:"book_id,omitempty"`
	// JudgeWeights are the rubric weights (settings.json judge.weights), in
	// eval.Rubric order.
	JudgeWeights [len(eval.Rubric)]float64 `json:"judge_weights"`
	// Lints (SPEC §20): Platform "" means the project chose none (general
	// limits, short chapters only warned); WordsPerChapter 0 means none.
	Platform        string `json:"platform"`
	WordsPerChapter int    `json:"words_per_chapter"`
	QuoteStyle      string `json:"quote_style"`
	// Volumes (SPEC §23): ChaptersPerVolume 0 means unset (the brief's
	// 每卷章数 line then counts); VolumePlanApproval is "author" or "auto".
	ChaptersPerVolume  int    `json:"chapters_per_volume"`
	VolumePlanApproval string `json:"volume_plan_approval"`
	// BudgetTokens overrides DefaultBudgets per role (SPEC §19).
	// (0 keeps the default; an array keeps Settings comparable).
	BudgetTokens [len(BudgetRoles)]int `json:"budget_tokens"`
	// RecallTokens bounds the recall of draft and judge packets (SPEC
	// §25, context.recall_tokens; 0 keeps DefaultRecallTokens).
	RecallTokens int `json:"recall_tokens"`
	// ContinuityAudit (SPEC §21): "deterministic" (default) or "agent",
	// when a continuity-auditor reviews each continuity audit's window.
	ContinuityAudit string `json:"continuity_audit"`
	// ContinuityAuditSet: settings.json names continuity_audit; without it
	// a model executor gets the agent review (SPEC §25, AuditFor).
	ContinuityAuditSet bool `json:"-"`
	// FixMode (settings.json revision.fix_mode, SPEC §24): "on" (default)
	// lets a revise round be a targeted fix; "off" always redraws.
	FixMode string `json:"fix_mode"`
}

// revision.fix_mode values.
const (
	FixModeOn  = "on"
	FixModeOff = "off"
)

// continuity_audit values.
const (
	AuditDeterministic = "deterministic"
	AuditAgent         = "agent"
)

// AuditFor is the continuity audit a run with the given executor backend
// gets (SPEC §25): the project's continuity_audit when settings.json names
// it, else "agent" for a model executor — the openai and command backends,
// and the agent route, where the caller of novel next is itself the model
// (ExecutorAgent, ExecutorMCP) — and "deterministic" for replay or an
// executor the suite cannot identify.
func (s Settings) AuditFor(backend string) string {
	if s.ContinuityAuditSet {
		return s.ContinuityAudit
	}
	switch backend {
	case "openai", "command", ExecutorAgent, ExecutorMCP:
		return AuditAgent
	}
	return AuditDeterministic
}

// The executors of the agent route (SPEC §27) as novel next names them
// (--executor): a skill-driven client through the novel front door, and a
// chat client through novel-mcp.
const (
	ExecutorAgent = "agent"
	ExecutorMCP   = "mcp"
)

// Weights returns the judge weights by dimension name.
func (s Settings) Weights() map[string]float64 {
	w := make(map[string]float64, len(eval.Rubric))
	for i, d := range eval.Rubric {
		w[d.Name] = s.JudgeWeights[i]
	}
	return w
}

// Dialogue quote styles (settings.json quote_style).
const (
	QuoteCorner = "corner" // 「」
	QuoteCurly  = "curly"  // “”
)

// Defaults returns the documented defaults.
func Defaults() Settings {
	return Settings{
		Language:            "zh",
		LogicReviewPolicy:   PolicyOff,
		LogicReviewMinScore: 75,
		MaxRevisions:        2,
		GateThresholds:      Thresholds{Pass: 4.0, Polish: 3.5, Revise: 3.0, Review: 2.0},
		LockStaleMinutes:    30,
		JudgeWeights:        defaultWeights(),
		QuoteStyle:          QuoteCorner,
		VolumePlanApproval:  ApprovalAuthor,
		FixMode:             FixModeOn,
		ContinuityAudit:     AuditDeterministic,
	}
}

func defaultWeights() (w [len(eval.Rubric)]float64) {
	for i, d := range eval.Rubric {
		w[i] = d.Weight
	}
	return w
}

func cfgErr(key, source, zh, en string, value any) error {
	return errs.New(errs.Config, fmt.Sprintf("配置 %s（来源 %s）无效：%s", key, source, zh), fmt.Sprintf("invalid setting %s (from %s): %s", key, source, en)).
		With("key", key).With("source", source).With("value", value).
		Hint("修正该配置值；不会用默认值替代无效配置", "fix the value; invalid settings are never replaced by defaults")
}

// maxLockStaleMinutes is the largest lock_stale_minutes (a week).
const maxLockStaleMinutes = 10080

// Load reads settings.json under root (missing → defaults), then applies
// NOVEL_LOGIC_REVIEW_POLICY and NOVEL_LOGIC_REVIEW_MIN_SCORE from getenv.
func Load(root *project.Root, getenv func(string) string) (Settings, error) {
	s := Defaults()
	if root != nil && root.Exists(layout.Settings) {
		var raw map[string]any
		if err := root.ReadJSON(layout.Settings, &raw); err != nil {
			return s, err
		}
		if raw == nil {
			return s, cfgErr("(顶层)", layout.Settings, "必须是 JSON 对象", "must be a JSON object", nil)
		}
		if err := s.apply(raw, layout.Settings); err != nil {
			return s, err
		}
	}
	if getenv != nil {
		if v := getenv("NOVEL_LOGIC_REVIEW_POLICY"); v != "" {
			if err := s.setPolicy(v, "env NOVEL_LOGIC_REVIEW_POLICY", "NOVEL_LOGIC_REVIEW_POLICY"); err != nil {
				return s, err
			}
		}
		if v := getenv("NOVEL_LOGIC_REVIEW_MIN_SCORE"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 100 {
				return s, cfgErr("NOVEL_LOGIC_REVIEW_MIN_SCORE", "env NOVEL_LOGIC_REVIEW_MIN_SCORE", "必须是 0..100 的整数", "must be an integer 0..100", v)
			}
			s.LogicReviewMinScore = n
		}
	}
	return s, nil
}

// LoadLanguage reads only the message language, never failing (used when
// reporting an error).
func LoadLanguage(root *project.Root) string {
	if root == nil || !root.Exists(layout.Settings) {
		return "zh"
	}
	var raw struct {
		Language string `json:"language"`
	}
	if root.ReadJSON(layout.Settings, &raw) != nil || raw.Language != "en" {
		return "zh"
	}
	return "en"
}

func (s *Settings) setPolicy(v, source, key string) error {
	if v != PolicyOff && v != PolicyBlocking {
		return cfgErr(key, source, "必须是 off 或 blocking（区分大小写）", "must be off or blocking (case-sensitive)", v)
	}
	s.LogicReviewPolicy = v
	return nil
}

func (s *Settings) apply(raw map[string]any, src string) error {
	if v, ok := raw["language"]; ok && v != nil {
		str, _ := v.(string)
		if str != "zh" && str != "en" {
			return cfgErr("language", src, "必须是 zh 或 en", "must be zh or en", v)
		}
		s.Language = str
	}
	if v, ok := raw["logic_review_policy"]; ok && v != nil {
		str, isStr := v.(string)
		if !isStr {
			return cfgErr("logic_review_policy", src, "必须是 off 或 blocking", "must be off or blocking", v)
		}
		if err := s.setPolicy(str, src, "logic_review_policy"); err != nil {
			return err
		}
	}
	if v, ok := raw["continuity_audit"]; ok && v != nil {
		str, _ := v.(string)
		if str != AuditDeterministic && str != AuditAgent {
			return cfgErr("continuity_audit", src, "必须是 deterministic 或 agent", "must be deterministic or agent", v)
		}
		s.ContinuityAudit, s.ContinuityAuditSet = str, true
	}
	if v, ok := raw["logic_review_min_score"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		if !isInt || n < 0 || n > 100 {
			return cfgErr("logic_review_min_score", src, "必须是 0..100 的整数", "must be an integer 0..100", v)
		}
		s.LogicReviewMinScore = n
	}
	if v, ok := raw["max_revisions"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		if !isInt || n < 0 || n > 20 {
			return cfgErr("max_revisions", src, "必须是 0..20 的整数", "must be an integer 0..20", v)
		}
		s.MaxRevisions = n
	}
	if v, ok := raw["lock_stale_minutes"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		// Bounded by a week: a huge value once overflowed the age
		// comparison and made every lock stale at once.
		if !isInt || n < 1 || n > maxLockStaleMinutes {
			return cfgErr("lock_stale_minutes", src, "必须是 1..10080 的整数（分钟，最多一周）", "must be an integer 1..10080 (minutes, at most a week)", v)
		}
		s.LockStaleMinutes = n
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"title", &s.Title}, {"author", &s.Author}} {
		if v, ok := raw[f.key]; ok && v != nil {
			str, isStr := v.(string)
			if !isStr {
				return cfgErr(f.key, src, "必须是字符串", "must be a string", v)
			}
			*f.dst = str
		}
	}
	if v, ok := raw["book_id"]; ok && v != nil {
		str, _ := v.(string)
		id, err := uuid.FromString(str)
		if err != nil {
			return cfgErr("book_id", src, "必须是 UUID（如 novel init 写入的 0b9e4c1a-…）", "must be a UUID (such as the 0b9e4c1a-… novel init writes)", v)
		}
		s.BookID = id.String()
	}
	if err := s.applyLint(raw, src); err != nil {
		return err
	}
	if err := s.applyVolume(raw, src); err != nil {
		return err
	}
	if err := s.applyContext(raw, src); err != nil {
		return err
	}
	if err := s.applyRevision(raw, src); err != nil {
		return err
	}
	if v, ok := raw["gate_thresholds"]; ok && v != nil {
		m, isObj := v.(map[string]any)
		if !isObj {
			return cfgErr("gate_thresholds", src, "必须是对象 {pass,polish,revise,review}", "must be an object {pass,polish,revise,review}", v)
		}
		t := s.GateThresholds
		for _, f := range []struct {
			key string
			dst *float64
		}{{"pass", &t.Pass}, {"polish", &t.Polish}, {"revise", &t.Revise}, {"review", &t.Review}} {
			key, dst := f.key, f.dst
			x, present := m[key]
			if !present || x == nil {
				continue
			}
			f, isNum := jsonio.Float(x)
			if !isNum || f < 0 || f > 5 {
				return cfgErr("gate_thresholds."+key, src, "必须是 0..5 的数", "must be a number 0..5", x)
			}
			*dst = f
		}
		if !(t.Pass > t.Polish && t.Polish > t.Revise && t.Revise > t.Review) {
			return cfgErr("gate_thresholds", src, "必须严格递减：pass > polish > revise > review", "must be strictly descending: pass > polish > revise > review", t)
		}
		s.GateThresholds = t
	}
	if v, ok := raw["judge"]; ok && v != nil {
		return s.applyJudge(v, src)
	}
	return nil
}

// applyRevision reads revision.fix_mode (on|off): whether a revise round
// may be a targeted fix round (SPEC §24).
func (s *Settings) applyRevision(raw map[string]any, src string) error {
	v, ok := raw["revision"]
	if !ok || v == nil {
		return nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return cfgErr("revision", src, "必须是对象 {fix_mode}", "must be an object {fix_mode}", v)
	}
	for k, fv := range m {
		if k != "fix_mode" {
			return cfgErr("revision."+k, src, "是未知的键（可用：fix_mode）", "is not a known key (fix_mode)", fv)
		}
		str, _ := fv.(string)
		if str != FixModeOn && str != FixModeOff {
			return cfgErr("revision.fix_mode", src, "必须是 on 或 off", "must be on or off", fv)
		}
		s.FixMode = str
	}
	return nil
}

// applyJudge reads judge.weights: an object naming rubric dimensions, each
// weight 0..1; named ones replace the defaults, the rest keep theirs, and
// the resulting weights must not all be zero.
func (s *Settings) applyJudge(v any, src string) error {
	m, isObj := v.(map[string]any)
	if !isObj {
		return cfgErr("judge", src, "必须是对象 {weights}", "must be an object {weights}", v)
	}
	wv, present := m["weights"]
	if !present || wv == nil {
		return nil
	}
	wm, isObj := wv.(map[string]any)
	if !isObj {
		return cfgErr("judge.weights", src, "必须是以评分维度为键的对象", "must be an object keyed by rubric dimension", wv)
	}
	w := s.JudgeWeights
	names := make([]string, 0, len(wm))
	for name := range wm {
		names = append(names, name)
	}
	sort.Strings(names) // report the first bad key deterministically
	for _, name := range names {
		key := "judge.weights." + name
		i := rubricIndex(name)
		if i < 0 {
			return cfgErr(key, src, "不是评分维度（可用："+rubricNames()+"）", "is not a rubric dimension (known: "+rubricNames()+")", name)
		}
		f, isNum := jsonio.Float(wm[name])
		if !isNum || f < 0 || f > 1 {
			return cfgErr(key, src, "必须是 0..1 的数", "must be a number 0..1", wm[name])
		}
		w[i] = f
	}
	var sum float64
	for _, f := range w {
		sum += f
	}
	if sum <= 0 {
		return cfgErr("judge.weights", src, "权重之和必须大于 0", "the weights must sum to more than 0", wv)
	}
	s.JudgeWeights = w
	return nil
}

func rubricIndex(name string) int {
	for i, d := range eval.Rubric {
		if d.Name == name {
			return i
		}
	}
	return -1
}

func rubricNames() string {
	names := make([]string, len(eval.Rubric))
	for i, d := range eval.Rubric {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// applyLint reads the lint settings: platform, words_per_chapter,
// quote_style (SPEC §20).
func (s *Settings) applyLint(raw map[string]any, src string) error {
	if v, ok := raw["platform"]; ok && v != nil {
		str, _ := v.(string)
		if _, known := platform.Builtin(str); !known {
			names := strings.Join(platform.Names(), "、")
			return cfgErr("platform", src, "必须是 "+names+" 之一", "must be one of "+strings.Join(platform.Names(), ", "), v)
		}
		s.Platform = str
	}
	if v, ok := raw["words_per_chapter"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		if !isInt || n < MinWordsPerChapter || n > MaxWordsPerChapter {
			return cfgErr("words_per_chapter", src, fmt.Sprintf("必须是 %d..%d 的整数", MinWordsPerChapter, MaxWordsPerChapter),
				fmt.Sprintf("must be an integer %d..%d", MinWordsPerChapter, MaxWordsPerChapter), v)
		}
		s.WordsPerChapter = n
	}
	if v, ok := raw["quote_style"]; ok && v != nil {
		str, _ := v.(string)
		if str != QuoteCorner && str != QuoteCurly {
			return cfgErr("quote_style", src, "必须是 corner（「」）或 curly（“”）", "must be corner (corner brackets) or curly (curly quotes)", v)
		}
		s.QuoteStyle = str
	}
	return nil
}

// Bounds of words_per_chapter: below a few hundred 字 a chapter is not a
// web-novel chapter, above 20,000 it is a volume.
const (
	MinWordsPerChapter = 500
	MaxWordsPerChapter = 20000
)
