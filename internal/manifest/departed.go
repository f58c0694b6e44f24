package manifest

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/stepid"
)

// DepartedStatuses are the state statuses of a character who has left
// the story (SPEC §25): out of the default cast and the may-appear list,
// present only when the contract or outline names them, then marked.
var DepartedStatuses = []string{"dead", "死亡", "陨落", "离开", "退场"}

// IsDeparted reports whether a state status is one of DepartedStatuses.
func IsDeparted(status string) bool {
	s := strings.TrimSpace(status)
	return slices.Contains(DepartedStatuses, s) || strings.EqualFold(s, "dead")
}

// departed maps the slug of every departed character to its status, read
// once per packet from the state's characters group (only the status
// members are decoded).
func (b *builder) departed() (map[string]string, error) {
	if b.departedDone {
		return b.departedMap, nil
	}
	b.departedDone, b.departedMap = true, map[string]string{}
	if !b.root.Exists(layout.CurrentState) {
		return b.departedMap, nil
	}
	top, err := b.stateTop()
	if err != nil {
		return nil, err
	}
	splitGroup(top["characters"], func(slug string, v json.RawMessage) {
		jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
			if string(key) != "status" {
				return
			}
			if s, ok := jsonio.String(val); ok && IsDeparted(s) {
				b.departedMap[slug] = strings.TrimSpace(s)
			}
		})
	})
	return b.departedMap, nil
}

// stateTop is the state file's top-level members, read and checked once
// per packet (the state slice and the departed cast both need them; a
// long book's state is megabytes).
func (b *builder) stateTop() (map[string]json.RawMessage, error) {
	if b.stateMembers != nil {
		return b.stateMembers, nil
	}
	data, err := b.root.MapFile(layout.CurrentState)
	if err != nil {
		return nil, err
	}
	top, err := stateMembers(data)
	if err == nil {
		err = checkStateShape(top)
	}
	if err != nil {
		return nil, rebuildHint(b.root, err)
	}
	b.stateMembers = top
	return top, nil
}

// namedHere reports whether this chapter's contract or outline block names
// the character (display name, or slug in the contract).
func (b *builder) namedHere(c Character) bool {
	if b.contract != nil {
		for _, n := range append(c.Names(), c.Slug) {
			if slices.Contains(b.contract.CharacterNames, n) {
				return true
			}
		}
	}
	return b.blk != nil && c.NamedIn(b.blk.Text)
}

// Marked is a departed character a chapter names: the writer treats them
// as memory or flashback.
type Marked struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// mayAppear is entity_id_map (SPEC §6, §25): every registered character,
// except the departed ones this chapter does not name; a named departed
// one maps to {name, status}. Volume packets (no chapter) leave every
// departed character out. The summarizer's map is what it recognises,
// not who may appear: it keeps every departed character, marked, so a
// flashback's name is not reported as an unknown entity.
func (b *builder) mayAppear(chars []Character) (*OMap, error) {
	recognise := b.p.Agent.Name == stepid.Summarizer
	gone, err := b.departed()
	if err != nil {
		return nil, err
	}
	m := &OMap{}
	for _, c := range chars {
		st, isGone := gone[c.Slug]
		switch {
		case !isGone:
			m.Set(c.Slug, c.DisplayName)
		case recognise || (b.c > 0 && b.namedHere(c)):
			m.Set(c.Slug, Marked{Name: c.DisplayName, Status: st})
		}
	}
	return m, nil
}
