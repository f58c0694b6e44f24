package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// MaxTailChars bounds previous_chapter_tail (SPEC §19).
const MaxTailChars = 800

// castSlugs is the chapter's cast for the state slice (SPEC §19): the
// contract's character_states, the characters the outline block names
// (its POV line included) and, for the summarizer, every character the
// draft names — mapped through entity_id_map.
func (b *builder) castSlugs(draft string) (map[string]bool, error) {
	chars, err := b.characters()
	if err != nil {
		return nil, err
	}
	bySlug := map[string]string{}
	for _, c := range chars {
		bySlug[c.Slug] = c.DisplayName
	}
	byName := nameIndex(chars) // a contract may use an alias; display names win
	cast := map[string]bool{}
	if b.contract != nil {
		for _, n := range b.contract.CharacterNames {
			if s, ok := byName[n]; ok {
				cast[s] = true
			} else if _, ok := bySlug[n]; ok {
				cast[n] = true
			}
		}
	}
	for _, c := range chars {
		// By any name: the text may call the POV character by an alias.
		if c.NamedIn(b.blk.Text) || (draft != "" && c.NamedIn(draft)) {
			cast[c.Slug] = true
		}
	}
	return cast, nil
}

// stateSlice sets inline state_slice: state_version, last_updated_chapter,
// the cast's characters, the items/locations/factions the cast's entries
// or the outline block name (or that name a cast member), and world_state.
// The whole state file is never sent to a model (a long project's is MBs),
// so paths.current_state is not given to these agents; the summarizer's
// packet also carries base_state_version, the version the slice was cut
// from, which its delta is checked against at commit.
func (b *builder) stateSlice(draft string, base bool) error {
	if !b.root.Exists(layout.CurrentState) { // a directory or an escaping link is read, and refused
		return nil
	}
	top, err := b.stateTop()
	if err != nil {
		return err
	}
	cast, err := b.castSlugs(draft)
	if err != nil {
		return err
	}
	out := &OMap{}
	for _, k := range []string{"state_version", "last_updated_chapter"} {
		if v, ok := top[k]; ok {
			out.Set(k, v)
		}
	}
	if v, ok := top["state_version"]; ok && base {
		b.in.Set("base_state_version", v)
	}
	castList := make([][]byte, 0, len(cast))
	for s := range cast {
		castList = append(castList, []byte(`"`+s+`"`))
	}
	lists := listBounder{castList}
	chars := &OMap{}
	var castJSON bytes.Buffer
	splitGroup(top["characters"], func(k string, v json.RawMessage) {
		if cast[k] {
			// Forward references are read from what the slice shows (a
			// note cut from a long list no longer pulls its item in).
			v = lists.bound(v)
			chars.Set(k, shortenTexts(b.withoutVolumeCastTexts("characters", k, v)))
			castJSON.Write(v)
		}
	})
	out.Set("characters", chars)
	// Forward references only (SPEC §19): what the cast's own fields or
	// the outline block name. An entity that merely mentions a cast
	// member (a location's residents, an item's past holders, a faction's
	// enemies) is not pulled in — in a dense project that is most of them.
	// Only the two name members of an entity are read (a dense state has
	// hundreds of kB of entities here; decoding each was most of the
	// packet's time).
	named := func(k string, v json.RawMessage) (refClass, bool) {
		switch {
		case strings.Contains(b.blk.Text, k) || blockNames(b.blk.Text, v):
			return refOutline, true
		case bytes.Contains(castJSON.Bytes(), []byte(`"`+k+`"`)):
			return refCast, true
		}
		return 0, false
	}
	mentions := func(v []byte) bool {
		for _, q := range castList {
			if bytes.Contains(v, q) {
				return true
			}
		}
		return false
	}
	cands := sliceCandidates(top, cast, named, mentions)
	keep, omitted := capRefs(cands)
	for _, g := range stateops.Groups[1:4] {
		sel := &OMap{}
		for i, c := range cands {
			if c.group == g && keep[i] {
				sel.Set(c.k, shortenTexts(b.withoutVolumeCastTexts(g, c.k, lists.bound(c.v))))
			}
		}
		out.Set(g, sel)
	}
	if v, ok := top["world_state"]; ok {
		out.Set("world_state", v)
	}
	// Encoding checks every kept value, so a hand-edited file is trusted
	// only where it is used; a bad one gets the full validation's error.
	var probe bytes.Buffer
	if encodeCompact(&probe, out) != nil {
		data, err := b.root.ReadFile(layout.CurrentState)
		if err != nil {
			return err
		}
		if _, err := jsonio.Validate(data, layout.CurrentState); err != nil {
			return err
		}
		return errs.SchemaIn(layout.CurrentState, "的结构无法切片", "cannot be sliced")
	}
	if omitted > 0 {
		out.Set("omitted", fmt.Sprintf(sliceRefsMore, omitted))
	}
	b.in.Set(keyStateSlice, out)
	return nil
}

// sliceCandidates are the items, locations and factions the slice may
// carry, in state order: those named (by the outline block or the cast's
// entries), the cast's owned items within their cap, and the factions a
// cast member belongs to. The slice's reference cap decides last.
func sliceCandidates(top map[string]json.RawMessage, cast map[string]bool, named func(string, json.RawMessage) (refClass, bool), mentions func([]byte) bool) []refCand {
	var cands []refCand
	for _, g := range stateops.Groups[1:4] { // items, locations, factions
		var owned []ownedItem
		first := len(cands)
		jsonio.SplitObject(top[g], func(k string, v json.RawMessage) {
			cls, isNamed := named(k, v)
			switch {
			case isNamed:
				cands = append(cands, refCand{group: g, k: k, v: v, class: cls})
			case g == "items" && mentions(v):
				if it, ok := itemLink(k, v, cast); ok {
					owned = append(owned, it)
					cands = append(cands, refCand{group: g, k: k, v: v, class: refOwned, changed: it.changed})
				}
			case g == "factions" && mentions(v) && factionHas(v, cast):
				cands = append(cands, refCand{group: g, k: k, v: v, class: refMember})
			}
		})
		capped := capOwned(owned)
		kept := cands[:first]
		for _, c := range cands[first:] {
			if c.class != refOwned || capped[c.k] {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	return cands
}

// blockNames reports whether the outline block names the entity v by its
// name or display_name.
func blockNames(block string, v json.RawMessage) bool {
	found := false
	jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
		if k := string(key); !found && (k == "name" || k == "display_name") {
			if name, ok := jsonio.String(val); ok && name != "" && strings.Contains(block, name) {
				found = true
			}
		}
	})
	return found
}

// rebuildHint points a state file that does not parse (or has the wrong
// shape) at novel-commit rebuild when the changelog can restore it exactly
// (SPEC §22.1: "fix the JSON" is no advice for a file the suite wrote and
// can write again); otherwise the error stays as it is.
func rebuildHint(root *project.Root, err error) error {
	e := errs.As(err)
	if e == nil || (e.Code != errs.InvalidJSON && e.Code != errs.Schema) || changelog.RestoreRefusal(root, layout.CurrentState) != nil {
		return err
	}
	return e.With("rebuild", "possible").
		Hint("changelog 可以完整恢复这个状态文件：运行 novel-commit rebuild（原文件保存在 state/backups/），然后重试",
			"the changelog can restore this state file exactly: run novel-commit rebuild (the old file is kept under state/backups/), then retry")
}

// stateMembers returns the state's top-level members. A canonical state
// (what every commit writes: sorted keys, 2-space indent) is cut at its
// top-level key lines without scanning the whole file — a long project's
// state is MBs and a packet must stay ≤ 30 ms — and every value the slice
// keeps is checked; anything else is validated and split in full.
func stateMembers(data []byte) (map[string]json.RawMessage, error) {
	data = jsonio.StripBOM(data)
	if top, ok := canonicalMembers(data); ok {
		return top, nil
	}
	body, err := jsonio.Validate(data, layout.CurrentState)
	if err != nil {
		return nil, err
	}
	top, ok := jsonio.ObjectMap(body)
	if !ok {
		return nil, errs.SchemaIn(layout.CurrentState, "必须是 JSON 对象", "must be a JSON object")
	}
	return top, nil
}

// canonicalMembers finds the members the slice needs by their canonical
// key lines ("\n  \"key\": "), searched in sorted key order so the file is
// scanned once; a value ends at the last canonical closing line before the
// next key found. ok is false when a key line is missing.
func canonicalMembers(data []byte) (map[string]json.RawMessage, bool) {
	if !bytes.HasPrefix(data, []byte("{\n  \"")) {
		return nil, false
	}
	keys := []string{"characters", "factions", "items", "last_updated_chapter", "locations", "state_version", "world_state"}
	starts, lines := make([]int, len(keys)), make([]int, len(keys)+1)
	pos := 0
	for n, k := range keys {
		marker := []byte("\n  \"" + k + "\": ")
		i := bytes.Index(data[pos:], marker)
		if i < 0 {
			return nil, false
		}
		lines[n], starts[n] = pos+i, pos+i+len(marker)
		pos = starts[n]
	}
	lines[len(keys)] = len(data)
	top := make(map[string]json.RawMessage, len(keys))
	for n, k := range keys {
		start, region := starts[n], data[starts[n]:lines[n+1]]
		var end int
		switch {
		case bytes.HasPrefix(region, []byte("{}")) || bytes.HasPrefix(region, []byte("[]")):
			end = start + 2
		case len(region) > 0 && (region[0] == '{' || region[0] == '['):
			closer := []byte("\n  }")
			if region[0] == '[' {
				closer = []byte("\n  ]")
			}
			j := bytes.LastIndex(region, closer)
			if j < 0 {
				return nil, false
			}
			end = start + j + len(closer)
		default:
			j := bytes.IndexAny(region, ",\n")
			if j < 0 {
				return nil, false
			}
			end = start + j
		}
		top[k] = data[start:end:end]
	}
	return top, true
}

// previousTail sets previous_chapter_tail: the last ≤ MaxTailChars
// characters of chapters/chapter-{C−1}.md, starting at a paragraph
// boundary (a sentence end when the last paragraph alone is longer).
func (b *builder) previousTail() error { return b.previous(keyTail, MaxTailChars) }

// previous sets key to the end of chapter C−1 in at most max characters
// (Tail), when there is a chapter before this one.
func (b *builder) previous(key string, max int) error {
	if b.c <= 1 {
		return nil
	}
	rel := layout.Chapter(b.c - 1)
	if !b.root.Exists(rel) {
		return nil
	}
	text, err := b.root.ReadText(rel)
	if err != nil {
		return err
	}
	if t := Tail(text, max); t != "" {
		b.in.Set(key, t)
	}
	return nil
}

// Tail is the end of text in at most n characters, cut at the first
// paragraph start inside the window (else after the first sentence end,
// else at the window).
func Tail(text string, n int) string {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), " \t\n\u3000")
	if utf8.RuneCountInString(text) <= n {
		return strings.TrimSpace(text)
	}
	r := []rune(text)
	win := string(r[len(r)-n:])
	if i := strings.Index(win, "\n"); i >= 0 {
		return strings.TrimLeft(win[i:], "\n \t\u3000")
	}
	for i, c := range win {
		if strings.ContainsRune("。！？!?…", c) {
			return strings.TrimLeft(win[i+utf8.RuneLen(c):], "”」』 \t\u3000")
		}
	}
	return win
}

// foreshadowReminders sets foreshadow_reminders (SPEC §21) when any open
// item has been dormant beyond its limit.
func (b *builder) foreshadowReminders(global []foreshadow.Item) {
	if r := foreshadow.Reminders(global, b.c); len(r) > 0 {
		b.in.Set("foreshadow_reminders", r)
	}
}

// splitGroup calls fn for each member of a top-level state group. In the
// canonical layout a member's key line is the only line indented exactly
// four spaces, so the members are found by searching for those lines
// (far faster than walking every value of a multi-MB group); any other
// layout is split by the generic scanner. Values are checked when the
// slice is encoded.
func splitGroup(group []byte, fn func(k string, v json.RawMessage)) {
	const line = "\n    \""
	if !bytes.HasPrefix(group, []byte("{"+line)) || !bytes.HasSuffix(group, []byte("\n  }")) {
		jsonio.SplitObject(group, fn)
		return
	}
	body := group[1 : len(group)-len("\n  }")]
	for pos := 0; pos < len(body); {
		next := bytes.Index(body[pos+1:], []byte(line))
		end := len(body)
		if next >= 0 {
			end = pos + 1 + next
		}
		member := body[pos+len(line)-1 : end] // from the key's opening quote
		kend := stringEnd(member)
		if kend < 0 || !bytes.HasPrefix(member[kend:], []byte(": ")) {
			jsonio.SplitObject(group, fn) // not the layout it looked like
			return
		}
		key, ok := jsonio.String(member[:kend])
		if !ok {
			jsonio.SplitObject(group, fn)
			return
		}
		v := bytes.TrimSuffix(member[kend+2:], []byte(","))
		fn(key, v[:len(v):len(v)])
		pos = end
	}
}

// stringEnd is the index just past the JSON string opening s, or -1.
func stringEnd(s []byte) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// checkStateShape refuses a state whose version is not an integer ≥ 0 or
// whose groups are not objects (what the commit would refuse too).
func checkStateShape(top map[string]json.RawMessage) error {
	if v, ok := top["state_version"]; ok {
		var n int
		if json.Unmarshal(v, &n) != nil || n < 0 {
			return errs.SchemaIn(layout.CurrentState, "的 state_version 必须是 ≥ 0 的整数", "state_version must be an integer ≥ 0").With("field", "state_version")
		}
	}
	for _, g := range stateops.Groups {
		if v, ok := top[g]; ok && (len(bytes.TrimSpace(v)) == 0 || bytes.TrimSpace(v)[0] != '{') {
			return errs.SchemaIn(layout.CurrentState, "的 %s 必须是对象", "%s must be an object", g).With("field", g)
		}
	}
	return nil
}

// MaxSliceText bounds a text field in the state slice (SPEC §19); a
// longer one is cut and followed by sliceTextMore.
const (
	MaxSliceText  = 300
	sliceTextMore = "…（全文见 state/current-state.json）"
	sliceListMore = "…（略去 %d 条，全文见 state/current-state.json）"
	// maxOwnedPerMember bounds the items a cast member owns or holds that
	// the slice carries (SPEC §19), most recently changed first.
	maxOwnedPerMember = 10
)

// MaxSliceList bounds a list in the state slice (DESIGN, "State slice"):
// a longer one keeps the entries that name a cast member and, up to
// MaxSliceList entries in all, the last others — state lists grow by
// appending, so those are the most recent — in their order, after one
// string saying how many were left out and where they are.
const MaxSliceList = 10

// listBounder applies MaxSliceList to the lists of a kept entity.
type listBounder struct {
	cast [][]byte // the cast's slugs, quoted
}

// bound cuts every list of v (at any depth) longer than MaxSliceList. v
// is returned as is when no list is that long or it is not valid JSON
// (the slice's encoding reports that).
func (lb listBounder) bound(v json.RawMessage) json.RawMessage {
	if b, changed := lb.bounded(v); changed {
		return b
	}
	return v
}

func (lb listBounder) names(e []byte) bool {
	for _, q := range lb.cast {
		if bytes.Contains(e, q) {
			return true
		}
	}
	return false
}

// bounded is bound reporting whether anything was cut.
func (lb listBounder) bounded(v json.RawMessage) (json.RawMessage, bool) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || (t[0] != '[' && t[0] != '{') || bytes.IndexByte(t, '[') < 0 {
		return v, false // no list inside
	}
	if t[0] == '[' {
		elems, ok := jsonio.SplitArray(t)
		if !ok {
			return v, false
		}
		changed := false
		for i, e := range elems {
			if b, c := lb.bounded(e); c {
				elems[i], changed = b, true
			}
		}
		out := []byte{'['}
		if n := len(elems) - MaxSliceList; n > 0 {
			// The cast's entries stay; the other places go to the last
			// entries.
			keep := make([]bool, len(elems))
			room := MaxSliceList
			for i, e := range elems {
				if lb.names(e) {
					keep[i] = true
					room--
				}
			}
			for i := len(elems) - 1; i >= 0 && room > 0; i-- {
				if !keep[i] {
					keep[i] = true
					room--
				}
			}
			kept := elems[:0]
			for i, e := range elems {
				if keep[i] {
					kept = append(kept, e)
				}
			}
			var q bytes.Buffer
			if encodeCompact(&q, fmt.Sprintf(sliceListMore, len(elems)-len(kept))) != nil {
				return v, false
			}
			out = append(out, q.Bytes()...)
			elems, changed = kept, true
		}
		if !changed {
			return v, false
		}
		for _, e := range elems {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, e...)
		}
		return append(out, ']'), true
	}
	out := []byte{'{'}
	changed, keysOK := false, true
	ok := jsonio.SplitObjectBytes(t, func(k []byte, val json.RawMessage) {
		b, c := lb.bounded(val)
		changed = changed || c
		var q bytes.Buffer
		if encodeCompact(&q, string(k)) != nil {
			keysOK = false
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, q.Bytes()...), ':'), b...)
	})
	if !ok || !keysOK || !changed {
		return v, false
	}
	return append(out, '}'), true
}

// ownedItem is an item whose owner or holder is a cast member.
type ownedItem struct {
	key     string
	members []string
	changed int // the newest chapter the item records
}

// itemLink reads an item's owner/holder and how recently it changed (its
// last_updated_chapter or the newest chapter of its holder_history or
// history); ok is false when neither names a cast member.
func itemLink(k string, v json.RawMessage, cast map[string]bool) (ownedItem, bool) {
	o := ownedItem{key: k}
	var updated, hist []json.RawMessage
	jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
		switch string(key) {
		case "owner", "holder":
			if s, ok := jsonio.String(val); ok && cast[s] && !slices.Contains(o.members, s) {
				o.members = append(o.members, s)
			}
		case "last_updated_chapter":
			updated = append(updated, val)
		case "holder_history", "history":
			hist = append(hist, val)
		}
	})
	if len(o.members) == 0 {
		return ownedItem{}, false
	}
	// Only the few owned items get their histories decoded.
	for _, u := range updated {
		var n any
		if json.Unmarshal(u, &n) == nil {
			o.changed = max(o.changed, chapterOf(n))
		}
	}
	for _, h := range hist {
		var list []any
		if json.Unmarshal(h, &list) != nil {
			continue
		}
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				o.changed = max(o.changed, chapterOf(m["chapter"]))
			}
		}
	}
	return o, true
}

func chapterOf(v any) int {
	if f, ok := v.(float64); ok && f > 0 && f < 1e9 {
		return int(f)
	}
	return 0
}

// capOwned keeps, per cast member, the maxOwnedPerMember most recently
// changed items (ties by key).
func capOwned(owned []ownedItem) map[string]bool {
	slices.SortFunc(owned, func(a, b ownedItem) int {
		if a.changed != b.changed {
			return b.changed - a.changed
		}
		return strings.Compare(a.key, b.key)
	})
	keep, per := map[string]bool{}, map[string]int{}
	for _, it := range owned {
		for _, m := range it.members {
			if per[m] < maxOwnedPerMember {
				per[m]++
				keep[it.key] = true
			}
		}
	}
	return keep
}

// MaxSliceRefs bounds the forward references the slice carries (items,
// locations and factions together; DESIGN, "State slice"): in a densely
// linked book the cast's owned items and factions alone outgrow the
// packet budget (SPEC §19).
const MaxSliceRefs = 20

const sliceRefsMore = "…（另有 %d 个关联条目未列出，全文见 state/current-state.json）"

// refClass ranks how a forward reference reached the slice: what the
// outline block names first, then what the cast's own fields name, then
// the factions a cast member belongs to, then the items one owns or holds.
type refClass int

const (
	refOutline refClass = iota
	refCast
	refMember
	refOwned
)

// refCand is a forward reference in state order.
type refCand struct {
	group, k string
	v        json.RawMessage
	class    refClass
	changed  int // the newest chapter it records (owned items)
}

// capRefs keeps at most MaxSliceRefs candidates: by class, then most
// recently changed first, then state order. It returns which to keep
// (by index) and how many were left out.
func capRefs(cands []refCand) ([]bool, int) {
	keep := make([]bool, len(cands))
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := cands[a], cands[b]
		if ca.class != cb.class {
			return int(ca.class) - int(cb.class)
		}
		return cb.changed - ca.changed
	})
	for n, i := range order {
		keep[i] = n < MaxSliceRefs
	}
	return keep, max(0, len(cands)-MaxSliceRefs)
}

// factionHas reports whether a cast member belongs to the faction: it is
// one of its members or its leader.
func factionHas(v json.RawMessage, cast map[string]bool) bool {
	has := false
	jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
		switch string(key) {
		case "leader":
			if s, ok := jsonio.String(val); ok && cast[s] {
				has = true
			}
		case "members":
			list, _ := jsonio.SplitArray(val)
			for _, m := range list {
				if s, ok := jsonio.String(m); ok && cast[s] {
					has = true
				}
			}
		}
	})
	return has
}

// shortenTexts cuts every string value of v longer than MaxSliceText
// characters to its first MaxSliceText followed by sliceTextMore (keys
// are never cut). v is returned as is when nothing is that long; a value
// that is not valid JSON is left for the slice's encoding to report.
func shortenTexts(v json.RawMessage) json.RawMessage {
	var out []byte
	last := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		n := stringEnd(v[i:])
		if n < 0 {
			return v
		}
		j := i + n
		if n-2 > MaxSliceText && !isKey(v[j:]) {
			if s, ok := jsonio.String(v[i:j]); ok && utf8.RuneCountInString(s) > MaxSliceText {
				var q bytes.Buffer
				if encodeCompact(&q, string([]rune(s)[:MaxSliceText])+sliceTextMore) == nil {
					out = append(append(out, v[last:i]...), q.Bytes()...)
					last = j
				}
			}
		}
		i = j - 1
	}
	if out == nil {
		return v
	}
	return append(out, v[last:]...)
}

// isKey reports whether the bytes after a string start with a colon.
func isKey(rest []byte) bool {
	t := bytes.TrimLeft(rest, " \t\r\n")
	return len(t) > 0 && t[0] == ':'
}
