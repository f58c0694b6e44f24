// Package audit is the deterministic sliding-window consistency audit of
// committed chapters (`novel-audit continuity`, SPEC §21): dead characters
// who act again, location jumps without a location op, items used by
// someone other than their owner, day markers going backwards on a
// storyline, and dormant foreshadowing. No NLP: the known entities come
// from the entity map, the state and the changelog, and the text is
// searched for them sentence by sentence.
package audit

// Report is logs/continuity/latest.json (and continuity-report-NNN.json).
// It keeps the plugin's periodic report shape (schema_version, scope,
// chapter_range, issues with id/type/severity/confidence/description/
// evidence/suggestion, stats), so the judge packet's summary and the
// plugin's readers read it unchanged.
type Report struct {
	SchemaVersion int     `json:"schema_version"`
	Scope         string  `json:"scope"`
	ChapterRange  [2]int  `json:"chapter_range"`
	GeneratedAt   string  `json:"generated_at"`
	Issues        []Issue `json:"issues"`
	Stats         Stats   `json:"stats"`
}

// Issue is one finding.
type Issue struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Severity    string     `json:"severity"`
	Confidence  string     `json:"confidence"`
	Description string     `json:"description"`
	Entities    []string   `json:"entities"`
	Evidence    []Evidence `json:"evidence"`
	Suggestion  string     `json:"suggestion"`
	// Fix names the command that repairs a committed chapter's text (an
	// agent review's high-severity findings, SPEC §25).
	Fix string `json:"fix,omitempty"`
}

// Evidence is where a finding shows.
type Evidence struct {
	Chapter int    `json:"chapter"`
	Excerpt string `json:"excerpt"`
}

// Stats counts what was checked and found.
type Stats struct {
	Chapters   int            `json:"chapters"`
	Characters int            `json:"characters"`
	Locations  int            `json:"locations"`
	Items      int            `json:"items"`
	High       int            `json:"high"`
	Medium     int            `json:"medium"`
	Low        int            `json:"low"`
	ByType     map[string]int `json:"by_type"`
}

// Issue types and their severities (SPEC §21).
const (
	DeadCharacter        = "dead_character"
	LocationJump         = "location_jump"
	ItemOwner            = "item_owner"
	TimelineRegression   = "timeline_regression"
	DormantForeshadowing = "dormant_foreshadowing"
)

var severity = map[string]string{
	DeadCharacter: "high", LocationJump: "medium", ItemOwner: "medium",
	TimelineRegression: "medium", DormantForeshadowing: "low",
}

// Types lists the checks in report order.
var Types = []string{DeadCharacter, LocationJump, ItemOwner, TimelineRegression, DormantForeshadowing}
