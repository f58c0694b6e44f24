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
	// Contracts is a batch of a volume's chapter contracts (volume:VV:contracts,
	// SPEC §23 batched planning); Review is the volume review (volume:VV:review).
	Contracts = "contracts"
	Review    = "review"
	// Audit is the optional continuity-auditor review after a commit's
	// continuity audit (SPEC §21): audit:NNN, NNN the window's last chapter.
	Audit = "audit"
)

// VolumeStages are the stages of volume steps.
var VolumeStages = []string{Plan, Contracts, Review}

// Stages lists the chapter stages in the order of a round: the one
// spelling of that order (the pipeline's positions and stamps read it).
var Stages = []string{Draft, Summarize, Refine, Judge, LogicReview, Gate, Polish, Commit}

// Agents maps agent stages to their agent names.
var Agents = map[string]string{
	Draft:       ChapterWriter,
	Summarize:   Summarizer,
	Refine:      StyleRefiner,
	Polish:      StyleRefiner,
	Judge:       QualityJudge,
	LogicReview: LogicReviewer,
	Plan:        PlotArchitect,
	Contracts:   PlotArchitect,
	Review:      PlotArchitect,
	Audit:       ContinuityAuditor,
}

// MaxNumber bounds chapter and volume numbers.
const MaxNumber = 999999

// Setup steps (SPEC §17, §25): setup:world, setup:characters,
// setup:book, setup:style.
const (
	SetupWorld      = "world"
	SetupCharacters = "characters"
	SetupBook       = "book"
	SetupStyle      = "style"
)

// SetupStages lists the setup steps in the order a new project runs them:
// the book plan needs the cast it names, the style nothing after it.
var SetupStages = []string{SetupWorld, SetupCharacters, SetupBook, SetupStyle}

// SetupAgents maps setup stages to their agents.
var SetupAgents = map[string]string{
	SetupWorld:      WorldBuilder,
	SetupCharacters: CharacterWeaver,
	SetupBook:       PlotArchitect,
	SetupStyle:      StyleAnalyzer,
}

// SetupMode is the packet mode of a setup stage: "book" for the
// plot-architect's book plan (its other modes are volume work), "setup"
// for the setup agents.
func SetupMode(stage string) string {
	if stage == SetupBook {
		return ModeBook
	}
	return ModeSetup
}

// Step is a parsed step id.
type Step struct {
	Setup   bool // setup:STAGE (Number is 0)
	Volume  bool // volume:VV:plan
	Number  int  // chapter or volume number
	Stage   string
	Chapter int // == Number for chapter steps
}

// String is the normalised id.
func (s Step) String() string {
	if s.Setup {
		return "setup:" + s.Stage
	}
	if s.Stage == Audit {
		return "audit:" + layout.Pad(s.Number)
	}
	if s.Volume {
		return "volume:" + layout.PadVol(s.Number) + ":" + s.Stage
	}
	return "chapter:" + layout.Pad(s.Number) + ":" + s.Stage
}

// IsAgent reports whether an agent performs the step.
func (s Step) IsAgent() bool { return s.Agent() != "" }

// Agent is the agent name ("" for deterministic steps).
func (s Step) Agent() string {
	if s.Setup {
		return SetupAgents[s.Stage]
	}
	return Agents[s.Stage]
}

// Setup builds a setup step.
func Setup(stage string) Step { return Step{Setup: true, Stage: stage} }

// AuditStep builds audit:NNN for the window ending at chapter c. Audit
// steps are not checkpoint steps: Parse refuses them (novel-step has
// nothing to validate or advance for one); ParseAudit reads them
// (novel-manifest's packet, the agent route's novel next).
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
		Hint("格式为 chapter:NNN:STAGE（STAGE ∈ draft summarize refine judge logic-review gate polish commit）、volume:VV:{plan|contracts|review} 或 setup:world|characters|book|style",
			"use chapter:NNN:STAGE (STAGE in draft summarize refine judge logic-review gate polish commit), volume:VV:{plan|contracts|review} or setup:world|characters|book|style")
}

// Parse parses an id; surrounding space is trimmed, case matters.
func Parse(id string) (Step, error) {
	s := strings.TrimSpace(id)
	parts := strings.Split(s, ":")
	if len(parts) == 2 && parts[0] == "setup" {
		for _, st := range SetupStages {
			if parts[1] == st {
				return Setup(st), nil
			}
		}
		return Step{}, bad(id, "未知的设定步骤 "+strconv.Quote(parts[1])+"（world、characters、book 或 style）", "unknown setup step "+strconv.Quote(parts[1])+" (world, characters, book or style)")
	}
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
		for _, st := range VolumeStages {
			if parts[2] == st {
				return Step{Volume: true, Number: n, Stage: st}, nil
			}
		}
		return Step{}, bad(id, "卷步骤只有 plan、contracts、review", "volume steps are plan, contracts and review")
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
