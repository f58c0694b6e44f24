package stateops

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// The state file's canonical form is jsonio.Marshal of the decoded object
// (sorted keys, 2-space indent, json.Number literals kept). In that form
// every raw newline is formatting and a line's indent is its depth, so the
// members of an object can be located by scanning for "\n" + indent + `"`
// without tokenising the whole document. That is what lets a commit
// rewrite only the entities its ops touch (SPEC §14).

// Empty returns the empty state (the rebuild start without a baseline).
func Empty() map[string]any {
	st := map[string]any{"schema_version": 1, "state_version": 0, "last_updated_chapter": 0}
	normalize(st)
	return st
}

// IsEmpty reports a state with nothing committed (state_version 0) and
// no entity in any group: what a replay without a baseline starts from.
func IsEmpty(st map[string]any) bool {
	if v, _ := jsonio.Int(st["state_version"]); v > 0 {
		return false
	}
	for _, g := range Groups {
		if m, ok := st[g].(map[string]any); ok && len(m) > 0 {
			return false
		}
	}
	return true
}

// normalize fills the groups and the derived list a state must have; it
// returns warnings for values it had to replace.
func normalize(st map[string]any) []string {
	var warns []string
	if _, ok := st["schema_version"]; !ok {
		st["schema_version"] = 1
	}
	if _, ok := st["last_updated_chapter"]; !ok {
		st["last_updated_chapter"] = 0
	}
	for _, g := range Groups {
		if v, ok := st[g]; !ok || v == nil {
			st[g] = map[string]any{}
		}
	}
	switch v := st[ActiveForeshadowing].(type) {
	case []any:
	case nil:
		st[ActiveForeshadowing] = []any{}
	default:
		_ = v
		st[ActiveForeshadowing] = []any{}
		warns = append(warns, "active_foreshadowing was not an array; it was reset to [] (it is derived from foreshadow ops)")
	}
	return warns
}

// DecodeState parses a state document into a normalized object.
// state_version must be an integer ≥ 0.
func DecodeState(data []byte, rel string) (map[string]any, []string, error) {
	var v any
	if err := jsonio.Decode(data, rel, &v); err != nil {
		return nil, nil, err
	}
	st, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errs.Newf(errs.Schema, "%s 必须是 JSON 对象，实际为 %s", "%s must be a JSON object, not %s", rel, jsonio.TypeName(v)).
			With("file", rel).Hint("恢复状态文件；novel-commit rebuild --check 会说明能否从 changelog 重建它", "restore the state file; novel-commit rebuild --check says whether the changelog can rebuild it")
	}
	if _, err := versionOf(st, rel); err != nil {
		return nil, nil, err
	}
	return st, normalize(st), nil
}

func versionOf(st map[string]any, rel string) (int, error) {
	raw, ok := st["state_version"]
	n, isInt := jsonio.Int(raw)
	if !ok || !isInt || n < 0 {
		return 0, errs.Newf(errs.Schema, "%s 的 state_version 必须是 ≥ 0 的整数", "%s: state_version must be an integer ≥ 0", rel).
			With("file", rel).With("field", "state_version").
			Hint("修正 state_version；novel-commit rebuild --check 会说明能否从 changelog 重建状态", "fix state_version; novel-commit rebuild --check says whether the changelog can rebuild the state")
	}
	return n, nil
}

// Canonical re-encodes a state document canonically (no normalisation).
func Canonical(data []byte) ([]byte, error) {
	var v any
	if err := jsonio.Decode(data, "state", &v); err != nil {
		return nil, err
	}
	return jsonio.Marshal(v)
}

// Doc is an opened state document, ready for one Apply.
type Doc struct {
	Version int
	// Spliced reports that Apply will rewrite only the touched entities.
	Spliced bool

	old  []byte
	rel  string
	top  []member
	full map[string]any
	warn []string
	// groups holds the members of the top-level objects when the
	// canonical scan recorded them (nil: splice scans for them).
	groups map[string][]member
}

// Open prepares data for an update. A canonical document is updated by
// splicing; anything else (hand-edited) is decoded fully and rewritten
// canonically once. The canonical check also records where the members
// are, so the splice does not search the document again.
func Open(data []byte, rel string) (*Doc, error) {
	lay, canonical := scanCanonical(data)
	if canonical && layoutOK(data, lay.top) {
		if v, ok := scalarInt(data, lay.top, "state_version"); ok && v >= 0 {
			return &Doc{old: data, rel: rel, top: lay.top, groups: lay.groups, Version: v, Spliced: true}, nil
		}
	}
	return open(data, rel, false)
}

func open(data []byte, rel string, canonical bool) (*Doc, error) {
	d := &Doc{old: data, rel: rel}
	if canonical {
		if top, ok := spliceLayout(data); ok {
			if v, ok := scalarInt(data, top, "state_version"); ok && v >= 0 {
				d.top, d.Version, d.Spliced = top, v, true
				return d, nil
			}
		}
	}
	st, warns, err := DecodeState(data, rel)
	if err != nil {
		return nil, err
	}
	d.full, d.warn = st, warns
	d.Version, _ = versionOf(st, rel)
	return d, nil
}

// Apply applies ops, sets state_version = Version+1 and
// last_updated_chapter = chapter, and returns the new canonical bytes.
func (d *Doc) Apply(ops []Op, chapter int) ([]byte, Result, error) {
	parts, res, err := d.ApplyParts(ops, chapter)
	if err != nil || len(parts) == 1 {
		return firstPart(parts), res, err
	}
	return bytes.Join(parts, nil), res, nil
}

func firstPart(parts [][]byte) []byte {
	if len(parts) == 0 {
		return nil
	}
	return parts[0]
}

// ApplyParts is Apply returning the new document as consecutive pieces
// (mostly slices of the old bytes) instead of one buffer: a writer can
// hash and write them as they are, without building a 5 MiB copy.
func (d *Doc) ApplyParts(ops []Op, chapter int) ([][]byte, Result, error) {
	if d.Spliced {
		if out, res, ok := d.splice(ops, chapter); ok {
			return out, res, nil
		}
		st, warns, err := DecodeState(d.old, d.rel)
		if err != nil {
			return nil, Result{}, err
		}
		d.full, d.warn, d.Spliced = st, warns, false
	}
	res := Apply(d.full, ops)
	res.Warnings = append(append([]string(nil), d.warn...), res.Warnings...)
	d.full["state_version"] = d.Version + 1
	d.full["last_updated_chapter"] = chapter
	out, err := jsonio.Marshal(d.full)
	if err != nil {
		return nil, Result{}, errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", d.rel, err)
	}
	return [][]byte{out}, res, nil
}

// member is one "key": value of a canonical object; offsets into the
// document. keyStart is the key's opening quote.
type member struct {
	key                        string
	keyStart, valStart, valEnd int
}

func spliceLayout(b []byte) ([]member, bool) {
	if len(b) < 3 || b[0] != '{' {
		return nil, false
	}
	top, end, ok := scanObject(b, 0, 2)
	if !ok || end != len(b)-1 || b[end] != '\n' || !layoutOK(b, top) {
		return nil, false
	}
	return top, true
}

// layoutOK: the top level has the members a splice needs, of the right
// kinds.
func layoutOK(b []byte, top []member) bool {
	need := append([]string{"state_version", "last_updated_chapter", ActiveForeshadowing}, Groups...)
	for _, k := range need {
		m, ok := find(top, k)
		if !ok {
			return false
		}
		c := b[m.valStart]
		switch {
		case k == ActiveForeshadowing && c != '[':
			return false
		case isGroup(k) && c != '{':
			return false
		}
	}
	return true
}

func find(ms []member, key string) (member, bool) {
	i := sort.Search(len(ms), func(i int) bool { return ms[i].key >= key })
	if i < len(ms) && ms[i].key == key {
		return ms[i], true
	}
	return member{}, false
}

func scalarInt(b []byte, top []member, key string) (int, bool) {
	m, ok := find(top, key)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[m.valStart:m.valEnd]))
	return n, err == nil
}

// scanObject lists the members of the canonical object opening at b[open]
// whose keys sit at indent ind. end is the index just past its '}'.
func scanObject(b []byte, open, ind int) ([]member, int, bool) {
	if open+1 >= len(b) {
		return nil, 0, false
	}
	if b[open+1] == '}' {
		return nil, open + 2, true
	}
	var out []member
	pos := open + 1
	for {
		if !indentAt(b, pos, ind) || pos+1+ind >= len(b) || b[pos+1+ind] != '"' {
			return nil, 0, false
		}
		ks := pos + 1 + ind
		ke, ok := stringEnd(b, ks)
		if !ok || ke+2 > len(b) || b[ke] != ':' || b[ke+1] != ' ' {
			return nil, 0, false
		}
		var key string
		if json.Unmarshal(b[ks:ke], &key) != nil {
			return nil, 0, false
		}
		if n := len(out); n > 0 && out[n-1].key >= key {
			return nil, 0, false // not sorted: not canonical
		}
		vs := ke + 2
		ve, ok := valueEnd(b, vs, ind)
		if !ok {
			return nil, 0, false
		}
		out = append(out, member{key: key, keyStart: ks, valStart: vs, valEnd: ve})
		pos = ve
		if pos < len(b) && b[pos] == ',' {
			pos++
			continue
		}
		if indentAt(b, pos, ind-2) && pos+1+ind-2 < len(b) && b[pos+1+ind-2] == '}' {
			return out, pos + 1 + ind - 2 + 1, true
		}
		return nil, 0, false
	}
}

// indentAt reports b[pos] == '\n' followed by exactly n spaces.
func indentAt(b []byte, pos, n int) bool {
	if pos+1+n > len(b) || b[pos] != '\n' {
		return false
	}
	for i := 1; i <= n; i++ {
		if b[pos+i] != ' ' {
			return false
		}
	}
	return pos+1+n == len(b) || b[pos+1+n] != ' '
}

// stringEnd returns the index just past the JSON string opening at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// valueEnd returns the index just past the value starting at b[vs], a
// member value whose key is at indent ind.
func valueEnd(b []byte, vs, ind int) (int, bool) {
	if vs >= len(b) {
		return 0, false
	}
	switch c := b[vs]; c {
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		if vs+1 < len(b) && b[vs+1] == closer {
			return vs + 2, true
		}
		needle := make([]byte, 0, ind+2)
		needle = append(needle, '\n')
		needle = append(needle, strings.Repeat(" ", ind)...)
		needle = append(needle, closer)
		i := bytes.Index(b[vs:], needle)
		if i < 0 {
			return 0, false
		}
		return vs + i + len(needle), true
	case '"':
		return stringEnd(b, vs)
	default:
		j := vs
		for j < len(b) && b[j] != ',' && b[j] != '\n' {
			j++
		}
		if j == vs {
			return 0, false
		}
		return j, true
	}
}

// encodeAt encodes v as it appears in the canonical document when its key
// sits at indent ind.
func encodeAt(v any, ind int) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat(" ", ind), "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func encodeKey(k string) []byte {
	b, _ := encodeAt(k, 0)
	return b
}

type edit struct {
	pos, end int
	text     []byte
}

func decodeValue(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// splice applies ops to a partial state holding only the touched units and
// writes those units back into the old bytes. ok is false when the
// document's shape does not allow it (the caller falls back to a full
// rewrite).
func (d *Doc) splice(ops []Op, chapter int) ([][]byte, Result, bool) {
	b := d.old
	touched := map[string]map[string]bool{}
	af := false
	for _, op := range ops {
		if op.Kind == Foreshadow {
			af = true
			continue
		}
		if touched[op.Segs[0]] == nil {
			touched[op.Segs[0]] = map[string]bool{}
		}
		touched[op.Segs[0]][op.Segs[1]] = true
	}
	partial := map[string]any{}
	groups := map[string][]member{}
	for g, keys := range touched {
		gm, _ := find(d.top, g)
		ms, ok := d.groups[g]
		if !ok {
			if ms, _, ok = scanObject(b, gm.valStart, 4); !ok {
				return nil, Result{}, false
			}
		}
		groups[g] = ms
		pm := map[string]any{}
		for k := range keys {
			if m, ok := find(ms, k); ok {
				v, ok := decodeValue(b[m.valStart:m.valEnd])
				if !ok {
					return nil, Result{}, false
				}
				pm[k] = v
			}
		}
		partial[g] = pm
	}
	if af {
		m, _ := find(d.top, ActiveForeshadowing)
		v, ok := decodeValue(b[m.valStart:m.valEnd])
		if !ok {
			return nil, Result{}, false
		}
		partial[ActiveForeshadowing] = v
	}
	res := Apply(partial, ops)

	var edits []edit
	for _, k := range []string{"state_version", "last_updated_chapter"} {
		m, _ := find(d.top, k)
		n := d.Version + 1
		if k == "last_updated_chapter" {
			n = chapter
		}
		edits = append(edits, edit{m.valStart, m.valEnd, []byte(strconv.Itoa(n))})
	}
	if af {
		m, _ := find(d.top, ActiveForeshadowing)
		text, err := encodeAt(partial[ActiveForeshadowing], 2)
		if err != nil {
			return nil, Result{}, false
		}
		edits = append(edits, edit{m.valStart, m.valEnd, text})
	}
	for g := range touched {
		gm, _ := find(d.top, g)
		ge, ok := groupEdits(b, gm, groups[g], partial[g].(map[string]any))
		if !ok {
			return nil, Result{}, false
		}
		edits = append(edits, ge...)
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].pos < edits[j].pos })
	out := make([][]byte, 0, 2*len(edits)+1)
	cur := 0
	for _, e := range edits {
		if e.pos < cur {
			return nil, Result{}, false
		}
		out = append(out, b[cur:e.pos:e.pos], e.text)
		cur = e.end
	}
	out = append(out, b[cur:])
	return out, res, true
}

// groupEdits rewrites the touched members of one group object (keys at
// indent 4) and inserts new ones in key order.
func groupEdits(b []byte, gm member, ms []member, pm map[string]any) ([]edit, bool) {
	keys := make([]string, 0, len(pm))
	for k := range pm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var edits []edit
	var fresh []string
	for _, k := range keys {
		text, err := encodeAt(pm[k], 4)
		if err != nil {
			return nil, false
		}
		if m, ok := find(ms, k); ok {
			edits = append(edits, edit{m.valStart, m.valEnd, text})
			continue
		}
		fresh = append(fresh, k)
	}
	if len(fresh) == 0 {
		return edits, true
	}
	line := func(k string) []byte {
		text, _ := encodeAt(pm[k], 4)
		out := append(encodeKey(k), ':', ' ')
		return append(out, text...)
	}
	if len(ms) == 0 {
		// "{}" becomes a multi-line object.
		var buf bytes.Buffer
		buf.WriteString("{\n")
		for i, k := range fresh {
			if i > 0 {
				buf.WriteString(",\n")
			}
			buf.WriteString("    ")
			buf.Write(line(k))
		}
		buf.WriteString("\n  }")
		return append(edits, edit{gm.valStart, gm.valEnd, buf.Bytes()}), true
	}
	// Group the new keys by the existing member they go before (len(ms)
	// means after the last one).
	byPos := map[int][]string{}
	for _, k := range fresh {
		i := sort.Search(len(ms), func(i int) bool { return ms[i].key > k })
		byPos[i] = append(byPos[i], k)
	}
	for i, ks := range byPos {
		var buf bytes.Buffer
		if i < len(ms) {
			for _, k := range ks {
				buf.Write(line(k))
				buf.WriteString(",\n    ")
			}
			edits = append(edits, edit{ms[i].keyStart, ms[i].keyStart, buf.Bytes()})
			continue
		}
		for _, k := range ks {
			buf.WriteString(",\n    ")
			buf.Write(line(k))
		}
		last := ms[len(ms)-1].valEnd
		edits = append(edits, edit{last, last, buf.Bytes()})
	}
	return edits, true
}

// Entities calls fn with each entity of group g (characters, items,
// locations, factions) as the document was read, before Apply, in key
// order. A canonical document is not decoded for it: the recorded member
// offsets are used (the mentions ledger reads the names of every item and
// location on each commit, SPEC §25).
func (d *Doc) Entities(g string, fn func(slug string, v json.RawMessage)) {
	if d.full != nil {
		m, _ := d.full[g].(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if b, err := json.Marshal(m[k]); err == nil {
				fn(k, b)
			}
		}
		return
	}
	gm, ok := find(d.top, g)
	if !ok {
		return
	}
	ms, ok := d.groups[g]
	if !ok {
		if ms, _, ok = scanObject(d.old, gm.valStart, 4); !ok {
			jsonio.SplitObject(d.old[gm.valStart:gm.valEnd], fn)
			return
		}
	}
	for _, m := range ms {
		fn(m.key, d.old[m.valStart:m.valEnd])
	}
}
