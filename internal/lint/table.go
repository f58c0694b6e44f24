package lint

import "github.com/novelsuite/novel/internal/stepid"

// Check ids, in report order (SPEC §20).
const (
	Length         = "length"
	Heading        = "heading"
	ModelArtifacts = "model_artifacts"
	MetaLeak       = "meta_leak"
	Quotes         = "quotes"
	Dashes         = "dashes"
	AIPatterns     = "ai_patterns"
	BlacklistCheck = "blacklist"
	Repetition     = "repetition"
	SummaryLines   = "summary_lines"
	Paragraphs     = "paragraphs"
)

// Severities.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// Stages a chapter text is linted at. Only a draft may end with the
// writer's hints block; a refined, polished or committed text still
// carrying one has a leftover.
const (
	StageDraft     = stepid.Draft
	StageRefine    = stepid.Refine
	StagePolish    = stepid.Polish
	StageCommitted = "committed"
)

// GateBlocking are the checks whose error keeps a chapter from passing the
// gate: no judge score makes a too-short chapter or a model's leftovers
// publishable.
var GateBlocking = []string{Length, ModelArtifacts}

// Thresholds is the one table of lint limits (SPEC §20). Rates are per
// 1000 words of the chapter's word count; a check fires when the measure
// is strictly above its limit.
var Thresholds = struct {
	HeadingTitleMax     int // runes of the title after 第N章
	DashesPerK          int // —— runs
	EllipsesPerK        int // …… runs
	NotButPerChapter    int // 不是…而是… frames
	SimilesPerK         int // 仿佛/宛如/犹如/好似
	ConnectorsPerK      int // 然而/因此/与此同时/不仅如此 in narration
	EmotionPerChapter   int // 他/她感到…, 心中涌起一股…
	BlacklistPerK       int // effective blacklist hits
	ParagraphMaxWords   int // one paragraph on a phone screen
	EvidenceMax         int // evidence lines kept per check
	ExcerptBefore       int // runes of context before a hit
	ExcerptAfter        int // runes of context after a hit's start
	BlacklistWordsShown int // words named in the blacklist detail
	RepeatPhraseChars   int // a repeated phrase is at least this long
	RepeatPhraseTimes   int // … and occurs at least this often in a chapter
	RepeatFrameChars    int // a sentence frame shared with the previous chapter
}{
	HeadingTitleMax:     30,
	DashesPerK:          1,
	EllipsesPerK:        2,
	NotButPerChapter:    1,
	SimilesPerK:         3,
	ConnectorsPerK:      2,
	EmotionPerChapter:   2,
	BlacklistPerK:       3,
	ParagraphMaxWords:   200,
	EvidenceMax:         5,
	ExcerptBefore:       12,
	ExcerptAfter:        24,
	BlacklistWordsShown: 5,
	RepeatPhraseChars:   4,
	RepeatPhraseTimes:   5,
	RepeatFrameChars:    8,
}

// Word lists the checks look for.
var (
	// chatPhrases are an assistant talking to its user, not a narrator;
	// they count only at the start of a line of narration (notes.go).
	chatPhrases = []string{
		"好的，以下是", "好的,以下是", "好的！以下是", "以下是本章", "以下是第", "以下是修改后", "以下是润色后", "以下是改写后",
		"希望对你有帮助", "希望对您有帮助", "希望这个版本", "如需调整", "如果需要修改",
		"作为一个AI语言模型", "作为一个 AI 语言模型", "作为AI语言模型", "作为一个AI助手", "作为AI助手", "作为 AI 助手", "作为一个人工智能", "作为人工智能助手",
		"如果你需要，我可以", "如果您需要，我可以",
		"（字数", "(字数", "【字数", "字数统计",
	}
	similes     = []string{"仿佛", "宛如", "犹如", "好似"}
	connectors  = []string{"然而", "因此", "与此同时", "不仅如此"}
	emotionTags = []string{"他感到", "她感到", "心中涌起一股", "心头涌起一股", "心底涌起一股"}
)
