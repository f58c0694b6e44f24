package manifest

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
)

// Unregistered is a name the summarizers reported as unknown in two or
// more chapters that is still nobody's display name or alias (SPEC §25).
type Unregistered struct {
	Name          string   `json:"name"`
	SuggestedType string   `json:"suggested_type,omitempty"`
	Chapters      []int    `json:"chapters"`
	Contexts      []string `json:"contexts"`
}

// MaxUnregisteredContexts bounds the contexts quoted per name.
const MaxUnregisteredContexts = 3

// unregisteredNames lists, for the planner, the names of
// logs/unknown-entities.jsonl seen in ≥ 2 chapters and still unregistered,
// by first chapter: it may register them as new characters.
func (b *builder) unregisteredNames() error {
	ok, err := b.root.Optional(layout.UnknownEntities)
	if err != nil || !ok {
		return err
	}
	text, err := b.root.ReadText(layout.UnknownEntities)
	if err != nil {
		return err
	}
	known, err := b.registeredNames()
	if err != nil {
		return err
	}
	byName := map[string]*Unregistered{}
	var order []string
	for _, line := range strings.Split(text, "\n") {
		u, ok := products.ParseUnknownEntity([]byte(line))
		if !ok {
			continue
		}
		name := strings.TrimSpace(u.Name)
		var at struct {
			Chapter int `json:"chapter"`
		}
		if json.Unmarshal([]byte(line), &at) != nil || at.Chapter < 1 || known[name] {
			continue
		}
		e := byName[name]
		if e == nil {
			e = &Unregistered{Name: name, Chapters: []int{}, Contexts: []string{}}
			byName[name] = e
			order = append(order, name)
		}
		if e.SuggestedType == "" {
			e.SuggestedType = u.SuggestedType
		}
		if n := len(e.Chapters); n == 0 || e.Chapters[n-1] != at.Chapter {
			e.Chapters = append(e.Chapters, at.Chapter)
		}
		if c := strings.TrimSpace(u.Context); c != "" && len(e.Contexts) < MaxUnregisteredContexts {
			e.Contexts = append(e.Contexts, c)
		}
	}
	out := []Unregistered{}
	for _, name := range order {
		e := byName[name]
		sort.Ints(e.Chapters)
		e.Chapters = compactInts(e.Chapters)
		if len(e.Chapters) >= 2 {
			out = append(out, *e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Chapters[0] < out[j].Chapters[0] })
	if len(out) > 0 {
		b.in.Set("unregistered_names", out)
	}
	return nil
}

// registeredNames are the cast's display names and aliases.
func (b *builder) registeredNames() (map[string]bool, error) {
	chars, err := b.characters()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, c := range chars {
		known[c.DisplayName] = true
		var a struct {
			Aliases []any `json:"aliases"`
		}
		if err := b.root.ReadJSON(layout.CharacterContract(c.Slug), &a); err == nil {
			for _, x := range a.Aliases {
				if s, ok := x.(string); ok {
					known[strings.TrimSpace(s)] = true
				}
			}
		}
	}
	return known, nil
}

func compactInts(xs []int) []int {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
