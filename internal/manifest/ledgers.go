package manifest

import (
	"regexp"
	"strings"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
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

var ruleIDRE = regexp.MustCompile(`W-[0-9]{3}`)

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
	for _, id := range ruleIDRE.FindAllString(plan, -1) {
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
