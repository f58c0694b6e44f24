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

// PacketTasks trims a query result for an instruction packet (SPEC §19):
// no item carries its history, and of the overdue short items only the
// MaxOverdueTasks longest overdue (then by id) stay. The rest keep the
// query's id order. dropped counts the overdue items left out.
func PacketTasks(items []Output, c int) (out []Output, dropped int) {
	var overdue []int
	for i := range items {
		if OverdueShort(&items[i].Item, c) {
			overdue = append(overdue, i)
		}
	}
	keep := map[int]bool{}
	if len(overdue) > MaxOverdueTasks {
		end := func(i int) int { _, b, _ := items[i].Range(); return b }
		sort.SliceStable(overdue, func(a, b int) bool {
			ea, eb := end(overdue[a]), end(overdue[b])
			if ea != eb {
				return ea < eb // longest overdue first
			}
			return items[overdue[a]].ID < items[overdue[b]].ID
		})
		for _, i := range overdue[MaxOverdueTasks:] {
			keep[i] = false
		}
		dropped = len(overdue) - MaxOverdueTasks
	}
	out = make([]Output, 0, len(items)-dropped)
	for i := range items {
		if k, decided := keep[i]; decided && !k {
			continue
		}
		it := items[i]
		it.dropHistory()
		out = append(out, it)
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
	out := []Reminder{}
	for _, it := range index(global) {
		if _, ok := Dormant(it, c); !ok {
			continue
		}
		full := it.clone()
		since, ok := Dormant(&full, c)
		if !ok {
			continue
		}
		out = append(out, Reminder{ID: full.ID, Description: full.Description, Scope: full.Scope, Status: full.Status,
			LastTouched: LastTouched(&full), DormantChapters: since})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DormantChapters != out[j].DormantChapters {
			return out[i].DormantChapters > out[j].DormantChapters
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(MaxReminders, len(out))]
}
