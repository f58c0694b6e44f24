package foreshadow

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"

	"github.com/novelsuite/novel/internal/jsonio"
)

// Stats are the query counters. relevant_from_* count matches per layer,
// so their sum can exceed items (plugin-compatible).
type Stats struct {
	Items              int `json:"items"`
	RelevantFromPlan   int `json:"relevant_from_plan"`
	RelevantFromGlobal int `json:"relevant_from_global"`
	OverdueShort       int `json:"overdue_short"`
}

// Sources names the files a query read.
type Sources struct {
	Checkpoint string `json:"checkpoint,omitempty"`
	Global     string `json:"global"`
	VolumePlan string `json:"volume_plan"`
}

// Result is the SPEC §9 query result.
type Result struct {
	SchemaVersion int      `json:"schema_version"`
	Chapter       int      `json:"chapter"`
	Volume        int      `json:"volume"`
	Items         []Output `json:"items"`
	Stats         Stats    `json:"stats"`
	Sources       Sources  `json:"sources"`
}

// MarshalCanonical renders the result as jsonio.Marshal would through
// encoding/json (each item's compact form indented at its depth), without
// the encoder re-scanning every item: a query can return hundreds.
func (r Result) MarshalCanonical() ([]byte, error) {
	// Result's fields with no items (TestResultCanonical keeps the two in
	// step).
	head, err := jsonio.Marshal(struct {
		SchemaVersion int        `json:"schema_version"`
		Chapter       int        `json:"chapter"`
		Volume        int        `json:"volume"`
		Items         []struct{} `json:"items"`
		Stats         Stats      `json:"stats"`
		Sources       Sources    `json:"sources"`
	}{r.SchemaVersion, r.Chapter, r.Volume, emptyOrNil(r.Items), r.Stats, r.Sources})
	if err != nil {
		return nil, err
	}
	if len(r.Items) == 0 {
		return head, nil
	}
	const empty = "\n  \"items\": []"
	i := bytes.Index(head, []byte(empty))
	if i < 0 {
		return nil, errors.New("foreshadow: no items member in the result shell")
	}
	var buf bytes.Buffer
	buf.Grow(len(head) + len(r.Items)*512)
	buf.Write(head[:i])
	buf.WriteString("\n  \"items\": [")
	for k, it := range r.Items {
		if k > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		b, err := it.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := jsonio.Indent(&buf, b, "    ", "  "); err != nil {
			return nil, err
		}
	}
	buf.WriteString("\n  ]")
	buf.Write(head[i+len(empty):])
	return buf.Bytes(), nil
}

func emptyOrNil(items []Output) []struct{} {
	if items == nil {
		return nil // null, as the encoder writes a nil slice
	}
	return []struct{}{}
}

// Output is an item reduced to the SPEC §9 keys (only those present);
// a packet task the chapter's plan names also has the plan's action.
type Output struct {
	Item
	Action string
}

// MarshalJSON drops every key that is not an item field of SPEC §2 and
// adds "action" when the plan gave one.
func (o Output) MarshalJSON() ([]byte, error) {
	b, err := o.Item.encode(true)
	if err != nil || o.Action == "" {
		return b, err
	}
	a, _ := json.Marshal(o.Action)
	if len(b) == 2 { // {}
		return []byte(`{"action":` + string(a) + `}`), nil
	}
	return append(append(append(b[:len(b)-1:len(b)-1], `,"action":`...), a...), '}'), nil
}

func covers(it *Item, c int) bool {
	a, b, ok := it.Range()
	return ok && a <= c && c <= b
}

// OverdueShort reports a short item, not resolved, whose valid range
// ends before chapter c.
func OverdueShort(it *Item, c int) bool {
	if it.Scope != "short" || it.Status == Resolved {
		return false
	}
	_, b, ok := it.Range()
	return ok && c > b
}

// index maps id → first item with that id (id-less entries skipped).
func index(items []Item) map[string]*Item {
	m := make(map[string]*Item, len(items))
	for i := range items {
		if id := items[i].ID; id != "" {
			if _, dup := m[id]; !dup {
				m[id] = &items[i]
			}
		}
	}
	return m
}

// Query selects the items relevant to chapter c (SPEC §9). Plan hits:
// not resolved, planted_chapter == c or a range covering c. Global hits:
// not resolved, a range covering c, or overdue short. An id resolved in
// either layer is excluded. The union is sorted by id; global is the base,
// the plan backfills a missing/null/empty description, scope and
// target_resolve_range.
func Query(global, plan []Item, c, volume int) Result {
	res, ids, g, p := selectItems(global, plan, c, volume)
	for _, id := range ids {
		// An unplanned light item is written straight from its bytes
		// (encodeLightKnown): nothing to backfill, no copy to parse.
		if base, ok := g[id]; ok && base.light() && p[id] == nil {
			it := *base
			it.Description = str(member(it.src, "description")) // for the text listing
			res.Items = append(res.Items, Output{Item: it})
			continue
		}
		res.Items = append(res.Items, Output{Item: merged(id, g, p)})
	}
	res.Stats.Items = len(res.Items)
	return res
}

// selectItems is Query's selection: the result shell with its counters,
// and the ids hit, sorted, with both layers' indexes.
func selectItems(global, plan []Item, c, volume int) (res Result, ids []string, g, p map[string]*Item) {
	g, p = index(global), index(plan)
	resolved := map[string]bool{}
	for _, m := range []map[string]*Item{g, p} {
		for id, it := range m {
			if it.Status == Resolved {
				resolved[id] = true
			}
		}
	}
	res = Result{SchemaVersion: 1, Chapter: c, Volume: volume, Items: []Output{}}
	hit := map[string]bool{}
	for id, it := range p {
		if !resolved[id] && (it.PlantedChapter == c || covers(it, c)) {
			hit[id] = true
			res.Stats.RelevantFromPlan++
		}
	}
	for id, it := range g {
		if resolved[id] {
			continue
		}
		over := OverdueShort(it, c)
		if covers(it, c) || over {
			hit[id] = true
			res.Stats.RelevantFromGlobal++
			if over {
				res.Stats.OverdueShort++
			}
		}
	}
	ids = make([]string, 0, len(hit))
	for id := range hit {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return res, ids, g, p
}

// member is the value of the object raw's member key (the last one), or
// nil.
func member(raw json.RawMessage, key string) json.RawMessage {
	var v json.RawMessage
	jsonio.SplitObjectBytes(raw, func(k []byte, val json.RawMessage) {
		if string(k) == key {
			v = val
		}
	})
	return v
}

// merged is the output item of id: the global item backfilled from the
// plan, or the plan's own.
func merged(id string, g, p map[string]*Item) Item {
	if base, ok := g[id]; ok {
		out := base.clone()
		if pl, ok := p[id]; ok {
			out.backfill(pl)
		}
		return out
	}
	return p[id].clone()
}

// clone copies an item deeply enough that edits never reach the source.
// Full is the item with every field: a light item (LoadGlobalLight)
// parsed in full, any other as it is (shared, not copied).
func (it *Item) Full() Item {
	if it.light() {
		return it.clone()
	}
	return *it
}

func (it *Item) clone() Item {
	if it.light() {
		full, ok := parseItem(it.src)
		if !ok { // not reached: parseLight accepted the same bytes
			full = Item{raw: map[string]json.RawMessage{"_entry": it.src}}
		}
		return full
	}
	out := *it
	out.raw = make(map[string]json.RawMessage, len(it.raw))
	for k, v := range it.raw {
		out.raw[k] = v
	}
	out.History = append([]History(nil), it.History...)
	return out
}

// backfill copies description, scope and target_resolve_range from the
// plan where this item's are missing, null or empty.
func (it *Item) backfill(plan *Item) bool {
	changed := false
	for _, k := range []string{"description", "scope", "target_resolve_range"} {
		if emptyRaw(it.raw[k]) && !emptyRaw(plan.raw[k]) {
			if it.raw == nil {
				it.raw = map[string]json.RawMessage{}
			}
			it.raw[k] = plan.raw[k]
			changed = true
		}
	}
	it.Description = str(it.raw["description"])
	it.Scope = str(it.raw["scope"])
	return changed
}

// ListOptions filter List.
type ListOptions struct {
	Status        string // "" = any
	Overdue       bool   // only overdue short items
	LastCompleted int    // the chapter overdue is measured against
}

// List returns the fact-layer items matching opts, sorted by id (items
// without an id are skipped). Overdue uses the dashboard rule: short, not
// resolved, last completed chapter beyond the range end.
func List(global []Item, opts ListOptions) []Output {
	out := []Output{}
	for _, it := range index(global) {
		if opts.Status != "" && it.Status != opts.Status {
			continue
		}
		if opts.Overdue && !OverdueShort(it, opts.LastCompleted) {
			continue
		}
		out = append(out, Output{Item: it.clone()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Summary counts the fact layer.
type Summary struct {
	Total        int          `json:"total"`
	Open         int          `json:"open"`
	ByStatus     StatusCounts `json:"by_status"`
	ByScope      ScopeCounts  `json:"by_scope"`
	OverdueShort int          `json:"overdue_short"`
	Overdue      []string     `json:"overdue_ids"`
}

// StatusCounts counts items per status; other holds unknown or missing ones.
type StatusCounts struct {
	Planted  int `json:"planted"`
	Advanced int `json:"advanced"`
	Resolved int `json:"resolved"`
	Other    int `json:"other"`
}

// ScopeCounts counts items per scope.
type ScopeCounts struct {
	Short  int `json:"short"`
	Medium int `json:"medium"`
	Long   int `json:"long"`
	Other  int `json:"other"`
}

// Stat summarises the fact layer as of lastCompleted.
func Stat(global []Item, lastCompleted int) Summary {
	s := Summary{Overdue: []string{}}
	for _, it := range index(global) {
		s.Total++
		switch it.Status {
		case Planted:
			s.ByStatus.Planted++
		case Advanced:
			s.ByStatus.Advanced++
		case Resolved:
			s.ByStatus.Resolved++
		default:
			s.ByStatus.Other++
		}
		if it.Status != Resolved {
			s.Open++
		}
		switch it.Scope {
		case "short":
			s.ByScope.Short++
		case "medium":
			s.ByScope.Medium++
		case "long":
			s.ByScope.Long++
		default:
			s.ByScope.Other++
		}
		if OverdueShort(it, lastCompleted) {
			s.OverdueShort++
			s.Overdue = append(s.Overdue, it.ID)
		}
	}
	sort.Strings(s.Overdue)
	return s
}

// DormantLimit is how many chapters an open item may go untouched before
// it counts as dormant (SPEC §21): 5 for short scope, 15 otherwise.
func DormantLimit(scope string) int {
	if scope == "short" {
		return 5
	}
	return 15
}

// LastTouched is the newest chapter that planted, advanced or updated the
// item (0 when it names none).
func LastTouched(it *Item) int {
	last := max(it.PlantedChapter, it.LastUpdatedChapter)
	for _, h := range it.History {
		last = max(last, h.Chapter)
	}
	return last
}

// Dormant reports an open item (planted or advanced, not resolved) left
// untouched for more than its DormantLimit chapters as of chapter c, and
// for how many chapters it has been.
func Dormant(it *Item, c int) (since int, ok bool) {
	if it.Status == Resolved || Rank(it.Status) == 0 {
		return 0, false
	}
	last := LastTouched(it)
	if last == 0 {
		return 0, false
	}
	since = c - last
	return since, since > DormantLimit(it.Scope)
}
