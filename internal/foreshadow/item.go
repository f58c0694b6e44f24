// Package foreshadow is the foreshadowing model: the fact layer
// (foreshadowing/global.json) and the volume plan layer
// (volumes/vol-VV/foreshadowing.json), read leniently and written
// canonically; the per-chapter query (SPEC §9); the merge of foreshadow
// ops at commit (SPEC §8.3) and its undo for rollback.
package foreshadow

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Statuses in their forward order.
const (
	Planted  = "planted"
	Advanced = "advanced"
	Resolved = "resolved"
)

// Rank orders statuses: planted < advanced < resolved; anything else 0.
func Rank(status string) int {
	switch status {
	case Planted:
		return 1
	case Advanced:
		return 2
	case Resolved:
		return 3
	}
	return 0
}

// knownFields are the item fields of SPEC §2, in their canonical order;
// knownKeys is the same list as a slice.
var knownFields = [...]string{"id", "description", "scope", "status", "planted_chapter", "planted_storyline",
	"target_resolve_range", "last_updated_chapter", "history"}

var knownKeys = knownFields[:]

// Item is one foreshadowing item. Typed fields hold the value when the
// file gave it the documented type; every original field is also kept
// raw so a rewrite preserves fields (and odd values) it does not touch.
type Item struct {
	ID                 string
	Description        string
	Scope              string
	Status             string
	PlantedChapter     int // 0 = absent
	PlantedStoryline   string
	LastUpdatedChapter int // 0 = absent
	History            []History

	raw map[string]json.RawMessage
	// A light item (LoadGlobalLight) has only the selection fields above
	// (ID, Status, Scope, PlantedChapter, LastUpdatedChapter) and its range; raw is nil and
	// src holds the item's bytes, parsed fully by clone.
	src, rng json.RawMessage
}

// light reports a light item (see src).
func (it *Item) light() bool { return it.raw == nil && it.src != nil }

// History is one history entry.
type History struct {
	Chapter int
	Action  string
	Detail  string
	// Evidence is the summarizer's verbatim quote of the chapter (SPEC
	// §25); recall shows it when the item is paid off much later.
	Evidence string
	raw      map[string]json.RawMessage
}

// Range returns the item's target_resolve_range when it is valid
// ([a,b] integers, 1 ≤ a ≤ b).
func (it *Item) Range() (int, int, bool) {
	if it.light() {
		return validRange(it.rng)
	}
	return validRange(it.raw["target_resolve_range"])
}

func emptyRaw(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) > 4 {
		return false // without this, the whole item list was copied into a string
	}
	s := string(t)
	return s == "" || s == "null" || s == `""` || s == "[]"
}

func validRange(raw json.RawMessage) (int, int, bool) {
	if emptyRaw(raw) {
		return 0, 0, false
	}
	if a, b, ok := plainPair(raw); ok {
		if a < 1 || a > b {
			return 0, 0, false
		}
		return a, b, true
	}
	return jsonio.IntRange(raw)
}

// plainPair reads the common `[a, b]` of two small unsigned integers
// without a decoder (Range is called for every item on every query);
// anything else is left to the general path.
func plainPair(raw []byte) (int, int, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return 0, 0, false
	}
	a, i, ok := plainUint(raw, skipSpace(raw, i+1))
	if !ok {
		return 0, 0, false
	}
	if i = skipSpace(raw, i); i >= len(raw) || raw[i] != ',' {
		return 0, 0, false
	}
	b, i, ok := plainUint(raw, skipSpace(raw, i+1))
	if !ok {
		return 0, 0, false
	}
	if i = skipSpace(raw, i); i != len(raw)-1 || raw[i] != ']' {
		return 0, 0, false
	}
	return a, b, true
}

// plainUint reads 1–9 ASCII digits ending at a delimiter.
func plainUint(b []byte, i int) (int, int, bool) {
	n, start := 0, i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if d := i - start; d == 0 || d > 9 || (d > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if i < len(b) && b[i] != ',' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		return 0, 0, false
	}
	return n, i, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func str(raw json.RawMessage) string {
	s, _ := jsonio.String(raw)
	return s
}

func integer(raw json.RawMessage) int {
	if n, i, ok := plainUint(raw, 0); ok && i == len(raw) {
		return n
	}
	n, ok := jsonio.Int(anyOf(raw))
	if !ok || n < 0 {
		return 0
	}
	return n
}

func anyOf(raw json.RawMessage) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// parseItem reads one validated item; the splitters scan it once rather
// than once per field (2,000-item files are common).
func parseItem(raw json.RawMessage) (Item, bool) {
	m, ok := jsonio.ObjectMapSize(raw, len(knownKeys)+1)
	if !ok {
		return Item{}, false
	}
	it := Item{raw: m}
	it.ID = str(m["id"])
	it.Description = str(m["description"])
	it.Scope = str(m["scope"])
	it.Status = str(m["status"])
	it.PlantedChapter = integer(m["planted_chapter"])
	it.PlantedStoryline = str(m["planted_storyline"])
	it.LastUpdatedChapter = integer(m["last_updated_chapter"])
	if hs, ok := jsonio.SplitArray(m["history"]); ok {
		for _, h := range hs {
			hm, ok := jsonio.ObjectMap(h)
			if !ok {
				hm = map[string]json.RawMessage{"_raw": h} // kept verbatim below
			}
			it.History = append(it.History, History{Chapter: integer(hm["chapter"]), Action: str(hm["action"]), Detail: str(hm["detail"]), Evidence: str(hm["evidence"]), raw: hm})
		}
	}
	return it, true
}

// parseLight reads only what a query selects on; the rest of the item
// stays as bytes until clone parses it (parseItem builds a map per item
// and per history entry, which dominated querying 2,000 items).
func parseLight(raw json.RawMessage) (Item, bool) {
	var lf lightFields
	if !jsonio.SplitObjectBytes(raw, lf.set) {
		return Item{}, false
	}
	return lf.item(raw), true
}

// lightFields collects what a light item keeps of an item's members (the
// last of a repeated key wins, as in encoding/json).
type lightFields struct {
	id, status, scope, planted, updated, rng json.RawMessage
}

func (lf *lightFields) set(k []byte, v json.RawMessage) {
	switch string(k) {
	case "id":
		lf.id = v
	case "status":
		lf.status = v
	case "scope":
		lf.scope = v
	case "planted_chapter":
		lf.planted = v
	case "last_updated_chapter":
		lf.updated = v
	case "target_resolve_range":
		lf.rng = v
	}
}

// item is the light item of the object raw whose members lf collected.
func (lf *lightFields) item(raw json.RawMessage) Item {
	it := Item{src: raw, rng: lf.rng}
	it.ID, it.Status, it.Scope, it.PlantedChapter = str(lf.id), str(lf.status), str(lf.scope), integer(lf.planted)
	it.LastUpdatedChapter = integer(lf.updated)
	return it
}

// quoteKey is mustRaw for a key: the SPEC keys are plain ASCII and are
// quoted directly (an encoder per key dominated encoding large results).
func quoteKey(k string) []byte {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return mustRaw(k)
		}
	}
	return []byte(`"` + k + `"`)
}

// mustRaw encodes v without HTML escaping (SPEC §1: <>& stay as-is).
func mustRaw(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// set records a typed change in the raw map so it is written.
func (it *Item) set(key string, v any) {
	if it.raw == nil {
		it.raw = map[string]json.RawMessage{}
	}
	it.raw[key] = mustRaw(v)
}

func (it *Item) del(key string) { delete(it.raw, key) }

// MarshalJSON writes the known fields in SPEC order, then any other
// fields sorted by name.
func (it Item) MarshalJSON() ([]byte, error) { return it.encode(false) }

func (it Item) encode(knownOnly bool) ([]byte, error) {
	if it.light() {
		if knownOnly {
			return it.encodeLightKnown(), nil
		}
		full := it.clone()
		return full.encode(false)
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	emit := func(k string, v []byte) { writeMember(&buf, &first, k, v) }
	for _, k := range knownKeys {
		if k == "history" && it.History != nil {
			emit(k, it.historyJSON())
			continue
		}
		if v, ok := it.raw[k]; ok {
			emit(k, v)
		}
	}
	if !knownOnly {
		for _, k := range sortedExtra(it.raw, knownKeys) {
			emit(k, it.raw[k])
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// encodeLightKnown is encode(true) of a light item, written straight from
// its bytes: what parseItem then encode would write (the known keys in
// SPEC order, the last of a repeated key, history entries re-encoded by
// History.MarshalJSON's rule) without a map per item and per history
// entry — a query writes hundreds of items (FuzzQueryLight compares the
// two).
func (it Item) encodeLightKnown() []byte {
	var vals [len(knownFields)]json.RawMessage
	var has [len(knownFields)]bool
	jsonio.SplitObjectBytes(it.src, func(k []byte, v json.RawMessage) {
		for i, kk := range knownFields {
			if string(k) == kk {
				vals[i], has[i] = v, true
				break
			}
		}
	})
	var buf bytes.Buffer
	buf.Grow(len(it.src))
	buf.WriteByte('{')
	first := true
	for i, k := range knownFields {
		if !has[i] {
			continue
		}
		v := vals[i]
		if k == "history" {
			if hs, ok := jsonio.SplitArray(v); ok && len(hs) > 0 {
				v = historyOf(hs)
			}
		}
		writeMember(&buf, &first, k, v)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// historyOf is historyJSON of the entries hs as parseItem reads them.
func historyOf(hs []json.RawMessage) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, h := range hs {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(historyEntry(h))
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// historyEntry is History.MarshalJSON of one entry as parseItem reads it:
// a non-object verbatim; an object's chapter, action, detail, evidence,
// then its other keys sorted (the last of a repeated key); an object
// whose only key is "_raw" is that value, as a map holding it would be.
func historyEntry(h json.RawMessage) []byte {
	var known [len(historyKeys)]json.RawMessage
	var has [len(historyKeys)]bool
	type member struct {
		k string
		v json.RawMessage
	}
	var extra []member
	if !jsonio.SplitObjectBytes(h, func(k []byte, v json.RawMessage) {
		for i, kk := range historyKeys {
			if string(k) == kk {
				known[i], has[i] = v, true
				return
			}
		}
		for i := range extra {
			if extra[i].k == string(k) {
				extra[i].v = v
				return
			}
		}
		extra = append(extra, member{string(k), v})
	}) {
		return h
	}
	n := len(extra)
	for _, ok := range has {
		if ok {
			n++
		}
	}
	if n == 1 && len(extra) == 1 && extra[0].k == "_raw" {
		return extra[0].v
	}
	slices.SortFunc(extra, func(a, b member) int { return strings.Compare(a.k, b.k) })
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for i, k := range historyKeys {
		if has[i] {
			writeMember(&buf, &first, k, known[i])
		}
	}
	for _, m := range extra {
		writeMember(&buf, &first, m.k, m.v)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// writeMember writes one "key":value member of an object being written in
// a chosen key order; first is true until the first member.
func writeMember(buf *bytes.Buffer, first *bool, k string, v []byte) {
	if !*first {
		buf.WriteByte(',')
	}
	*first = false
	buf.Write(quoteKey(k))
	buf.WriteByte(':')
	buf.Write(v)
}

// historyJSON encodes History (set once a merge or rollback touched it;
// an untouched history is written back byte for byte).
func (it Item) historyJSON() []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, h := range it.History {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, _ := h.MarshalJSON()
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

var historyKeys = [...]string{"chapter", "action", "detail", "evidence"}

// MarshalJSON writes chapter, action, detail, evidence (when there is
// one), then other fields sorted.
func (h History) MarshalJSON() ([]byte, error) {
	if v, ok := h.raw["_raw"]; ok && len(h.raw) == 1 {
		return v, nil
	}
	if h.raw == nil {
		h.raw = map[string]json.RawMessage{"chapter": mustRaw(h.Chapter), "action": mustRaw(h.Action), "detail": mustRaw(h.Detail)}
		if h.Evidence != "" {
			h.raw["evidence"] = mustRaw(h.Evidence)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for _, k := range append(append([]string{}, historyKeys[:]...), sortedExtra(h.raw, historyKeys[:])...) {
		v, ok := h.raw[k]
		if !ok {
			continue
		}
		writeMember(&buf, &first, k, v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func sortedExtra(m map[string]json.RawMessage, known []string) []string {
	var ks []string
	for k := range m {
		isKnown := false
		for _, kk := range known {
			if k == kk {
				isKnown = true
				break
			}
		}
		if !isKnown {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// File is a parsed foreshadowing file: its items in file order plus the
// other top-level fields (kept on rewrite).
type File struct {
	Rel   string
	Items []Item
	top   map[string]json.RawMessage // nil when the file was a bare list
}

// Parse reads {"foreshadowing":[…]} or a bare list. Entries that are not
// objects are kept raw on rewrite and ignored otherwise.
func Parse(data []byte, rel string) (*File, error) { return parse(data, rel, false) }

func parse(data []byte, rel string, light bool) (*File, error) {
	if light {
		return parseLightFile(data, rel)
	}
	v, err := jsonio.Validate(data, rel)
	if err != nil {
		return nil, err
	}
	return parseSplit(v, rel, false)
}

// parseLightFile is parse's light path. The usual file, an object whose
// "foreshadowing" member is a list, is validated and split — the top
// level, the list and each item's members — in one walk
// (jsonio.ValidateSplitting; the file is MBs in a long book); any other
// shape is validated, then split by parseSplit.
func parseLightFile(data []byte, rel string) (*File, error) {
	var fields []lightFields
	v, top, list, ok, err := jsonio.ValidateSplitting(data, rel, "foreshadowing", func(n int, k []byte, val json.RawMessage) {
		for len(fields) <= n {
			fields = append(fields, lightFields{})
		}
		fields[n].set(k, val)
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return parseSplit(v, rel, true)
	}
	f := &File{Rel: rel, top: top, Items: make([]Item, 0, len(list))}
	for n, raw := range list {
		if raw[0] != '{' {
			f.Items = append(f.Items, Item{raw: map[string]json.RawMessage{"_entry": raw}})
			continue
		}
		var lf lightFields
		if n < len(fields) {
			lf = fields[n]
		}
		f.Items = append(f.Items, lf.item(raw))
	}
	return f, nil
}

// parseSplit is parse after validation: the top level, the list, then
// each item, split in turn.
func parseSplit(v []byte, rel string, light bool) (*File, error) {
	f := &File{Rel: rel, Items: []Item{}}
	var list []json.RawMessage
	t := bytes.TrimSpace(v)
	switch {
	case len(t) > 0 && t[0] == '[':
		list, _ = jsonio.SplitArray(t)
	case len(t) > 0 && t[0] == '{':
		f.top, _ = jsonio.ObjectMap(t)
		fs, ok := f.top["foreshadowing"]
		if ok && !emptyRaw(fs) {
			var isList bool
			if list, isList = jsonio.SplitArray(fs); !isList {
				return nil, schemaErr(rel)
			}
		}
		if !ok && len(f.top) > 0 && !onlyMeta(f.top) {
			return nil, schemaErr(rel)
		}
	default:
		return nil, schemaErr(rel)
	}
	f.Items = make([]Item, 0, len(list))
	for _, raw := range list {
		var it Item
		var ok bool
		if light {
			it, ok = parseLight(raw)
		} else {
			it, ok = parseItem(raw)
		}
		if !ok {
			it = Item{raw: map[string]json.RawMessage{"_entry": raw}}
		}
		f.Items = append(f.Items, it)
	}
	return f, nil
}

// onlyMeta accepts an object that has no foreshadowing list yet but only
// bookkeeping fields (e.g. {"volume":2}).
func onlyMeta(top map[string]json.RawMessage) bool {
	for k := range top {
		switch k {
		case "volume", "schema_version", "version", "updated_at", "last_updated":
		default:
			return false
		}
	}
	return true
}

func schemaErr(rel string) error {
	return errs.Newf(errs.Schema, "%s 的格式不受支持：应为 {\"foreshadowing\":[…]} 或伏笔数组", "%s has an unsupported shape: expected {\"foreshadowing\":[…]} or a list of items", rel).
		With("file", rel).Hint("把伏笔条目放进 foreshadowing 数组", "put the items in a \"foreshadowing\" array")
}

func load(root *project.Root, rel string) (*File, error) { return loadAs(root, rel, false) }

func loadAs(root *project.Root, rel string, light bool) (*File, error) {
	if _, err := root.Abs(rel); err != nil {
		return nil, err
	}
	if !root.Exists(rel) {
		return &File{Rel: rel, Items: []Item{}}, nil
	}
	data, err := root.MapFile(rel) // the global file is MBs in a long book
	if err != nil {
		return nil, err
	}
	return parse(data, rel, light)
}

// LoadGlobalLight reads the fact layer for Query only: the items carry
// just what the selection needs (id, status, scope, planted_chapter,
// range) and are parsed in full only when selected. Errors are
// LoadGlobal's. Use LoadGlobal for anything else.
func LoadGlobalLight(root *project.Root) ([]Item, error) {
	f, err := loadAs(root, layout.GlobalForeshadow, true)
	if err != nil {
		return nil, err
	}
	return f.Items, nil
}

// LoadGlobalFile reads foreshadowing/global.json (missing → empty).
func LoadGlobalFile(root *project.Root) (*File, error) { return load(root, layout.GlobalForeshadow) }

// LoadGlobal returns the fact layer's items (missing file → none).
func LoadGlobal(root *project.Root) ([]Item, error) {
	f, err := LoadGlobalFile(root)
	if err != nil {
		return nil, err
	}
	return f.Items, nil
}

// LoadPlan returns the volume plan's items (missing file → none).
func LoadPlan(root *project.Root, volume int) ([]Item, error) {
	f, err := load(root, layout.PlanForeshadow(volume))
	if err != nil {
		return nil, err
	}
	return f.Items, nil
}

// Encode renders the file canonically with items replaced: the original
// top-level fields are kept, a bare list becomes {"foreshadowing":[…]}.
// The bytes are those of encoding/json's indenting encoder over the
// top-level map (sorted keys, 2-space indent), produced in one pass: each
// item is indented in place instead of the encoder compacting every raw
// value and re-indenting the whole file (a 2,000-item file is rewritten
// on every commit that moves foreshadowing).
func (f *File) Encode(items []Item) ([]byte, error) {
	keys := make([]string, 0, len(f.top)+1)
	for k := range f.top {
		if k != "foreshadowing" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, "foreshadowing")
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Grow(len(items) * 512)
	buf.WriteString("{\n")
	for i, k := range keys {
		buf.WriteString("  ")
		buf.Write(mustRaw(k))
		buf.WriteString(": ")
		if k == "foreshadowing" {
			if err := encodeList(&buf, items); err != nil {
				return nil, err
			}
		} else if err := json.Indent(&buf, f.top[k], "  ", "  "); err != nil {
			return nil, err
		}
		if i < len(keys)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// encodeList writes the items as the value of a depth-1 key.
func encodeList(buf *bytes.Buffer, items []Item) error {
	if len(items) == 0 {
		buf.WriteString("[]")
		return nil
	}
	buf.WriteString("[\n    ")
	for i, it := range items {
		if i > 0 {
			buf.WriteString(",\n    ")
		}
		b := []byte(nil)
		if v, ok := it.raw["_entry"]; ok && len(it.raw) == 1 {
			b = v
		} else {
			var err error
			if b, err = it.MarshalJSON(); err != nil {
				return err
			}
		}
		if err := jsonio.Indent(buf, b, "    ", "  "); err != nil {
			return err
		}
	}
	buf.WriteString("\n  ]")
	return nil
}
