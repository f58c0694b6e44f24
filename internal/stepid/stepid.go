// Package stepid parses and formats step ids: chapter:NNN:STAGE and
// volume:VV:plan (SPEC §3).
package stepid

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
)

// Chapter stages in pipeline order.
const (
	Draft       = "draft"
	Summarize   = "summarize"
	Refine      = "refine"
	Judge       = "judge"
	LogicReview = "logic-review"
	Gate        = "gate"
	Polish      = "polish"
	Commit      = "commit"
	Plan        = "plan"
	// Audit is the optional continuity-auditor review after a commit's
	// continuity audit (SPEC §21): audit:NNN, NNN the window's last chapter.
	Audit = "audit"
)

// Stages lists the chapter stages.
var Stages = []string{Draft, Summarize, Refine, Judge, LogicReview, Gate, Polish, Commit}

// Agents maps agent stages to their agent names.
var Agents = map[string]string{
	Draft:       "chapter-writer",
	Summarize:   "summarizer",
	Refine:      "style-refiner",
	Polish:      "style-refiner",
	Judge:       "quality-judge",
	LogicReview: "logic-reviewer",
	Plan:        "plot-architect",
	Audit:       "continuity-auditor",
}

// MaxNumber bounds chapter and volume numbers.
const MaxNumber = 999999

// Step is a parsed step id.
type Step struct {
	Volume  bool // volume:VV:plan
	Number  int  // chapter or volume number
	Stage   string
	Chapter int // == Number for chapter steps
}

// String is the normalised id.
func (s Step) String() string {
	if s.Stage == Audit {
		return "audit:" + layout.Pad(s.Number)
	}
	if s.Volume {
		return "volume:" + layout.PadVol(s.Number) + ":" + s.Stage
	}
	return "chapter:" + layout.Pad(s.Number) + ":" + s.Stage
}

// IsAgent reports whether an agent performs the step.
func (s Step) IsAgent() bool { _, ok := Agents[s.Stage]; return ok }

// Agent is the agent name ("" for deterministic steps).
func (s Step) Agent() string { return Agents[s.Stage] }

// AuditStep builds audit:NNN for the window ending at chapter c. Audit
// steps are not checkpoint steps: Parse refuses them (novel-step and
// novel-manifest have nothing to do for one); ParseAudit reads them.
func AuditStep(c int) Step { return Step{Number: c, Chapter: c, Stage: Audit} }

// ParseAudit parses audit:NNN.
func ParseAudit(id string) (Step, error) {
	s := strings.TrimSpace(id)
	num, ok := strings.CutPrefix(s, "audit:")
	if !ok {
		return Step{}, bad(id, "审计步骤的格式是 audit:NNN", "an audit step is audit:NNN")
	}
	n, ok := number(num)
	if !ok {
		return Step{}, bad(id, "编号必须是 1 到 999999 的十进制数", "the number must be a decimal 1..999999")
	}
	return AuditStep(n), nil
}

// Chapter builds a chapter step.
func Chapter(c int, stage string) Step { return Step{Number: c, Chapter: c, Stage: stage} }

func bad(id, zh, en string) error {
	return errs.New(errs.StepID, fmt.Sprintf("步骤 id %q 无效：%s", id, zh), fmt.Sprintf("invalid step id %q: %s", id, en)).
		With("step", id).
		Hint("格式为 chapter:NNN:STAGE（STAGE ∈ draft summarize refine judge logic-review gate polish commit）或 volume:VV:plan",
			"use chapter:NNN:STAGE (STAGE in draft summarize refine judge logic-review gate polish commit) or volume:VV:plan")
}

// Parse parses an id; surrounding space is trimmed, case matters.
func Parse(id string) (Step, error) {
	s := strings.TrimSpace(id)
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Step{}, bad(id, "应有三段，用冒号分隔", "want three colon-separated parts")
	}
	n, ok := number(parts[1])
	if !ok {
		return Step{}, bad(id, "编号必须是 1 到 999999 的十进制数", "the number must be a decimal 1..999999")
	}
	switch parts[0] {
	case "chapter":
		for _, st := range Stages {
			if parts[2] == st {
				return Step{Number: n, Chapter: n, Stage: st}, nil
			}
		}
		return Step{}, bad(id, "未知阶段 "+strconv.Quote(parts[2]), "unknown stage "+strconv.Quote(parts[2]))
	case "volume":
		if parts[2] != Plan {
			return Step{}, bad(id, "卷步骤只有 plan", "the only volume step is plan")
		}
		return Step{Volume: true, Number: n, Stage: Plan}, nil
	}
	return Step{}, bad(id, "类型必须是 chapter 或 volume", "kind must be chapter or volume")
}

// number accepts ASCII digits only (any zero padding), value 1..MaxNumber.
func number(s string) (int, bool) {
	n, ok := Decimal(s)
	return n, ok && n >= 1 && n <= MaxNumber
}

// Decimal reads a number written as ASCII digits only, in base 10 whatever
// its zero padding ("010" is 10, "08" is 8): no sign, no base prefix, no
// underscores, no space. It is the one reader of numbers typed by a user
// (step ids, command-line flags); a value too long for an int reads as
// math.MaxInt, so every range check refuses it.
func Decimal(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return 0, true
	}
	if len(t) > 18 {
		return math.MaxInt, true
	}
	n, _ := strconv.Atoi(t)
	return n, true
}
