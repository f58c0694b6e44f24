package stepid

// Agent names (SPEC §3): the one spelling of every role the pipeline and
// the setup steps hand to novel-agent.
const (
	ChapterWriter     = "chapter-writer"
	Summarizer        = "summarizer"
	StyleRefiner      = "style-refiner"
	QualityJudge      = "quality-judge"
	LogicReviewer     = "logic-reviewer"
	PlotArchitect     = "plot-architect"
	WorldBuilder      = "world-builder"
	CharacterWeaver   = "character-weaver"
	StyleAnalyzer     = "style-analyzer"
	ContinuityAuditor = "continuity-auditor"
)

// Agent modes (SPEC §6): the packet's agent.mode.
const (
	ModeDraft     = "draft"
	ModeRevision  = "revision"
	ModeFix       = "fix" // a targeted revision: replacements applied by code (SPEC §24)
	ModeSummarize = "summarize"
	ModeRefine    = "refine"
	ModePolish    = "polish"
	ModePrimary   = RolePrimary
	ModeSecondary = RoleSecondary
	ModeReview    = "review"
	ModePlan      = "plan"
	ModeContracts = "contracts"
	ModeSetup     = "setup"
	ModeBook      = "book" // setup:book, the plot-architect's whole-book plan (SPEC §25)
	ModeAmend     = "amend"
	ModeBackfill  = "backfill"
)

// Judge roles: the first judge of every chapter and the strong second
// judge of a key chapter (--role, the packet's mode, the gate's eval_used).
const (
	RolePrimary   = "primary"
	RoleSecondary = "secondary"
)
