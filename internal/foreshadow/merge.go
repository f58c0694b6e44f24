package foreshadow

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Op is one delta op as the Summarizer wrote it. Merge looks only at ops
// whose Op is "foreshadow"; Raw is the original object, echoed in drops.
type Op struct {
	Op     string
	Path   string
	Value  json.RawMessage
	Detail json.RawMessage
	// Description names a new item the op plants (SPEC §24); items the
	// fact layer or the plan know keep their own.
	Description string
	// Evidence is the op's verbatim quote of the chapter (SPEC §25),
	// stored in the history entry the op adds.
	Evidence string
	Raw      json.RawMessage
}

// ParseOp reads a raw delta op leniently (wrong types become empty and
// are dropped by Merge with a reason).
func ParseOp(raw json.RawMessage) Op {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return Op{Op: str(m["op"]), Path: str(m["path"]), Value: m["value"], Detail: m["detail"], Description: str(m["description"]), Evidence: str(m["evidence"]), Raw: raw}
}

// ParseOps reads every raw op.
func ParseOps(raws []json.RawMessage) []Op {
	ops := make([]Op, len(raws))
	for i, r := range raws {
		ops[i] = ParseOp(r)
	}
	return ops
}

// Dropped is a foreshadow op that was not applied, with the reason.
type Dropped struct {
	Op     json.RawMessage `json:"op"`
	Reason string          `json:"reason"`
}

// ValidID reports whether id can name a foreshadowing item: non-empty,
// no dot (a single path segment), no whitespace or control characters, at
// most 128 bytes. Ids are not paths (SPEC §15). The state-ops validation
// applies the same rule, so both agree on which ops are dropped.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 || strings.Contains(id, ".") {
		return false
	}
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// Merge applies the foreshadow ops of chapter c, in order, to the fact
// layer (SPEC §8.3). Existing items keep their order and untouched items
// their bytes; new items are appended in op order. global is not modified.
// An op whose path is not a single id or whose value is not
// planted|advanced|resolved is dropped with a reason.
func Merge(global, plan []Item, ops []Op, c int, storyline string) (merged []Item, dropped []Dropped) {
	merged = make([]Item, len(global))
	copy(merged, global)
	pos := map[string]int{}
	for i := range merged {
		if id := merged[i].ID; id != "" {
			if _, dup := pos[id]; !dup {
				pos[id] = i
			}
		}
	}
	planIdx := index(plan)
	cloned := map[int]bool{}
	dropped = []Dropped{}
	for _, op := range ops {
		if op.Op != "foreshadow" {
			continue
		}
		var action string
		if json.Unmarshal(op.Value, &action) != nil || Rank(action) == 0 {
			dropped = append(dropped, Dropped{Op: op.Raw, Reason: "foreshadow value must be planted, advanced or resolved"})
			continue
		}
		if !ValidID(op.Path) {
			dropped = append(dropped, Dropped{Op: op.Raw, Reason: "foreshadow path must be one item id (non-empty, no dots or spaces)"})
			continue
		}
		detail := ""
		if d := bytes.TrimSpace(op.Detail); len(d) > 0 && string(d) != "null" {
			if json.Unmarshal(d, &detail) != nil {
				detail = string(d) // a non-string detail is kept as its JSON text
			}
		}
		i, ok := pos[op.Path]
		if !ok {
			merged = append(merged, newItem(op.Path, planIdx[op.Path], op.Description))
			i = len(merged) - 1
			pos[op.Path] = i
			cloned[i] = true
		} else if !cloned[i] {
			merged[i] = merged[i].clone()
			cloned[i] = true
		}
		merged[i].apply(action, detail, op.Evidence, c, storyline, planIdx[op.Path])
	}
	return merged, dropped
}

func newItem(id string, plan *Item, description string) Item {
	it := Item{ID: id, raw: map[string]json.RawMessage{}}
	it.set("id", id)
	if plan != nil {
		it.backfill(plan)
	}
	if emptyRaw(it.raw["description"]) {
		if strings.TrimSpace(description) == "" {
			description = id
		}
		it.Description = description
		it.set("description", description)
	}
	if emptyRaw(it.raw["scope"]) {
		it.Scope = "medium"
		it.set("scope", "medium")
	}
	return it
}

func (it *Item) apply(action, detail, evidence string, c int, storyline string, plan *Item) {
	if Rank(action) > Rank(it.Status) {
		it.Status = action
		it.set("status", action)
	}
	if action == Planted {
		if it.PlantedChapter == 0 && emptyRaw(it.raw["planted_chapter"]) {
			it.PlantedChapter = c
			it.set("planted_chapter", c)
		}
		if storyline != "" && it.PlantedStoryline == "" && emptyRaw(it.raw["planted_storyline"]) {
			it.PlantedStoryline = storyline
			it.set("planted_storyline", storyline)
		}
	}
	if c > it.LastUpdatedChapter {
		it.LastUpdatedChapter = c
		it.set("last_updated_chapter", c)
	}
	dup := false
	for _, h := range it.History {
		if h.Chapter == c && h.Action == action {
			dup = true
			break
		}
	}
	if !dup {
		if !historyIsList(it) {
			it.History = nil // a non-list history cannot be appended to: replaced
		}
		it.History = append(it.History, History{Chapter: c, Action: action, Detail: detail, Evidence: strings.TrimSpace(evidence)})
		it.set("history", nil) // marks presence; encode writes History
	}
	if plan != nil {
		it.backfill(plan)
	}
}

func historyIsList(it *Item) bool {
	raw, ok := it.raw["history"]
	if !ok || emptyRaw(raw) {
		return true
	}
	var probe []json.RawMessage
	return json.Unmarshal(raw, &probe) == nil
}

// Rollback removes what chapters ≥ from added (SPEC §8.4): their history
// entries; planted_chapter/planted_storyline when planted by them;
// last_updated_chapter falls back to the newest remaining chapter; the
// status falls back to the strongest remaining action. An item with no
// history left and no earlier planted chapter was created by those
// chapters and is removed. Items they did not touch are returned as-is.
func Rollback(items []Item, from int) []Item {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		touched := it.PlantedChapter >= from || it.LastUpdatedChapter >= from
		for _, h := range it.History {
			if h.Chapter >= from {
				touched = true
			}
		}
		if !touched || it.ID == "" {
			out = append(out, it)
			continue
		}
		n := it.clone()
		var kept []History
		for _, h := range it.History {
			if h.Chapter < from {
				kept = append(kept, h)
			}
		}
		if n.PlantedChapter >= from {
			n.PlantedChapter, n.PlantedStoryline = 0, ""
			n.del("planted_chapter")
			n.del("planted_storyline")
		}
		if len(kept) == 0 && n.PlantedChapter == 0 && len(it.History) > 0 {
			continue // created by the rolled-back chapters
		}
		if len(it.History) > 0 || it.raw["history"] != nil {
			n.History = kept
			if n.History == nil {
				n.History = []History{}
			}
			n.set("history", nil)
		}
		last, best := n.PlantedChapter, 0
		if n.PlantedChapter > 0 {
			best = Rank(Planted)
		}
		for _, h := range kept {
			last = max(last, h.Chapter)
			best = max(best, Rank(h.Action))
		}
		if n.LastUpdatedChapter >= from {
			if last > 0 {
				n.LastUpdatedChapter = last
				n.set("last_updated_chapter", last)
			} else {
				n.LastUpdatedChapter = 0
				n.del("last_updated_chapter")
			}
		}
		if best > 0 && Rank(n.Status) > best {
			n.Status = []string{"", Planted, Advanced, Resolved}[best]
			n.set("status", n.Status)
		}
		out = append(out, n)
	}
	return out
}
