package foreshadow

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/lazyre"
)

// Actions a chapter's plan gives a foreshadowing item (SPEC §24).
const (
	ActionPlant   = "plant"
	ActionAdvance = "advance"
	ActionResolve = "resolve"
)

// Named is an F-id a chapter's outline block or contract names, with the
// action the text gives it and the description in brackets after it.
type Named struct {
	ID, Action, Description string
}

var (
	namedRE = lazyre.New(`F-[0-9]+`)
	// verbs, longest first; the last one before an id in its sentence wins
	actionWords = []struct{ word, action string }{
		{"埋设", ActionPlant}, {"埋下", ActionPlant}, {"埋入", ActionPlant}, {"plant", ActionPlant}, {"埋", ActionPlant},
		{"推进", ActionAdvance}, {"advance", ActionAdvance},
		{"回收", ActionResolve}, {"揭晓", ActionResolve}, {"resolve", ActionResolve},
	}
)

// NamedInPlan reads the F-ids of a plan text in order (each once, the
// first mention wins). An id's action is the last action verb before it
// in the same sentence (a sentence ends at 。；; or a line break, so
// "埋下 F-001、F-002" plants both); without one it is advance.
func NamedInPlan(text string) []Named {
	var out []Named
	seen := map[string]bool{}
	for _, loc := range namedRE().FindAllStringIndex(text, -1) {
		id := text[loc[0]:loc[1]]
		if loc[1] < len(text) && text[loc[1]] >= '0' && text[loc[1]] <= '9' {
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		start := strings.LastIndexAny(text[:loc[0]], "。；;\n") + 1
		n := Named{ID: id, Action: ActionAdvance, Description: bracketed(text[loc[1]:])}
		best := -1
		for _, w := range actionWords {
			if i := strings.LastIndex(text[start:loc[0]], w.word); i > best {
				best, n.Action = i, w.action
			}
		}
		out = append(out, n)
	}
	return out
}

// bracketed is the text of a （…） or (…) right after an id.
func bracketed(s string) string {
	s = strings.TrimLeft(s, " ")
	for _, p := range [][2]string{{"（", "）"}, {"(", ")"}} {
		if rest, ok := strings.CutPrefix(s, p[0]); ok {
			if i := strings.Index(rest, p[1]); i > 0 {
				return strings.TrimSpace(rest[:i])
			}
		}
	}
	return ""
}

// WithPlan adds the plan's named items to a packet's tasks: a task
// already there gets the named action; an item the query left out comes
// from the fact layer or the volume plan (without history); an id found
// in neither is a new task with the plan's description. Tasks stay in id
// order.
func WithPlan(tasks []Output, named []Named, global, plan []Item) []Output {
	if len(named) == 0 {
		return tasks
	}
	g, p := index(global), index(plan)
	at := map[string]int{}
	for i, t := range tasks {
		at[t.ID] = i
	}
	for _, n := range named {
		if i, ok := at[n.ID]; ok {
			tasks[i].Action = n.Action
			continue
		}
		var o Output
		if _, ok := g[n.ID]; ok {
			o = Output{Item: merged(n.ID, g, p)}
		} else if _, ok := p[n.ID]; ok {
			o = Output{Item: merged(n.ID, g, p)}
		} else {
			o = Output{Item: newPlanItem(n)}
		}
		o.dropHistory()
		o.Action = n.Action
		at[n.ID] = len(tasks)
		tasks = append(tasks, o)
	}
	sort.SliceStable(tasks, func(a, b int) bool { return tasks[a].ID < tasks[b].ID })
	return tasks
}

func newPlanItem(n Named) Item {
	raw := map[string]json.RawMessage{}
	id, _ := jsonio.MarshalLine(n.ID)
	raw["id"] = json.RawMessage(strings.TrimSpace(string(id)))
	if n.Description != "" {
		d, _ := jsonio.MarshalLine(n.Description)
		raw["description"] = json.RawMessage(strings.TrimSpace(string(d)))
	}
	return Item{ID: n.ID, Description: n.Description, raw: raw}
}
