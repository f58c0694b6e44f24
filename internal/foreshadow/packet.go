package foreshadow

import (
	"encoding/json"
	"sort"
)

// MaxOverdueTasks and MaxReminders bound what a packet carries (SPEC §19,
// §21).
const (
	MaxOverdueTasks = 10
	MaxReminders    = 5
)

// PacketTasks is Query trimmed for an instruction packet (SPEC §19): no
// item carries its history, and of the overdue short items only the
// MaxOverdueTasks longest overdue (then by id) stay; the rest keep the
// query's id order. Items are parsed in full only when kept (a long
// project has hundreds overdue). dropped counts the overdue items left
// out.
func PacketTasks(global, plan []Item, c, volume int) (out []Output, dropped int) {
	_, ids, g, p := selectItems(global, plan, c, volume)
	// Overdue is judged on the global item, as Query does.
	var overdue []string
	end := map[string]int{}
	for _, id := range ids {
		if it, ok := g[id]; ok && OverdueShort(it, c) {
			overdue = append(overdue, id)
			_, end[id], _ = it.Range()
		}
	}
	drop := map[string]bool{}
	if len(overdue) > MaxOverdueTasks {
		sort.SliceStable(overdue, func(a, b int) bool {
			if end[overdue[a]] != end[overdue[b]] {
				return end[overdue[a]] < end[overdue[b]] // longest overdue first
			}
			return overdue[a] < overdue[b]
		})
		for _, id := range overdue[MaxOverdueTasks:] {
			drop[id] = true
		}
		dropped = len(overdue) - MaxOverdueTasks
	}
	out = make([]Output, 0, len(ids)-dropped)
	for _, id := range ids {
		if drop[id] {
			continue
		}
		o := Output{Item: merged(id, g, p)}
		o.dropHistory()
		out = append(out, o)
	}
	return out, dropped
}

// dropHistory removes the history from an output copy (its raw map is the
// query's own clone, never the loaded file's).
func (o *Output) dropHistory() {
	if o.raw != nil {
		raw := make(map[string]json.RawMessage, len(o.raw))
		for k, v := range o.raw {
			if k != "history" {
				raw[k] = v
			}
		}
		o.raw = raw
	}
	o.History = nil
}

// Reminder is one dormant open item the writer is reminded of (SPEC §21).
type Reminder struct {
	ID              string `json:"id"`
	Description     string `json:"description"`
	Scope           string `json:"scope"`
	Status          string `json:"status"`
	LastTouched     int    `json:"last_touched_chapter"`
	DormantChapters int    `json:"dormant_chapters"`
}

// Reminders are up to MaxReminders open fact-layer items dormant beyond
// DormantLimit as of chapter c, longest dormant first, then by id. Light
// items (LoadGlobalLight) are pre-selected on their light fields, which
// can only make an item look older, and confirmed on the full item.
func Reminders(global []Item, c int) []Reminder {
	type cand struct {
		it    *Item
		since int
	}
	var cands []cand
	for _, it := range index(global) {
		if since, ok := Dormant(it, c); ok {
			cands = append(cands, cand{it, since})
		}
	}
	// Longest (light) dormancy first: once MaxReminders are confirmed and
	// the next candidate's light dormancy (an upper bound) is shorter than
	// the last kept, no later candidate can enter.
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].since != cands[j].since {
			return cands[i].since > cands[j].since
		}
		return cands[i].it.ID < cands[j].it.ID
	})
	out := []Reminder{}
	for _, cd := range cands {
		if len(out) >= MaxReminders {
			sortReminders(out)
			if cd.since < out[MaxReminders-1].DormantChapters {
				break
			}
		}
		full := cd.it.clone()
		since, ok := Dormant(&full, c)
		if !ok {
			continue
		}
		out = append(out, Reminder{ID: full.ID, Description: full.Description, Scope: full.Scope, Status: full.Status,
			LastTouched: LastTouched(&full), DormantChapters: since})
	}
	sortReminders(out)
	return out[:min(MaxReminders, len(out))]
}

func sortReminders(r []Reminder) {
	sort.Slice(r, func(i, j int) bool {
		if r[i].DormantChapters != r[j].DormantChapters {
			return r[i].DormantChapters > r[j].DormantChapters
		}
		return r[i].ID < r[j].ID
	})
}
