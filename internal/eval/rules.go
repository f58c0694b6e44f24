package eval

import (
	"sort"

	"github.com/novelsuite/novel/internal/errs"
)

// CheckRules requires one contract_verification.l1_checks line per rule in
// play (SPEC §25 "Rules checked one by one"): status pass or violation and
// at least one evidence quote found verbatim in the judged chapter (the
// same normalisation and bounds as the dimension quotes, §24). A missing
// rule or a line without a usable quote is E_SCHEMA naming the rule, so
// the re-ask can quote it. inPlay are the W-ids of the judge packet's
// rules_in_play; chapters as for Strict (none: quote lengths only). A
// knowledge (l2) or story_time (l3) violation must quote the chapter too.
func (e *Eval) CheckRules(inPlay []string, chapters ...string) error {
	rel := e.File
	l1 := map[string]Check{}
	for _, c := range e.Checks {
		if _, dup := l1[c.ID]; c.Level == "l1" && !dup {
			l1[c.ID] = c
		}
	}
	ids := append([]string(nil), inPlay...)
	sort.Strings(ids)
	texts := NewQuoteTexts(chapters...)
	for _, id := range ids {
		c, ok := l1[id]
		if !ok {
			return rulesErr(rel, id, "本章涉及的规则 %s 不在 contract_verification.l1_checks 中（每条涉及的规则都要单独核对，并摘录正文）",
				"the rule in play %s is not in contract_verification.l1_checks (check every rule in play one by one, with a quote from the chapter)", id)
		}
		if c.Status != "pass" && c.Status != "violation" {
			return rulesErr(rel, id, "规则 %s 的 l1 核对状态为 %q；涉及的规则只能是 pass 或 violation",
				"the l1 check of rule %s has status %q; a rule in play is pass or violation", id, c.Status)
		}
		if len(c.Quotes) == 0 {
			return rulesErr(rel, id, "规则 %s 的 l1 核对没有 evidence（摘录核对所依据的正文，pass 也要）",
				"the l1 check of rule %s has no evidence (quote the passage of the chapter it was checked against, for a pass too)", id)
		}
		if f, bad := firstQuoteFault(texts, c.Quotes); bad {
			return f.err(func(zh, en string, a ...any) *errs.Error { return rulesErr(rel, id, zh, en, a...) }, "规则 "+id, "rule "+id)
		}
	}
	// The ledger checks of SPEC §25: a violation names a passage.
	for _, c := range e.Checks {
		if !ledgerChecks[c.ID] || !c.IsViolation() {
			continue
		}
		at := c.Level + " check " + c.ID
		if len(c.Quotes) == 0 {
			return ledgerErr(rel, c, "%s 判为 violation 却没有 evidence（逐字摘录那段正文）", "the %s is a violation without evidence (quote the passage verbatim)", at)
		}
		if f, bad := firstQuoteFault(texts, c.Quotes); bad {
			return f.err(func(zh, en string, a ...any) *errs.Error { return ledgerErr(rel, c, zh, en, a...) }, at, "the "+at)
		}
	}
	return nil
}

// ledgerChecks are the check ids of the story ledgers whose violations
// must quote the chapter: who knows what (l2) and the story clock (l3).
var ledgerChecks = map[string]bool{"knowledge": true, "story_time": true}

// ledgerErr is CheckRules' E_SCHEMA for a ledger check.
func ledgerErr(rel string, c Check, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, append([]any{rel}, args...)...).
		With("file", rel).With("field", "contract_verification."+c.Level+"_checks").With("check", c.ID).
		Hint("给这条 violation 写上 evidence：逐字摘录正文中出问题的那句；然后重新运行 judge 步骤",
			"give the violation an evidence quote taken verbatim from the chapter, then run the judge step again")
}

// rulesErr is CheckRules' E_SCHEMA, naming the file and the rule.
func rulesErr(rel, rule, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, append([]any{rel}, args...)...).
		With("file", rel).With("field", "contract_verification.l1_checks").With("rule", rule).
		Hint("在 contract_verification.l1_checks 中为指令包 rules_in_play 的每条规则写一行 {id,status,confidence,evidence}，evidence 逐字摘录正文；然后重新运行 judge 步骤",
			"give every rule of the packet's rules_in_play its own contract_verification.l1_checks line {id,status,confidence,evidence} with a verbatim quote of the chapter, then run the judge step again")
}
