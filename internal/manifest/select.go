package manifest

import (
	"fmt"
	"sort"
)

// MaxDefaultCharacters caps the L2 selection when the contract names none.
const MaxDefaultCharacters = 15

// RecentSummaryWindow is how many previous chapters' summaries the
// recency ranking reads (at most).
const RecentSummaryWindow = 10

// SummaryText is one previous chapter's summary.
type SummaryText struct {
	Chapter int
	Text    string
}

// nameIndex maps each name a contract may use to its character's slug:
// display names first, the smallest slug winning a shared one (chars are
// slug-sorted), then aliases where no display name has them. The cast's
// contracts and the state slice's cast use it alike, so a shared name is
// the same character in both.
func nameIndex(chars []Character) map[string]string {
	idx := map[string]string{}
	for _, c := range chars {
		if _, dup := idx[c.DisplayName]; !dup {
			idx[c.DisplayName] = c.Slug
		}
	}
	for _, c := range chars {
		for _, a := range c.Aliases {
			if _, dup := idx[a]; !dup {
				idx[a] = c.Slug
			}
		}
	}
	return idx
}

// SelectCharacters is the L2 pruning of SPEC §6. With names (the
// contract's character_states keys) it returns exactly those characters,
// in contract order, warning about names no character file carries.
// Without, it ranks every character by the newest summary (newest first)
// that mentions its display_name, then by slug; never mentioned ranks
// oldest; at most 15.
func SelectCharacters(chars []Character, names []string, summaries []SummaryText) (slugs []string, warnings []string) {
	slugs = []string{}
	if len(names) > 0 {
		bySlug := nameIndex(chars)
		seen := map[string]bool{}
		for _, n := range names {
			s, ok := bySlug[n]
			if !ok {
				warnings = append(warnings, fmt.Sprintf("契约中的角色 %q 在 characters/active/ 中没有对应文件，已跳过 / contract character %q has no file in characters/active/; skipped", n, n))
				continue
			}
			if !seen[s] {
				seen[s] = true
				slugs = append(slugs, s)
			}
		}
		return slugs, warnings
	}
	type ranked struct {
		slug     string
		lastSeen int // 0 = never
	}
	rs := make([]ranked, len(chars))
	for i, c := range chars {
		rs[i] = ranked{slug: c.Slug}
		for _, s := range summaries {
			if c.NamedIn(s.Text) {
				rs[i].lastSeen = s.Chapter
				break
			}
		}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].lastSeen != rs[j].lastSeen {
			return rs[i].lastSeen > rs[j].lastSeen
		}
		return rs[i].slug < rs[j].slug
	})
	for _, r := range rs[:min(MaxDefaultCharacters, len(rs))] {
		slugs = append(slugs, r.slug)
	}
	return slugs, nil
}
