package foreshadow

import (
	"bytes"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/jsonio"
)

// A commit merges a handful of ops into a fact layer of thousands of
// items. When the file is exactly what Encode writes, every item the ops
// do not name would be re-encoded to its own bytes, so MergeSpliced
// copies those bytes and parses only the named items. The layout check
// is strict: anything it is not sure Encode would reproduce byte for
// byte (other top-level fields, odd keys, duplicates, whitespace, invalid
// JSON or UTF-8) makes it decline, and the caller takes the full path.

const (
	fileHead  = "{\n  \"foreshadowing\": ["
	fileTail  = "\n  ]\n}\n"
	itemSep   = ",\n    "
	itemFirst = "\n    "
)

// MergeSpliced is Parse + Merge + Encode for a file in Encode's layout,
// without parsing the items the ops do not name. ok is false when the
// file is not in that layout (nothing is reported: the full path then
// parses it and reports any error).
func MergeSpliced(data []byte, plan []Item, ops []Op, c int, storyline string) (out []byte, dropped []Dropped, ok bool) {
	items, ok := splitCanonical(data)
	if !ok {
		return nil, nil, false
	}
	named := map[string]bool{}
	for _, op := range ops {
		if op.Op == "foreshadow" {
			named[op.Path] = true
		}
	}
	global := make([]Item, len(items))
	parsed := make([]bool, len(items))
	for i, src := range items {
		id := itemID(src)
		if !named[id] {
			global[i] = Item{ID: id} // never touched by Merge: copied below
			continue
		}
		it, ok := parseItem(src)
		if !ok {
			return nil, nil, false
		}
		global[i], parsed[i] = it, true
	}
	merged, dropped := Merge(global, plan, ops, c, storyline)
	var buf bytes.Buffer
	buf.Grow(len(data) + 1024)
	buf.WriteString(fileHead)
	if len(merged) == 0 {
		buf.Truncate(buf.Len() - 1)
		buf.WriteString("[]\n}\n")
		return buf.Bytes(), dropped, true
	}
	for i := range merged {
		if i == 0 {
			buf.WriteString(itemFirst)
		} else {
			buf.WriteString(itemSep)
		}
		if i < len(items) && !parsed[i] {
			buf.Write(items[i])
			continue
		}
		if err := encodeItem(&buf, merged[i]); err != nil {
			return nil, nil, false
		}
	}
	buf.WriteString(fileTail)
	return buf.Bytes(), dropped, true
}

// itemID reads the id of a canonical item: its first member when that is
// "id" with a string value ("" otherwise, as parseItem would give).
func itemID(src []byte) string {
	const pre = "{\n      \"id\": "
	if !bytes.HasPrefix(src, []byte(pre)) {
		return ""
	}
	end, ok := stringEnd(src, len(pre))
	if !ok {
		return ""
	}
	s, _ := jsonio.String(src[len(pre):end])
	return s
}

// splitCanonical returns the items of a file in Encode's layout (each
// item's bytes as they sit in the file, at indent 4), or ok=false.
func splitCanonical(b []byte) ([][]byte, bool) {
	if !bytes.HasPrefix(b, []byte(fileHead)) {
		return nil, false
	}
	i := len(fileHead)
	if string(b[i:]) == "]\n}\n" {
		return [][]byte{}, true
	}
	var items [][]byte
	for {
		if !bytes.HasPrefix(b[i:], []byte(itemFirst)) {
			return nil, false
		}
		i += len(itemFirst)
		s := &scan{b: b, i: i}
		if !s.item() {
			return nil, false
		}
		items = append(items, b[i:s.i])
		i = s.i
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		return items, string(b[i:]) == fileTail
	}
}

// scan checks values written by json.Indent with prefix "    " and
// indent "  " (an item of the list).
type scan struct {
	b []byte
	i int
}

// item checks one item: an object whose keys Encode writes in this order
// (the SPEC fields first, the others sorted), with history entries in
// History's order.
func (s *scan) item() bool {
	keys, ok := s.object(4, func(k string, ind int) bool {
		if k == "history" {
			return s.history(ind)
		}
		return s.value(ind, 0)
	})
	return ok && ordered(keys, knownKeys, "_entry")
}

func (s *scan) history(ind int) bool {
	b := s.b
	if s.i >= len(b) || b[s.i] != '[' {
		return s.value(ind, 0)
	}
	if s.i+1 < len(b) && b[s.i+1] == ']' {
		s.i += 2
		return true
	}
	s.i++
	for {
		if !s.newline(ind + 2) {
			return false
		}
		if s.i < len(b) && b[s.i] == '{' {
			keys, ok := s.object(ind+2, func(string, int) bool { return s.value(ind+4, 0) })
			if !ok || !ordered(keys, historyKeys[:], "_raw") {
				return false
			}
		} else if !s.value(ind+2, 0) {
			return false
		}
		if s.i < len(b) && b[s.i] == ',' {
			s.i++
			continue
		}
		return s.closeAt(ind, ']')
	}
}

// ordered: the keys are the known ones in their order, then the others
// sorted, no repeats, all plain (quoteKey writes them as they are), and
// not the marker key the model uses for a verbatim entry.
func ordered(keys, known []string, marker string) bool {
	rank := func(k string) int {
		for i, kk := range known {
			if k == kk {
				return i
			}
		}
		return len(known)
	}
	for i, k := range keys {
		if k == marker || !plainKey(k) {
			return false
		}
		if i == 0 {
			continue
		}
		p := keys[i-1]
		rp, rk := rank(p), rank(k)
		if rp > rk || rp == rk && (rk < len(known) || p >= k) {
			return false
		}
	}
	return true
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// object checks an object opening at s.i whose closing brace sits at
// indent ind; member values are checked by val (given the members'
// indent). It returns the keys in order.
func (s *scan) object(ind int, val func(key string, ind int) bool) ([]string, bool) {
	b := s.b
	if s.i >= len(b) || b[s.i] != '{' {
		return nil, false
	}
	if s.i+1 < len(b) && b[s.i+1] == '}' {
		s.i += 2
		return []string{}, true
	}
	s.i++
	var keys []string
	for {
		if !s.newline(ind + 2) {
			return nil, false
		}
		ks := s.i
		if !s.str() {
			return nil, false
		}
		key := string(b[ks+1 : s.i-1])
		if s.i+2 > len(b) || b[s.i] != ':' || b[s.i+1] != ' ' {
			return nil, false
		}
		s.i += 2
		if !val(key, ind+2) {
			return nil, false
		}
		keys = append(keys, key)
		if s.i < len(b) && b[s.i] == ',' {
			s.i++
			continue
		}
		if !s.closeAt(ind, '}') {
			return nil, false
		}
		return keys, true
	}
}

func (s *scan) closeAt(ind int, closer byte) bool {
	if !s.newline(ind) || s.i >= len(s.b) || s.b[s.i] != closer {
		return false
	}
	s.i++
	return true
}

func (s *scan) newline(ind int) bool {
	b := s.b
	if s.i+1+ind > len(b) || b[s.i] != '\n' {
		return false
	}
	for k := 1; k <= ind; k++ {
		if b[s.i+k] != ' ' {
			return false
		}
	}
	s.i += 1 + ind
	return true
}

const maxDepth = 1000

// value checks any JSON value in indented form; ind is the indent of the
// line it starts on.
func (s *scan) value(ind, depth int) bool {
	b := s.b
	if s.i >= len(b) || depth > maxDepth {
		return false
	}
	switch c := b[s.i]; c {
	case '{', '[':
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		if s.i+1 < len(b) && b[s.i+1] == closer {
			s.i += 2
			return true
		}
		s.i++
		for {
			if !s.newline(ind + 2) {
				return false
			}
			if c == '{' {
				if !s.str() || s.i+2 > len(b) || b[s.i] != ':' || b[s.i+1] != ' ' {
					return false
				}
				s.i += 2
			}
			if !s.value(ind+2, depth+1) {
				return false
			}
			if s.i < len(b) && b[s.i] == ',' {
				s.i++
				continue
			}
			return s.closeAt(ind, closer)
		}
	case '"':
		return s.str()
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	return s.number()
}

func (s *scan) lit(w string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return true
}

// str checks a JSON string (any valid escapes, valid UTF-8: the full path
// refuses invalid UTF-8 with E_INVALID_JSON, so it is never copied).
func (s *scan) str() bool {
	end, ok := stringEnd(s.b, s.i)
	if ok {
		s.i = end
	}
	return ok
}

// stringEnd returns the index just past a valid JSON string opening at
// b[i].
func stringEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, true
		case c == '\\':
			if j+1 >= len(b) {
				return 0, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return 0, false
				}
				for _, h := range b[j+2 : j+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false
					}
				}
				j += 6
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n <= 1 {
				return 0, false
			}
			j += n
		}
	}
	return 0, false
}

// number checks the JSON number grammar.
func (s *scan) number() bool {
	end, ok := jsonio.ScanNumber(s.b, s.i)
	if ok {
		s.i = end
	}
	return ok
}

// encodeItem writes one item as encodeList does.
func encodeItem(buf *bytes.Buffer, it Item) error {
	if v, ok := it.raw["_entry"]; ok && len(it.raw) == 1 {
		return jsonio.Indent(buf, v, "    ", "  ")
	}
	b, err := it.MarshalJSON()
	if err != nil {
		return err
	}
	return jsonio.Indent(buf, b, "    ", "  ")
}
