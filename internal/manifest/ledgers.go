package manifest

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/stateops"
)

// RuleInPlay is one entry of a judge or logic-review packet's
// rules_in_play (SPEC §25): a hard rule the chapter's plan names or whose
// keywords occur in the chapter text. The judge's eval must check each one
// in contract_verification.l1_checks (eval.CheckRules).
type RuleInPlay struct {
	ID         string   `json:"id"`
	Category   string   `json:"category,omitempty"`
	Rule       string   `json:"rule"`
	Exceptions []string `json:"exceptions,omitempty"`
	// Named is true when the contract or the outline block names the rule.
	Named bool `json:"named"`
	// Keywords are the rule's keywords found in the chapter text.
	Keywords []string `json:"keywords_found,omitempty"`
}

var ruleIDRE = lazyre.New(`W-[0-9]{3}`)

// rulesInPlay sets inline rules_in_play: the hard rules named (W-id) by
// the contract or the outline block, plus those whose keywords occur in
// text (the chapter under review), sorted by id. Always set (an empty
// list when none), so the judge knows there is nothing to list.
func (b *builder) rulesInPlay(text string) error {
	rules, _, err := loadRules(b.root)
	if err != nil {
		return err
	}
	plan := ""
	if b.blk != nil {
		plan = b.blk.Text
	}
	if b.contract != nil {
		ct, err := b.root.ReadText(b.contract.Rel)
		if err != nil {
			return err
		}
		plan += "\n" + ct
	}
	named := map[string]bool{}
	for _, id := range ruleIDRE().FindAllString(plan, -1) {
		named[id] = true
	}
	out := []RuleInPlay{}
	for _, r := range rules {
		var found []string
		for _, k := range r.Keywords {
			if text != "" && strings.Contains(text, k) {
				found = append(found, k)
			}
		}
		if !named[r.ID] && len(found) == 0 {
			continue
		}
		out = append(out, RuleInPlay{ID: r.ID, Category: r.Category, Rule: r.Rule, Exceptions: r.Exceptions, Named: named[r.ID], Keywords: found})
	}
	b.in.Set(keyRulesInPlay, out)
	return nil
}

// stagingText is the staging chapter's text, "" while it does not exist.
func (b *builder) stagingText() (string, error) {
	rel := layout.StagingChapter(b.c)
	if !b.has(rel) {
		return "", nil
	}
	return products.ChapterText(b.root, rel)
}

// storyTime sets inline story_time (SPEC §25): the clock each of the
// previous three chapters set (from the changelog's tail; the state's
// opening value when none did) and, with current, the one this chapter's
// staged delta sets — what the writer continues from and what the judge
// checks relative-time words (昨夜, 三天后 …) against. Absent when the
// project keeps no clock.
func (b *builder) storyTime(current bool) error {
	out, err := changelog.StoryTimes(b.root, max(1, b.c-3), b.c-1)
	if err != nil {
		return err
	}
	if len(out) == 0 && b.has(layout.CurrentState) {
		// The state's opening value, from the members this packet reads
		// once anyway (a long book's state is megabytes). A state that does
		// not parse is reported by the slice and by integrity, not here.
		if top, err := b.stateTop(); err == nil && bytes.Contains(top["world_state"], []byte(`"story_time"`)) {
			var ws map[string]any
			if json.Unmarshal(top["world_state"], &ws) == nil {
				if day, label, ok := stateops.StoryTime(ws["story_time"]); ok && day > 0 {
					out = append(out, changelog.ChapterTime{Chapter: b.c - 1, Day: day, Label: label})
				}
			}
		}
	}
	if current && b.has(layout.StagingDelta(b.c)) {
		if d, err := products.ReadDelta(b.root, b.c); err == nil {
			for i := len(d.Ops) - 1; i >= 0; i-- {
				v, err := stateops.Decode(d.Ops[i])
				if err != nil {
					continue
				}
				if op, reason := stateops.Validate(v); reason == "" && op.Kind == stateops.Set && op.Path == stateops.StoryTimePath {
					day, label, _ := stateops.StoryTime(op.Value)
					out = append(out, changelog.ChapterTime{Chapter: b.c, Day: day, Label: label})
					break
				}
			}
		}
	}
	if len(out) > 0 {
		b.in.Set(keyStoryTime, out)
	}
	return nil
}

// castKnows sets inline cast_knows for the judge (SPEC §25): each cast
// member's knows list from the state ({slug: [fact, …]}, cast order by
// slug), so a character acting on a fact they never learned can be
// flagged (l2_checks id knowledge). The writer, summarizer and logic
// reviewer read the same lists in their state slice.
func (b *builder) castKnows(draft string) error {
	if !b.root.Exists(layout.CurrentState) {
		return nil
	}
	data, err := b.root.MapFile(layout.CurrentState)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(`"`+stateops.KnowsField+`"`)) {
		return nil
	}
	top, err := stateMembers(data)
	if err != nil {
		return rebuildHint(b.root, err)
	}
	cast, err := b.castSlugs(draft)
	if err != nil {
		return err
	}
	out := stateKnows(top, cast)
	if out.Len() > 0 {
		b.in.Set(keyCastKnows, out)
	}
	return nil
}

// stateKnows is {slug: knows} for the cast members of the state's
// top-level members that have a knows list, by slug.
func stateKnows(top map[string]json.RawMessage, cast map[string]bool) *OMap {
	known := map[string][]string{}
	splitGroup(top["characters"], func(k string, v json.RawMessage) {
		if !cast[k] {
			return
		}
		jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
			var facts []string
			if string(key) == stateops.KnowsField && json.Unmarshal(val, &facts) == nil && len(facts) > 0 {
				known[k] = facts
			}
		})
	})
	slugs := make([]string, 0, len(known))
	for s := range known {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	out := &OMap{}
	for _, s := range slugs {
		out.Set(s, known[s])
	}
	return out
}

// ContinuityNote is one entry of continuity_notes: a high-severity finding
// of the newest continuity review that the story must honour from now on.
type ContinuityNote struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Entities    []string `json:"entities,omitempty"`
	Chapters    []int    `json:"chapters"`
	Fix         string   `json:"fix,omitempty"`
}

// continuityNotes sets inline continuity_notes for the writer and the
// judge (SPEC §25): the high-severity findings of the newest continuity
// review (audit.AgentLatest) of a window that ended before this chapter.
// A later review replaces the file, which clears what it no longer finds.
func (b *builder) continuityNotes() error {
	if !b.has(audit.AgentLatest) {
		return nil
	}
	var rep audit.Report
	if err := b.root.ReadJSON(audit.AgentLatest, &rep); err != nil {
		return err
	}
	if rep.ChapterRange[1] >= b.c {
		return nil // a review of this very chapter (an amend's packet)
	}
	notes := []ContinuityNote{}
	for _, is := range rep.Issues {
		if is.Severity != "high" {
			continue
		}
		n := ContinuityNote{ID: is.ID, Type: is.Type, Description: is.Description, Entities: is.Entities, Chapters: []int{}, Fix: is.Fix}
		for _, ev := range is.Evidence {
			if !slices.Contains(n.Chapters, ev.Chapter) {
				n.Chapters = append(n.Chapters, ev.Chapter)
			}
		}
		notes = append(notes, n)
	}
	if len(notes) > 0 {
		b.in.Set(keyContinuityNotes, notes)
	}
	return nil
}
