package stateops

import (
	"bytes"
	"encoding/json"

	"github.com/novelsuite/novel/internal/jsonio"
)

// IsCanonical reports whether b is exactly what jsonio.Marshal produces
// for its decoded value: 2-space indent, strictly sorted unique keys,
// strings escaped as encoding/json escapes them, a trailing newline. It is
// one linear pass without building values (a few ms on a 5 MiB state), so
// a commit can trust the byte layout and splice without decoding it all.
func IsCanonical(b []byte) bool {
	c := canon{b: b}
	return c.document()
}

// docLayout is where a canonical document's members sit: the top-level
// members and, for each top-level object, its members (the entities of
// a group), recorded during the canonical scan so the splice need not
// search for them again.
type docLayout struct {
	top    []member
	groups map[string][]member
}

// scanCanonical is IsCanonical that also returns the layout.
func scanCanonical(b []byte) (*docLayout, bool) {
	c := canon{b: b, lay: &docLayout{groups: map[string][]member{}}}
	if !c.document() {
		return nil, false
	}
	return c.lay, true
}

type canon struct {
	b   []byte
	i   int
	lay *docLayout // nil: check only
	// cur collects the members of the depth-1 object being scanned.
	cur []member
}

// document checks the whole input. UTF-8 is validated inside strings
// only: outside them any non-ASCII byte already breaks the structure.
func (c *canon) document() bool {
	if !c.value(0, 0) {
		return false
	}
	return c.i == len(c.b)-1 && c.b[c.i] == '\n'
}

// strAttention marks the bytes a string scan must look at: controls, the
// quote, the backslash, and every non-ASCII byte (UTF-8 is checked here).
var strAttention = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	for i := 0x80; i < 0x100; i++ {
		t[i] = true
	}
	t['"'], t['\\'] = true, true
	return
}()

const maxDepth = 10000

func (c *canon) newline(ind int) bool {
	b := c.b
	if c.i+1+ind > len(b) || b[c.i] != '\n' {
		return false
	}
	for k := 1; k <= ind; k++ {
		if b[c.i+k] != ' ' {
			return false
		}
	}
	c.i += 1 + ind
	return true
}

func (c *canon) value(ind, depth int) bool {
	b := c.b
	if c.i >= len(b) || depth > maxDepth {
		return false
	}
	switch b[c.i] {
	case '{', '[':
		obj := b[c.i] == '{'
		closer := byte(']')
		if obj {
			closer = '}'
		}
		if c.i+1 < len(b) && b[c.i+1] == closer {
			c.i += 2
			return true
		}
		c.i++
		var prev []byte
		// Record members at depths 0 and 1 (the state's top level and
		// its groups' entities).
		record := obj && c.lay != nil && depth <= 1
		for n := 0; ; n++ {
			if !c.newline(ind + 2) {
				return false
			}
			ks := c.i
			if obj {
				esc, ok := c.str()
				if !ok {
					return false
				}
				key := b[ks+1 : c.i-1]
				if esc {
					var s string
					if json.Unmarshal(b[ks:c.i], &s) != nil {
						return false
					}
					key = []byte(s)
				}
				if n > 0 && bytes.Compare(prev, key) >= 0 {
					return false
				}
				prev = key
				if c.i+2 > len(b) || b[c.i] != ':' || b[c.i+1] != ' ' {
					return false
				}
				c.i += 2
			}
			vs := c.i
			if record && depth == 0 {
				c.cur = nil
			}
			if !c.value(ind+2, depth+1) {
				return false
			}
			if record {
				m := member{key: string(prev), keyStart: ks, valStart: vs, valEnd: c.i}
				if depth == 0 {
					c.lay.top = append(c.lay.top, m)
					if b[vs] == '{' {
						c.lay.groups[m.key] = c.cur
					}
					c.cur = nil
				} else {
					c.cur = append(c.cur, m)
				}
			}
			if c.i < len(b) && b[c.i] == ',' {
				c.i++
				continue
			}
			if !c.newline(ind) || c.i >= len(b) || b[c.i] != closer {
				return false
			}
			c.i++
			return true
		}
	case '"':
		_, ok := c.str()
		return ok
	case 't':
		return c.lit("true")
	case 'f':
		return c.lit("false")
	case 'n':
		return c.lit("null")
	}
	return c.number()
}

func (c *canon) lit(s string) bool {
	if !bytes.HasPrefix(c.b[c.i:], []byte(s)) {
		return false
	}
	c.i += len(s)
	return true
}

// str checks a string escaped exactly as encoding/json (SetEscapeHTML
// false) escapes it; esc reports whether it holds any escape.
func (c *canon) str() (esc, ok bool) {
	b := c.b
	if c.i >= len(b) || b[c.i] != '"' {
		return false, false
	}
	i := c.i + 1
	for i < len(b) {
		ch := b[i]
		if !strAttention[ch] {
			i++
			continue
		}
		// The common CJK case first: a three-byte sequence whose lead
		// byte has no special case (E1–EC, EE, EF).
		if ch >= 0xE1 && ch != 0xE2 && ch != 0xED && ch <= 0xEF && i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		switch {
		case ch == '"':
			c.i = i + 1
			return esc, true
		case ch == '\\':
			esc = true
			if i+1 >= len(b) {
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return false, false
				}
				h := string(b[i+2 : i+6])
				if !(h == "2028" || h == "2029" || (h[:2] == "00" && lowerHex(h[2]) && lowerHex(h[3]) && !shortEscape(h))) {
					return false, false
				}
				if h[:2] == "00" && h[2] > '1' {
					return false, false // only control characters take \u00XX
				}
				i += 6
			default:
				return false, false
			}
		case ch < 0x20:
			return false, false
		default:
			n := utf8Seq(b, i)
			if n == 0 {
				return false, false
			}
			i += n
		}
	}
	return false, false
}

// utf8Seq returns the length of the valid UTF-8 sequence starting with
// the non-ASCII byte b[i], or 0 when it is invalid (encoding/json would
// write U+FFFD) or is U+2028/U+2029 (which encoding/json escapes).
func utf8Seq(b []byte, i int) int {
	c0 := b[i]
	cont := func(k int) bool { return i+k < len(b) && b[i+k]&0xC0 == 0x80 }
	switch {
	case c0 < 0xC2:
		return 0
	case c0 < 0xE0:
		if !cont(1) {
			return 0
		}
		return 2
	case c0 < 0xF0:
		if !cont(1) || !cont(2) {
			return 0
		}
		c1 := b[i+1]
		switch {
		case c0 == 0xE0 && c1 < 0xA0, // overlong
			c0 == 0xED && c1 >= 0xA0, // surrogate
			c0 == 0xE2 && c1 == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			return 0
		}
		return 3
	case c0 < 0xF5:
		if !cont(1) || !cont(2) || !cont(3) {
			return 0
		}
		c1 := b[i+1]
		if c0 == 0xF0 && c1 < 0x90 || c0 == 0xF4 && c1 >= 0x90 {
			return 0
		}
		return 4
	}
	return 0
}

func lowerHex(ch byte) bool { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') }

// shortEscape: control characters encoding/json writes as \b \f \n \r \t.
func shortEscape(h string) bool {
	switch h {
	case "0008", "000c", "000a", "000d", "0009":
		return true
	}
	return false
}

// number checks JSON number grammar (json.Number literals are kept as
// written by the canonical encoder).
func (c *canon) number() bool {
	end, ok := jsonio.ScanNumber(c.b, c.i)
	if ok {
		c.i = end
	}
	return ok
}

// Entity is one member of a top-level group of the state (a character, an
// item, a location) with its raw JSON value.
type Entity struct {
	Key   string
	Value []byte
}

// CanonicalGroups checks that data is a state in the suite's canonical
// encoding (valid JSON and UTF-8, sorted keys, 2-space indent) in one
// pass and returns the members of its top-level objects by group name,
// values as slices of data. ok is false for any other document: a reader
// then validates and splits it the generic way.
func CanonicalGroups(data []byte) (map[string][]Entity, bool) {
	lay, ok := scanCanonical(data)
	if !ok {
		return nil, false
	}
	out := make(map[string][]Entity, len(lay.groups))
	for g, ms := range lay.groups {
		es := make([]Entity, len(ms))
		for i, m := range ms {
			es[i] = Entity{Key: m.key, Value: data[m.valStart:m.valEnd]}
		}
		out[g] = es
	}
	return out, true
}
