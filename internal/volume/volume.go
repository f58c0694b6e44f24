// Package volume knows what a volume plans beyond its outline: the
// storyline schedule (active and dormant lines, convergence events), key
// chapters, and where a volume ends (SPEC §2, §6).
package volume

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
)

// Event is a convergence event with a valid chapter range.
type Event struct {
	Start, End int
	Storylines []string
}

// Schedule is volumes/vol-VV/storyline-schedule.json, read leniently.
// Events holds only events whose range is valid ([a,b] ints, 1 ≤ a ≤ b).
type Schedule struct {
	Active, Dormant []string
	Events          []Event
	File            string
}

// LoadSchedule reads the volume's schedule; a missing file is an empty
// schedule. Storyline ids must be slugs (they become memory paths):
// E_SCHEMA naming the file otherwise.
func LoadSchedule(root *project.Root, volume int) (*Schedule, error) {
	rel := layout.Schedule(volume)
	if !root.Exists(rel) {
		if _, err := root.Abs(rel); err != nil {
			return nil, err
		}
		return &Schedule{File: rel}, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return ParseSchedule(data, rel)
}

type rawEvent struct {
	ChapterRange json.RawMessage `json:"chapter_range"`
	TargetRange  json.RawMessage `json:"target_chapter_range"`
	Involved     json.RawMessage `json:"involved_storylines"`
}

// ParseSchedule decodes a schedule (rel names it in errors).
func ParseSchedule(data []byte, rel string) (*Schedule, error) {
	var top map[string]json.RawMessage
	if err := jsonio.Decode(data, rel, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errs.Newf(errs.Schema, "%s 应为 JSON 对象", "%s must be a JSON object", rel).With("file", rel).
			Hint(`按 {"active_storylines":[…],"dormant_storylines":[…],"convergence_events":[…]} 修正`,
				`use {"active_storylines":[…],"dormant_storylines":[…],"convergence_events":[…]}`)
	}
	s := &Schedule{File: rel, Active: []string{}, Dormant: []string{}}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"active_storylines", &s.Active}, {"dormant_storylines", &s.Dormant}} {
		items, err := list(top[f.name], rel, f.name)
		if err != nil {
			return nil, err
		}
		for _, a := range items {
			id, err := storylineRef(a, rel, f.name)
			if err != nil {
				return nil, err
			}
			if id != "" && !slices.Contains(*f.dst, id) {
				*f.dst = append(*f.dst, id)
			}
		}
	}
	events, err := list(top["convergence_events"], rel, "convergence_events")
	if err != nil {
		return nil, err
	}
	for _, re := range events {
		var ev rawEvent
		if json.Unmarshal(re, &ev) != nil {
			continue // not an object: skipped like a bad range
		}
		rng := ev.ChapterRange
		if isNull(rng) {
			rng = ev.TargetRange
		}
		a, b, ok := validRange(rng)
		if !ok {
			continue
		}
		e := Event{Start: a, End: b, Storylines: []string{}}
		involved, err := list(ev.Involved, rel, "convergence_events[].involved_storylines")
		if err != nil {
			return nil, err
		}
		for _, raw := range involved {
			id, err := storylineRef(raw, rel, "convergence_events[].involved_storylines")
			if err != nil {
				return nil, err
			}
			if id != "" && !slices.Contains(e.Storylines, id) {
				e.Storylines = append(e.Storylines, id)
			}
		}
		s.Events = append(s.Events, e)
	}
	return s, nil
}

// list reads an optional JSON array field (missing or null → empty).
func list(raw json.RawMessage, rel, field string) ([]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var xs []json.RawMessage
	if json.Unmarshal(raw, &xs) != nil {
		return nil, errs.Newf(errs.Schema, "%s 的 %s 应为数组", "%s: %s must be an array", rel, field).
			With("file", rel).With("field", field).
			Hint("把该字段改为 JSON 数组", "make the field a JSON array")
	}
	return xs, nil
}

// storylineRef accepts a plain id or a plugin object {"storyline_id"|"id": …}.
func storylineRef(raw json.RawMessage, rel, field string) (string, error) {
	var id string
	if json.Unmarshal(raw, &id) != nil {
		var obj struct {
			StorylineID string `json:"storyline_id"`
			ID          string `json:"id"`
		}
		if json.Unmarshal(raw, &obj) != nil {
			return "", errs.Newf(errs.Schema, "%s 的 %s 中有无法识别的条目 %s", "%s: %s has an entry that is neither an id nor an object: %s",
				rel, field, string(raw)).With("file", rel).With("field", field).
				Hint("每一项写成故事线 id 字符串", "write each entry as a storyline id string")
		}
		id = obj.StorylineID
		if id == "" {
			id = obj.ID
		}
	}
	if id == "" {
		return "", nil
	}
	if err := project.CheckSlug(id, field, rel); err != nil {
		return "", err
	}
	return id, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// validRange reads a chapter range [a,b] of integers with 1 ≤ a ≤ b.
// Anything else (null, strings, floats with fractions, wrong length)
// is not a range.
func validRange(raw json.RawMessage) (int, int, bool) {
	if isNull(raw) {
		return 0, 0, false
	}
	return jsonio.IntRange(raw)
}

// EventsAt lists the convergence events whose range covers chapter c.
func (s *Schedule) EventsAt(c int) []Event {
	var out []Event
	for _, e := range s.Events {
		if e.Start <= c && c <= e.End {
			out = append(out, e)
		}
	}
	return out
}

// IsDormant reports whether id is a dormant line this volume.
func (s *Schedule) IsDormant(id string) bool { return slices.Contains(s.Dormant, id) }

// KeyChapter reports whether c is a key chapter of the volume: its first
// or last outlined chapter, or inside a convergence event.
func KeyChapter(root *project.Root, volume, c int) (bool, error) {
	o, err := outline.Load(root, volume)
	if err != nil {
		return false, err
	}
	if start, end, ok := o.Range(); ok && (c == start || c == end) {
		return true, nil
	}
	s, err := LoadSchedule(root, volume)
	if err != nil {
		return false, err
	}
	return len(s.EventsAt(c)) > 0, nil
}

// LastChapter is the end of the volume's outline range. An outline that
// heads no chapter is E_OUTLINE.
func LastChapter(root *project.Root, volume int) (int, error) {
	o, err := outline.Load(root, volume)
	if err != nil {
		return 0, err
	}
	_, end, ok := o.Range()
	if !ok {
		return 0, errs.Newf(errs.Outline, "大纲 %s 中没有任何章节标题", "outline %s has no chapter headings", o.File).
			With("file", o.File).With("volume", volume).
			Hint("在 "+o.File+" 中写入章节标题，形如 ### 第 12 章: 章名", "write the chapter headings into "+o.File+", like ### 第 12 章: 章名")
	}
	return end, nil
}
