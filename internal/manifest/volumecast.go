package manifest

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
)

// The volume's recurring cast (SPEC §14, §19): the characters who carried
// the chapters just before the volume began. The writer gets their
// contracts, profiles and long stable texts (a character's background,
// the description of a faction they belong to) before every block that
// changes per chapter, so every chapter of the volume sends those bytes
// as one prefix a provider can cache; the chapter's own cast follows, and
// the state slice keeps where each of them stands now. They are chosen
// from chapters already written, never from the volume's plan: the block
// names no one the plan keeps for later.
const (
	VolumeCastWindow      = 30 // chapters before the volume's first
	VolumeCastMinChapters = 3  // counted in at least this many of them
	MaxVolumeCast         = 8
)

// Packet keys and the DATA type of the recurring cast.
const (
	keyVolumeCastContracts = "volume_cast_contracts"
	keyVolumeCastProfiles  = "volume_cast_profiles"
	keyVolumeCast          = "volume_cast"
	typeVolumeCast         = "volume_cast"
)

// The stable texts the volume_cast block carries, per state group; the
// state slice leaves them out for the entities the block holds.
var volumeCastFields = map[string][]string{
	"characters": {"display_name", "background"},
	"factions":   {"name", "description"},
}

// volumeCastSlugs is the recurring cast, most often counted first (then
// by slug): registered characters the mentions ledger counts in at least
// VolumeCastMinChapters of the VolumeCastWindow chapters before the
// volume's first, not departed, at most MaxVolumeCast. The first volume
// has none.
func (b *builder) volumeCastSlugs() ([]string, error) {
	if b.ol == nil {
		return nil, nil
	}
	start, _, ok := b.ol.Range()
	if !ok || start <= 1 {
		return nil, nil
	}
	lines, err := mentions.Range(b.root, start-VolumeCastWindow, start-1)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	chars, err := b.characters()
	if err != nil {
		return nil, err
	}
	gone, err := b.departed()
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, l := range lines {
		for s, n := range l.Characters {
			if n > 0 {
				counts[s]++
			}
		}
	}
	var out []string
	for _, c := range chars {
		if _, g := gone[c.Slug]; !g && counts[c.Slug] >= VolumeCastMinChapters {
			out = append(out, c.Slug)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if counts[out[i]] != counts[out[j]] {
			return counts[out[i]] > counts[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(len(out), MaxVolumeCast)], nil
}

// volumeCast sets the writer's recurring-cast inputs: their contracts
// (paths), profile excerpts and the volume_cast value, and records which
// entities' stable texts the state slice must leave out. Call it before
// stateSlice and characterPaths.
func (b *builder) volumeCast() error {
	slugs, err := b.volumeCastSlugs()
	if err != nil || len(slugs) == 0 {
		return err
	}
	b.volCast = map[string]map[string]bool{"characters": {}, "factions": {}}
	var contracts []string
	for _, s := range slugs {
		if b.root.IsFile(layout.CharacterContract(s)) {
			contracts = append(contracts, layout.CharacterContract(s))
		}
		b.volCast["characters"][s] = true
	}
	b.pathsIf(keyVolumeCastContracts, contracts)
	profs, err := b.profileExcerpts(slugs)
	if err != nil {
		return err
	}
	if len(profs) > 0 {
		b.in.Set(keyVolumeCastProfiles, profs)
	}
	if !b.root.Exists(layout.CurrentState) {
		return nil
	}
	top, err := b.stateTop()
	if err != nil {
		return err
	}
	chars, members := &OMap{}, map[string]json.RawMessage{}
	splitGroup(top["characters"], func(k string, v json.RawMessage) {
		if b.volCast["characters"][k] {
			members[k] = v
		}
	})
	all, err := b.characters() // loaded by volumeCastSlugs
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, c := range all {
		names[c.Slug] = c.DisplayName
	}
	for _, s := range slugs { // in the cast's order
		// The state may leave the name to the contract: the block still
		// says whose background it is.
		if t := stableTexts(members[s], "characters", names[s]); t != nil {
			chars.Set(s, t)
		}
	}
	factions := &OMap{}
	splitGroup(top["factions"], func(k string, v json.RawMessage) {
		quoted := []byte(`"` + k + `"`)
		for _, s := range slugs {
			if bytes.Contains(members[s], quoted) {
				if t := stableTexts(v, "factions", ""); t != nil {
					factions.Set(k, t)
					b.volCast["factions"][k] = true
				}
				return
			}
		}
	})
	out := &OMap{}
	if chars.Len() > 0 {
		out.Set("characters", chars)
	}
	if factions.Len() > 0 {
		out.Set("factions", factions)
	}
	if out.Len() > 0 {
		b.in.Set(keyVolumeCast, out)
	}
	return nil
}

// stableTexts is an entity's volumeCastFields, long texts shortened as in
// the slice, the name first (name stands in for a missing one); nil when
// the entity has none of the fields.
func stableTexts(v json.RawMessage, group, name string) *OMap {
	fields := volumeCastFields[group]
	found := map[string]json.RawMessage{}
	jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
		if slices.Contains(fields, string(key)) {
			found[string(key)] = val
		}
	})
	if len(found) == 0 {
		return nil
	}
	out := &OMap{}
	if _, ok := found[fields[0]]; !ok && name != "" {
		out.Set(fields[0], name)
	}
	for _, f := range fields {
		if val, ok := found[f]; ok {
			out.Set(f, shortenTexts(val))
		}
	}
	return out
}

// withoutVolumeCastTexts drops from a slice entry of group the texts the
// volume_cast block already carries for it (nothing is sent twice).
func (b *builder) withoutVolumeCastTexts(group, k string, v json.RawMessage) json.RawMessage {
	if !b.volCast[group][k] {
		return v
	}
	drop := volumeCastFields[group][1:] // the name stays: it says who the entry is
	kept := &OMap{}
	jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
		for _, f := range drop {
			if string(key) == f {
				return
			}
		}
		kept.Set(string(key), val)
	})
	var buf bytes.Buffer
	if encodeCompact(&buf, kept) != nil {
		return v
	}
	return buf.Bytes()
}
