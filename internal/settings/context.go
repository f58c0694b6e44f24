package settings

import (
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
)

// BudgetRoles and DefaultBudgets are the per-role packet token budgets of
// SPEC §19 (settings.json context.budget_tokens.{role}), in one order.
var (
	BudgetRoles    = [...]string{"draft", "summarize", "refine", "judge", "logic-review", "plan", "setup"}
	defaultBudgets = [len(BudgetRoles)]int{24000, 16000, 8000, 20000, 20000, 24000, 16000}
)

func budgetIndex(role string) int {
	for i, r := range BudgetRoles {
		if r == role {
			return i
		}
	}
	return -1
}

// Budget is the token budget of a packet role (0 when the role has none).
func (s Settings) Budget(role string) int {
	i := budgetIndex(role)
	if i < 0 {
		return 0
	}
	if n := s.BudgetTokens[i]; n > 0 {
		return n
	}
	return defaultBudgets[i]
}

// defaultRecallTokens bounds a packet's recall (SPEC §25,
// context.recall_tokens).
const defaultRecallTokens = 2500

// Recall is the token bound of a draft or judge packet's recall.
func (s Settings) Recall() int {
	if s.RecallTokens > 0 {
		return s.RecallTokens
	}
	return defaultRecallTokens
}

// applyContext reads context.budget_tokens: an object naming roles of
// BudgetRoles, each an integer 1..1,000,000 (named ones replace the
// defaults); and context.recall_tokens, an integer 1..1,000,000.
func (s *Settings) applyContext(raw map[string]any, src string) error {
	v, ok := raw["context"]
	if !ok || v == nil {
		return nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return cfgErr("context", src, "必须是对象 {budget_tokens}", "must be an object {budget_tokens}", v)
	}
	if rv, ok := m["recall_tokens"]; ok && rv != nil {
		n, isInt := jsonio.Int(rv)
		if !isInt || n < 1 || n > 1000000 {
			return cfgErr("context.recall_tokens", src, "必须是 1..1000000 的整数（token）", "must be an integer 1..1000000 (tokens)", rv)
		}
		s.RecallTokens = n
	}
	bv, ok := m["budget_tokens"]
	if !ok || bv == nil {
		return nil
	}
	bm, isObj := bv.(map[string]any)
	if !isObj {
		return cfgErr("context.budget_tokens", src, "必须是以角色为键的对象", "must be an object keyed by role", bv)
	}
	roles := BudgetRoles[:]
	keys := make([]string, 0, len(bm))
	for k := range bm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := "context.budget_tokens." + k
		i := budgetIndex(k)
		if i < 0 {
			return cfgErr(key, src, "未知角色，只能是 "+strings.Join(roles, "、"), "unknown role; use one of "+strings.Join(roles, ", "), k)
		}
		n, isInt := jsonio.Int(bm[k])
		if !isInt || n < 1 || n > 1000000 {
			return cfgErr(key, src, "必须是 1..1000000 的整数（token）", "must be an integer 1..1000000 (tokens)", bm[k])
		}
		s.BudgetTokens[i] = n
	}
	return nil
}
