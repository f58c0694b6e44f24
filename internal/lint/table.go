package lint

import (
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/stepid"
)

// Check ids, in report order (SPEC §20).
const (
	Length         = "length"
	Heading        = "heading"
	ModelArtifacts = "model_artifacts"
	MetaLeak       = "meta_leak"
	Quotes         = "quotes"
	Dashes         = "dashes"
	AIPatterns     = "ai_patterns"
	blacklistCheck = "blacklist"
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

// thresholds is the one table of lint limits (SPEC §20). Rates are per
// 1000 words of the chapter's word count; a check fires when the measure
// is strictly above its limit.
var thresholds = struct {
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
	// chatLineRE is an assistant talking to its user, not a narrator. It
	// counts only at the start of a line's narration (after indentation
	// and Markdown emphasis, never inside quotes): the same words inside a
	// sentence — 「作为一个AI研究员，他…」, 「如果你需要钱，就去码头」,
	// 「…，以下是第一条」 — are story (SPEC §24, field trial F23).
	chatLineRE = lazyre.New(`^(?:` +
		`好的[，,！!。.]?\s*以下是` +
		`|以下是(?:本章|第[0-9一二三四五六七八九十百千零〇两]+章|修改后|润色后|改写后|优化后)` +
		`|希望(?:对你|对您)有(?:所)?帮助|希望这个版本|希望这一版|希望本章|希望(?:你|您)(?:喜欢|满意)` +
		`|如需[^。！？]{0,10}?[，,]?\s*(?:请|可以|随时)?(?:告诉我|联系我|让我知道)` +
		`|如果(?:你|您)(?:想|觉得|希望)[^。！？]{0,20}[，,]\s*(?:我可以|请告诉我|随时告诉我|可以告诉我)` +
		`|作为(?:一个|一名)?\s*(?:AI|人工智能)\s*(?:语言模型|助手|模型)` +
		`|(?:如果|如)(?:你|您)?需要?[^，,。！？]{0,10}[，,]\s*(?:我可以|请告诉我|随时告诉我|可以告诉我)` +
		`|[（(【]字数|字数统计[：:])`)
	// chatLead is what may precede a chat line's first word.
	chatLead    = " \t　*_>"
	similes     = []string{"仿佛", "宛如", "犹如", "好似"}
	connectors  = []string{"然而", "因此", "与此同时", "不仅如此"}
	emotionTags = []string{"他感到", "她感到", "心中涌起一股", "心头涌起一股", "心底涌起一股"}
)
