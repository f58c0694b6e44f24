// Package mentions owns state/mentions.jsonl (SPEC §25): one line per
// committed chapter, {"chapter","characters":{slug:count},"items":{…},
// "locations":{…}}, counting the registered names that occur in the
// committed text. Recall reads it to find where a character, item or
// location was last seen without reading the book.
package mentions

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// Line is one line of state/mentions.jsonl. Counts are per slug; a name
// that does not occur is left out, so an empty map means nothing named.
type Line struct {
	Chapter    int            `json:"chapter"`
	Characters map[string]int `json:"characters"`
	Items      map[string]int `json:"items"`
	Locations  map[string]int `json:"locations"`
}

// Name is one registered name: the entity's slug and the name the text
// uses for it.
type Name struct {
	Slug, Name string
}

// Names are the names a chapter is counted against: the registered
// characters' display names and aliases, and the state's item and
// location names. An entity may have several.
type Names struct {
	Characters, Items, Locations []Name
}

// Count counts, for chapter c, how often each name occurs in text
// (non-overlapping occurrences of that name). The text is walked once,
// looking names up by their first character, so the cost does not grow
// with the number of registered names times the chapter length.
func Count(c int, text string, n Names) Line {
	l := Line{Chapter: c, Characters: map[string]int{}, Items: map[string]int{}, Locations: map[string]int{}}
	type cand struct {
		name string
		out  map[string]int
		slug string
		next *int // the end of the entity's last counted occurrence
	}
	var cands []*cand
	byFirst := map[rune][]int{}
	for _, g := range []struct {
		names []Name
		out   map[string]int
	}{{n.Characters, l.Characters}, {n.Items, l.Items}, {n.Locations, l.Locations}} {
		// An entity's names share one position: 小满 inside 沈小满 is not a
		// second mention of the same character.
		ends := map[string]*int{}
		for _, nm := range g.names {
			name := strings.TrimSpace(nm.Name)
			if name == "" || nm.Slug == "" {
				continue
			}
			if ends[nm.Slug] == nil {
				ends[nm.Slug] = new(int)
			}
			r, _ := utf8.DecodeRuneInString(name)
			byFirst[r] = append(byFirst[r], len(cands))
			cands = append(cands, &cand{name: name, out: g.out, slug: nm.Slug, next: ends[nm.Slug]})
		}
	}
	if len(cands) == 0 {
		return l
	}
	// The longest name first where several start alike, so an entity is
	// counted by its fullest name.
	for _, ks := range byFirst {
		sort.SliceStable(ks, func(i, j int) bool { return len(cands[ks[i]].name) > len(cands[ks[j]].name) })
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		for _, k := range byFirst[r] {
			cd := cands[k]
			if i >= *cd.next && strings.HasPrefix(text[i:], cd.name) {
				cd.out[cd.slug]++
				*cd.next = i + len(cd.name)
			}
		}
		i += size
	}
	return l
}

// Has reports whether the line counts slug in group g ("characters",
// "items", "locations").
func (l Line) Has(g, slug string) bool {
	switch g {
	case "characters":
		return l.Characters[slug] > 0
	case "items":
		return l.Items[slug] > 0
	case "locations":
		return l.Locations[slug] > 0
	}
	return false
}

// Marshal encodes l as one line (keys sorted, a trailing newline).
func (l Line) Marshal() ([]byte, error) {
	for _, m := range []*map[string]int{&l.Characters, &l.Items, &l.Locations} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	return jsonio.MarshalLine(l)
}

// Encode encodes lines as the whole file.
func Encode(lines []Line) ([]byte, error) {
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := l.Marshal()
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// Parse reads the file's lines. A line that is not a mentions line is
// E_INVALID_JSON naming its number, with the rebuild that rewrites it.
func Parse(data []byte) ([]Line, error) {
	var out []Line
	for i, raw := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil || l.Chapter < 0 {
			return nil, errs.Newf(errs.InvalidJSON, "%s 第 %d 行不是有效的提及记录", "%s line %d is not a valid mentions line", layout.Mentions, i+1).
				With("file", layout.Mentions).With("line", i+1).
				Hint("运行 novel-commit rebuild，它按章节正文与 changelog 重写这个文件",
					"run novel-commit rebuild: it rewrites this file from the chapters and the changelog")
		}
		out = append(out, l)
	}
	return out, nil
}

// Diff names the first chapter whose line differs between have and want
// ("" when they are the same), for rebuild --check.
func Diff(have, want []Line) string {
	for i := 0; i < len(have) || i < len(want); i++ {
		switch {
		case i >= len(have):
			return "chapter " + strconv.Itoa(want[i].Chapter) + " (missing)"
		case i >= len(want):
			return "chapter " + strconv.Itoa(have[i].Chapter) + " (extra)"
		}
		a, _ := have[i].Marshal()
		b, _ := want[i].Marshal()
		if !bytes.Equal(a, b) {
			return "chapter " + strconv.Itoa(want[i].Chapter)
		}
	}
	return ""
}

// entityNames reads an entity's display_name and name members only (a
// dense state's entities carry long texts).
func entityNames(v json.RawMessage) (dn, n string) {
	jsonio.SplitObjectBytes(v, func(k []byte, val json.RawMessage) {
		switch string(k) {
		case "display_name":
			dn, _ = jsonio.String(val)
		case "name":
			n, _ = jsonio.String(val)
		}
	})
	return dn, n
}

// EntityName is an entity's name in the state (see StateNames), read
// from its bytes without decoding the rest.
func EntityName(v json.RawMessage) string { return pick(entityNames(v)) }

func pick(dn, n string) string {
	if strings.TrimSpace(dn) != "" {
		return dn
	}
	return n
}

// StateNames are the item and location names of the state a commit
// writes: the document as read, with the chapter's applied ops on top
// (an op that sets an entity, or its display_name or name). An entity's
// name is its display_name, else its name. The state is not decoded.
func StateNames(doc *stateops.Doc, applied []stateops.Op) (items, locations []Name) {
	type pair struct{ dn, n string }
	for _, g := range []string{"items", "locations"} {
		names := map[string]*pair{}
		var order []string
		get := func(slug string) *pair {
			p, ok := names[slug]
			if !ok {
				p = &pair{}
				names[slug] = p
				order = append(order, slug)
			}
			return p
		}
		doc.Entities(g, func(slug string, v json.RawMessage) {
			p := get(slug)
			p.dn, p.n = entityNames(v)
		})
		for _, op := range applied {
			if op.Kind != stateops.Set || len(op.Segs) < 2 || op.Segs[0] != g {
				continue
			}
			p := get(op.Segs[1])
			switch {
			case len(op.Segs) == 2:
				m, _ := op.Value.(map[string]any)
				p.dn, _ = m["display_name"].(string)
				p.n, _ = m["name"].(string)
			case len(op.Segs) == 3 && op.Segs[2] == "display_name":
				p.dn, _ = op.Value.(string)
			case len(op.Segs) == 3 && op.Segs[2] == "name":
				p.n, _ = op.Value.(string)
			}
		}
		sort.Strings(order)
		var out []Name
		for _, slug := range order {
			if n := pick(names[slug].dn, names[slug].n); n != "" {
				out = append(out, Name{Slug: slug, Name: n})
			}
		}
		if g == "items" {
			items = out
		} else {
			locations = out
		}
	}
	return items, locations
}

// Characters are the registered characters' names: each display name and
// each alias.
func Characters(chars []cast.Character) []Name {
	out := make([]Name, 0, len(chars))
	for _, c := range chars {
		for _, n := range c.Names() {
			out = append(out, Name{Slug: c.Slug, Name: n})
		}
	}
	return out
}

// mapName is an entity's name in a decoded state (see StateNames).
func mapName(v any) string {
	m, _ := v.(map[string]any)
	dn, _ := m["display_name"].(string)
	n, _ := m["name"].(string)
	return pick(dn, n)
}

// GroupNames are the names of a decoded state group's entities, by slug.
func GroupNames(group any) []Name {
	m, _ := group.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Name
	for _, k := range keys {
		if n := mapName(m[k]); n != "" {
			out = append(out, Name{Slug: k, Name: n})
		}
	}
	return out
}

// Groups are the ledger's groups, in line order.
var Groups = []string{"characters", "items", "locations"}

// Last finds, for each wanted slug of each group, the newest chapter
// before c whose line counts it; a slug never counted is absent. The
// ledger is read from its end and a line is decoded only when it holds
// a wanted slug's key, so a long book's ledger costs one byte scan.
func Last(root *project.Root, c int, want map[string][]string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	left := 0
	for _, g := range Groups {
		out[g] = map[string]int{}
		left += len(want[g])
	}
	if left == 0 || !root.Exists(layout.Mentions) {
		return out, nil
	}
	data, err := root.ReadFile(layout.Mentions)
	if err != nil {
		return nil, err
	}
	backward(data, func(raw []byte) bool {
		hit := false
		for _, g := range Groups {
			for _, s := range want[g] {
				if _, done := out[g][s]; !done && bytes.Contains(raw, []byte(`"`+s+`":`)) {
					hit = true
				}
			}
		}
		if !hit {
			return true
		}
		var l Line
		if json.Unmarshal(raw, &l) != nil || l.Chapter >= c {
			return true // a damaged line is rebuild's to report; recall skips it
		}
		for _, g := range Groups {
			for _, s := range want[g] {
				if _, done := out[g][s]; !done && l.Has(g, s) {
					out[g][s] = l.Chapter
					left--
				}
			}
		}
		return left > 0
	})
	return out, nil
}

// Range is the ledger's lines of chapters from…to, oldest first. The
// ledger is read from its end and decoded only back to from, so a long
// book's ledger costs one scan of its last lines; a damaged line is
// skipped (rebuild reports it), as Last does.
func Range(root *project.Root, from, to int) ([]Line, error) {
	if from > to || !root.Exists(layout.Mentions) {
		return nil, nil
	}
	data, err := root.ReadFile(layout.Mentions)
	if err != nil {
		return nil, err
	}
	var out []Line
	backward(data, func(raw []byte) bool {
		var l Line
		if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &l) != nil {
			return true
		}
		if l.Chapter >= from && l.Chapter <= to {
			out = append(out, l)
		}
		return l.Chapter >= from
	})
	slices.Reverse(out)
	return out, nil
}

// backward calls fn with each line of data, the last first, until fn
// returns false: Last and Range want the ledger's newest chapters, at its
// end, and neither splits the whole file.
func backward(data []byte, fn func(raw []byte) bool) {
	for end := len(data); end >= 0; {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		if !fn(data[start:end]) {
			return
		}
		end = start - 1
	}
}

// TouchesNames reports whether a state op can change an item's or a
// location's name (a set of the whole entity, or of its display_name or
// name), so a replay recomputes the names only after such ops.
func TouchesNames(op, path string) bool {
	if op != "set" || !(strings.HasPrefix(path, "items.") || strings.HasPrefix(path, "locations.")) {
		return false
	}
	segs := strings.Split(path, ".")
	return len(segs) == 2 || len(segs) == 3 && (segs[2] == "name" || segs[2] == "display_name")
}
