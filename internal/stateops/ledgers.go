package stateops

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// The ledgers of SPEC §25 kept in the state: the story clock and what each
// character knows.
const (
	// StoryTimePath is the story clock, {"day": N, "label": "…"}.
	StoryTimePath = "world_state.story_time"
	// KnowsField is a character's list of facts they know.
	KnowsField = "knows"
	// maxKnowsChars bounds one fact of a knows list.
	maxKnowsChars = 60
)

// ledgerReason checks the fixed shapes of the ledger ops: the clock is set
// whole, a knows list changes one short fact at a time. "" when the op is
// not a ledger op or is valid.
func ledgerReason(op Op) string {
	segs := op.Segs
	switch {
	case segs[0] == "world_state" && segs[1] == "story_time":
		if op.Kind != Set || len(segs) != 2 {
			return StoryTimePath + " is set whole with set"
		}
		if _, _, ok := StoryTime(op.Value); !ok {
			return StoryTimePath + ` must be {"day": N ≥ 1, "label": "…"}`
		}
	case segs[0] == "characters" && len(segs) >= 3 && segs[2] == KnowsField:
		at := "characters." + segs[1] + "." + KnowsField
		if (op.Kind != Add && op.Kind != Remove) || len(segs) != 3 {
			return at + " changes by add and remove, one fact at a time"
		}
		s, ok := op.Value.(string)
		if n := utf8.RuneCountInString(strings.TrimSpace(s)); !ok || n < 1 || n > maxKnowsChars {
			return at + " takes a fact of 1–" + strconv.Itoa(maxKnowsChars) + " characters"
		}
	}
	return ""
}

// StoryTime reads a story clock value: {"day": integer ≥ 1, "label":
// string} and nothing else.
func StoryTime(v any) (day int, label string, ok bool) {
	m, isObj := v.(map[string]any)
	if !isObj || len(m) != 2 {
		return 0, "", false
	}
	label, isStr := m["label"].(string)
	if !isStr {
		return 0, "", false
	}
	switch n := m["day"].(type) {
	case json.Number:
		d, err := strconv.Atoi(string(n))
		if err != nil || d < 1 {
			return 0, "", false
		}
		return d, label, true
	case float64:
		if n < 1 || n != float64(int(n)) {
			return 0, "", false
		}
		return int(n), label, true
	}
	return 0, "", false
}

// HasStoryTime reports whether state/current-state.json holds a story
// clock (world_state.story_time, SPEC §25): from then on every summarize
// delta must set it.
func HasStoryTime(root *project.Root) (bool, error) {
	if !root.Exists(layout.CurrentState) {
		return false, nil
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return false, err
	}
	if has, ok := canonicalHasClock(data); ok {
		return has, nil
	}
	_, _, has, err := currentStoryTime(root)
	return has, err
}

// canonicalHasClock answers HasStoryTime from the canonical layout every
// commit writes (sorted keys, 2-space indent) without decoding the state
// (MBs in a long book, read at every summarize validation): world_state is
// the member between its key line and the next top-level key line, and
// story_time is one of its own key lines. ok is false for another layout.
func canonicalHasClock(data []byte) (has, ok bool) {
	if !bytes.HasPrefix(data, []byte("{\n  \"")) {
		return false, false
	}
	key := []byte("\n  \"world_state\": ")
	i := bytes.Index(data, key)
	if i < 0 {
		return false, false
	}
	rest := data[i+len(key):]
	if end := bytes.Index(rest, []byte("\n  \"")); end >= 0 {
		rest = rest[:end]
	}
	return bytes.Contains(rest, []byte("\n    \"story_time\": ")), true
}

// currentStoryTime reads the state's world_state.story_time (has is false
// without one; a value of another shape reads as day 0). A state without
// the word is answered without decoding it (the state is a project's
// largest file).
func currentStoryTime(root *project.Root) (day int, label string, has bool, err error) {
	if !root.Exists(layout.CurrentState) {
		return 0, "", false, nil
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return 0, "", false, err
	}
	if !bytes.Contains(data, []byte(`"story_time"`)) {
		return 0, "", false, nil
	}
	st, _, err := DecodeState(data, layout.CurrentState)
	if err != nil {
		return 0, "", false, err
	}
	ws, _ := st["world_state"].(map[string]any)
	v, has := ws["story_time"]
	day, label, _ = StoryTime(v)
	return day, label, has, nil
}
