package manifest

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Recall of the distant past (SPEC §25): what the draft and judge packets
// of chapter C carry of chapters long gone, so a payoff meets its setup
// and a returning character is met as they were last seen.
const (
	keyRecall = "recall"
	// RecallGap is how far back a last mention must be for recall: a
	// name seen in the last RecallGap chapters is in recent memory.
	RecallGap = 10
	// MaxRecallSummary bounds the summary sentences recalled per name.
	MaxRecallSummary = 200
)

// Recall is the inline recall value (and novel-foreshadow recall's output).
type Recall struct {
	Chapter      int          `json:"chapter"`
	BudgetTokens int          `json:"budget_tokens"`
	Items        []RecallItem `json:"items"`
	// Omitted counts the entries left out to stay within BudgetTokens
	// (the oldest ones, since items are newest-relevant first).
	Omitted int `json:"omitted"`
}

// RecallItem is one recalled thing. Kind foreshadowing: a task the plan
// advances or resolves here, with its planting chapter and quote and its
// latest advance and quote. Kind character: a cast member last named at
// least RecallGap chapters ago, with that chapter's summary sentences
// naming them and their state entry (when the packet has no state
// slice). Kind item or location: an entity the outline block names that
// no recent chapter named, with its last chapter and that summary's
// sentence.
type RecallItem struct {
	Kind            string          `json:"kind"`
	ID              string          `json:"id"`
	Name            string          `json:"name,omitempty"`
	Action          string          `json:"action,omitempty"`
	PlantedChapter  int             `json:"planted_chapter,omitempty"`
	PlantedQuote    string          `json:"planted_evidence,omitempty"`
	AdvancedChapter int             `json:"advanced_chapter,omitempty"`
	AdvancedQuote   string          `json:"advanced_evidence,omitempty"`
	LastSeenChapter int             `json:"last_seen_chapter,omitempty"`
	Summary         string          `json:"summary,omitempty"`
	State           json.RawMessage `json:"state,omitempty"`
	at              int             // the chapter it is newest at (sort key)
}

var recallKindRank = map[string]int{"foreshadowing": 0, "character": 1, "item": 2, "location": 3}

// recall sets inline recall when anything applies. It runs after the
// packet's other inline values are set, so nothing they carry is
// repeated (the writer's state slice already holds the cast's state, its
// foreshadowing tasks the items' descriptions).
func (b *builder) recall() error {
	r, err := b.buildRecall()
	if err != nil {
		return err
	}
	if len(r.Items) > 0 || r.Omitted > 0 {
		b.in.Set(keyRecall, r)
	}
	return nil
}

func (b *builder) buildRecall() (*Recall, error) {
	items, err := b.recallForeshadowing()
	if err != nil {
		return nil, err
	}
	more, err := b.recallLedger()
	if err != nil {
		return nil, err
	}
	items = append(items, more...)
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].at != items[j].at {
			return items[i].at > items[j].at // newest-relevant first
		}
		if ri, rj := recallKindRank[items[i].Kind], recallKindRank[items[j].Kind]; ri != rj {
			return ri < rj
		}
		return items[i].ID < items[j].ID
	})
	// Within the budget by the §19 estimate of the value as rendered; an
	// entry that does not fit is left out and counted, a later smaller
	// one may still fit.
	r := &Recall{Chapter: b.c, BudgetTokens: b.set.Recall(), Items: []RecallItem{}}
	for _, it := range items {
		r.Items = append(r.Items, it)
		if EstimateText(indentJSON(r)).Tokens > r.BudgetTokens {
			r.Items = r.Items[:len(r.Items)-1]
			r.Omitted++
		}
	}
	return r, nil
}

// recallForeshadowing is recall's first kind: the setups of the
// foreshadowing the plan advances or resolves in this chapter.
func (b *builder) recallForeshadowing() ([]RecallItem, error) {
	_, hasTasks := b.in.Get("foreshadowing_tasks")
	// A quote the previous chapter's text (or tail) in this packet already
	// holds is not repeated.
	var prev []string
	for _, k := range []string{keyPrevious, keyTail} {
		if v, ok := b.in.Get(k); ok {
			prev = append(prev, inlineString(v))
		}
	}
	inPacket := eval.NewQuoteTexts(prev...)
	quote := func(q string) string {
		if _, found := inPacket.Check(q); found && len(prev) > 0 {
			return ""
		}
		return q
	}
	var items []RecallItem

	named, err := b.plannedForeshadowing()
	if err != nil {
		return nil, err
	}
	var global []foreshadow.Item
	for _, n := range named {
		if n.Action != foreshadow.ActionAdvance && n.Action != foreshadow.ActionResolve {
			continue
		}
		if global == nil {
			if global, err = b.globalForeshadowing(); err != nil {
				return nil, err
			}
		}
		s, ok := foreshadow.SetupOf(global, n.ID, b.c)
		if !ok {
			continue
		}
		it := RecallItem{Kind: "foreshadowing", ID: s.ID, Action: n.Action, PlantedChapter: s.PlantedChapter, PlantedQuote: quote(s.PlantedQuote),
			AdvancedChapter: s.AdvancedChapter, AdvancedQuote: quote(s.AdvancedQuote), at: max(s.PlantedChapter, s.AdvancedChapter)}
		if !hasTasks {
			it.Name = s.Description
		}
		items = append(items, it)
	}

	return items, nil
}

// recallLedger is recall's second and third kinds, from the mentions
// ledger: cast members and the outline block's items and locations not
// named for a while.
func (b *builder) recallLedger() ([]RecallItem, error) {
	_, hasSlice := b.in.Get(keyStateSlice)
	var items []RecallItem
	// The cast, and the items and locations the outline block names.
	cast, err := b.castSlugs("")
	if err != nil {
		return nil, err
	}
	chars, err := b.characters()
	if err != nil {
		return nil, err
	}
	display := map[string]string{}
	want := map[string][]string{}
	for _, ch := range chars {
		if cast[ch.Slug] {
			display[ch.Slug] = ch.DisplayName
			want["characters"] = append(want["characters"], ch.Slug)
		}
	}
	var top map[string]json.RawMessage
	if b.has(layout.CurrentState) {
		// The slice (writer) reports a bad state; recall goes without it.
		top, _ = b.stateTop()
	}
	entNames := map[string]map[string]string{"items": {}, "locations": {}}
	for _, g := range []string{"items", "locations"} {
		splitGroup(top[g], func(k string, v json.RawMessage) {
			if n := mentions.EntityName(v); n != "" && strings.Contains(b.blk.Text, n) {
				entNames[g][k] = n
				want[g] = append(want[g], k)
			}
		})
		sort.Strings(want[g])
	}
	last, err := mentions.Last(b.root, b.c, want)
	if err != nil {
		return nil, err
	}
	// The state entries of the characters recalled, for a packet without a
	// state slice; looked up only when one is recalled (the characters
	// group is most of a long project's state).
	var charStates map[string]json.RawMessage
	stateOf := func(slug string) (json.RawMessage, bool) {
		if hasSlice || top == nil {
			return nil, false
		}
		if charStates == nil {
			charStates = map[string]json.RawMessage{}
			splitGroup(top["characters"], func(k string, v json.RawMessage) {
				if cast[k] {
					charStates[k] = shortenTexts(v)
				}
			})
		}
		st, ok := charStates[slug]
		return st, ok
	}
	for _, slug := range want["characters"] {
		l, ok := last["characters"][slug]
		if !ok || b.c-l < RecallGap {
			continue
		}
		sum, err := b.summarySentences(l, display[slug], MaxRecallSummary)
		if err != nil {
			return nil, err
		}
		it := RecallItem{Kind: "character", ID: slug, Name: display[slug], LastSeenChapter: l, Summary: sum, at: l}
		if st, ok := stateOf(slug); ok {
			it.State = st
		}
		items = append(items, it)
	}
	for _, g := range []string{"items", "locations"} {
		for _, slug := range want[g] {
			l, ok := last[g][slug]
			if !ok || b.c-l <= RecallGap {
				continue // never named (nothing to recall) or named in the last 10 chapters
			}
			sum, err := b.summarySentences(l, entNames[g][slug], 0)
			if err != nil {
				return nil, err
			}
			items = append(items, RecallItem{Kind: strings.TrimSuffix(g, "s"), ID: slug, Name: entNames[g][slug], LastSeenChapter: l, Summary: sum, at: l})
		}
	}
	return items, nil
}

// summarySentences are the sentences of chapter c's summary that name
// name (every one, up to max characters; with max 0 the first one only).
// A missing summary gives "".
func (b *builder) summarySentences(c int, name string, max int) (string, error) {
	rel := layout.Summary(c)
	if !b.has(rel) {
		return "", nil
	}
	text, err := b.root.ReadText(rel)
	if err != nil {
		return "", err
	}
	var out []string
	n := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimSpace(strings.TrimLeft(line, "-*• "))
		for _, s := range splitSentences(line) {
			if !strings.Contains(s, name) {
				continue
			}
			if max == 0 {
				return clipRunes(s, MaxRecallSummary), nil
			}
			k := utf8.RuneCountInString(s)
			if n+k > max {
				if n == 0 {
					return clipRunes(s, max), nil
				}
				return strings.Join(out, ""), nil
			}
			out, n = append(out, s), n+k
		}
	}
	return strings.Join(out, ""), nil
}

// splitSentences cuts s after each sentence end (。！？!?), keeping a
// closing quotation mark with its sentence.
func splitSentences(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '。', '！', '？', '!', '?':
			j := i + 1
			for j < len(rs) && strings.ContainsRune("」』”’）)", rs[j]) {
				j++
			}
			out = append(out, string(rs[start:j]))
			start, i = j, j-1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// RecallFor is the recall of chapter c's draft packet (novel-foreshadow
// recall): the packet is built as `novel instructions chapter:C:draft`
// would, so the two never differ; nothing recalled is an empty list.
func RecallFor(root *project.Root, cp *checkpoint.Checkpoint, set settings.Settings, c int) (*Recall, error) {
	p, err := Build(root, cp, set, stepid.Chapter(c, stepid.Draft), Options{})
	if err != nil {
		return nil, err
	}
	if v, ok := p.Manifest.Inline.Get(keyRecall); ok {
		if r, ok := v.(*Recall); ok {
			return r, nil
		}
	}
	return &Recall{Chapter: c, BudgetTokens: set.Recall(), Items: []RecallItem{}}, nil
}
