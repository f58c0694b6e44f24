package jsonio

import (
	"encoding/json"
	"unicode/utf8"
)

// valid reports what encoding/json.Valid reports, about three times as
// fast: a direct recursive-descent check instead of the standard
// library's table-driven scanner (which runs at ~300 MB/s and dominated
// reading a 2,000-item foreshadowing file). Like json.Valid it does not
// check UTF-8 and refuses nesting deeper than 10,000. Fuzzed against
// json.Valid (FuzzValid).
func valid(b []byte) bool {
	i, ok := validValue(b, skipWS(b, 0), 0)
	return ok && skipWS(b, i) == len(b)
}

const maxNesting = 10000 // encoding/json's maxNestingDepth

func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		if depth+1 > maxNesting {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			_, _, vstart, ok := memberHead(b, i)
			if !ok {
				return vstart, false
			}
			if i, ok = validValue(b, vstart, depth+1); !ok {
				return i, false
			}
			var done bool
			if i, done, ok = nextItem(b, i, '}'); !ok || done {
				return i, ok
			}
		}
	case c == '[':
		if depth+1 > maxNesting {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok, done bool
			if i, ok = validValue(b, i, depth+1); !ok {
				return i, false
			}
			if i, done, ok = nextItem(b, i, ']'); !ok || done {
				return i, ok
			}
		}
	case c == '"':
		return validString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return ScanNumber(b, i)
	case c == 't':
		return validLiteral(b, i, "true")
	case c == 'f':
		return validLiteral(b, i, "false")
	case c == 'n':
		return validLiteral(b, i, "null")
	}
	return i, false
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

func validString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 {
					return i, false
				}
				for k := 1; k <= 4; k++ {
					if !isHex(b[i+k]) {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// ScanNumber returns the end of the JSON number (RFC 8259 grammar) that
// starts at b[i]; ok is false when none does. The hand-written scanners
// (foreshadow splice, stateops canonical check) share it.
func ScanNumber(b []byte, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	return i, true
}

// ValidateSplitting validates data as Validate does and, in the same walk,
// splits it as ObjectMap would, the member key's list into its elements
// and each object element into its members (a long book's foreshadowing
// file is MBs, mostly one list: one walk instead of a validation and then
// three splits). body is Validate's, err its error; when the document is
// valid, top is its ObjectMap, elems the key's elements, member was
// called for each member of each object element, and ok is true — unless
// the document is not an object or key is missing, repeated or not a list
// (ok false: the caller splits body its own way). member is called as the
// walk goes: on invalid input the calls made mean nothing.
func ValidateSplitting(data []byte, rel, key string, member func(elem int, k []byte, v json.RawMessage)) (body []byte, top map[string]json.RawMessage, elems []json.RawMessage, ok bool, err error) {
	body = StripBOM(data)
	if utf8.Valid(body) {
		w := splitWalk{b: body, key: key, member: member}
		if end, valid := w.object(skipWS(body, 0)); valid && skipWS(body, end) == len(body) {
			if w.found && !w.refused {
				return body, w.top, w.elems, true, nil
			}
			return body, nil, nil, false, nil
		}
	}
	body, err = Validate(data, rel)
	return body, nil, nil, false, err
}

// splitWalk validates a document as validValue does while splitting, when
// it is an object, its member key as ObjectMapSplitting does.
type splitWalk struct {
	b       []byte
	key     string
	member  func(elem int, k []byte, v json.RawMessage)
	top     map[string]json.RawMessage
	elems   []json.RawMessage
	found   bool // key seen
	refused bool // key repeated or not an array
}

// object validates the value at b[i] (any value: a document that is not
// an object is validated and refused) and returns its end.
func (w *splitWalk) object(i int) (int, bool) {
	b := w.b
	if i >= len(b) || b[i] != '{' {
		w.refused = true
		return validValue(b, i, 0)
	}
	w.top = map[string]json.RawMessage{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		kstart, kend, vstart, ok := memberHead(b, i)
		if !ok {
			return vstart, false
		}
		k := keyBytes(b[kstart:kend])
		if string(k) == w.key {
			if w.found || vstart >= len(b) || b[vstart] != '[' {
				w.refused = true
			}
			w.found = true
		}
		if string(k) == w.key && !w.refused {
			i, ok = w.array(vstart)
		} else {
			i, ok = validValue(b, vstart, 1)
		}
		if !ok {
			return i, false
		}
		w.top[string(k)] = b[vstart:i:i]
		var done bool
		if i, done, ok = nextItem(b, i, '}'); !ok || done {
			return i, ok
		}
	}
}

// nextItem reads what follows a member or element at b[i]: the closing
// byte (done, i past it) or a comma (i at the next one); anything else is
// a syntax error at i.
func nextItem(b []byte, i int, close byte) (next int, done, ok bool) {
	if i = skipWS(b, i); i >= len(b) {
		return i, false, false
	}
	if b[i] == close {
		return i + 1, true, true
	}
	if b[i] != ',' {
		return i, false, false
	}
	return skipWS(b, i+1), false, true
}

// memberHead reads an object member's `"key":` at b[i]: the key's span
// (quotes included) and where its value starts; when ok is false, vstart
// is the position of the syntax error.
func memberHead(b []byte, i int) (kstart, kend, vstart int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, i, i, false
	}
	kstart = i
	if i, ok = validString(b, i); !ok {
		return kstart, i, i, false
	}
	kend = i
	if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
		return kstart, kend, i, false
	}
	return kstart, kend, skipWS(b, i+1), true
}

// array validates the key's list at b[i] ('[' there), recording its
// elements and the members of each object element.
func (w *splitWalk) array(i int) (int, bool) {
	b := w.b
	w.elems = []json.RawMessage{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		start := i
		var ok bool
		if i < len(b) && b[i] == '{' {
			i, ok = w.element(i, len(w.elems))
		} else {
			i, ok = validValue(b, i, 2)
		}
		if !ok {
			return i, false
		}
		w.elems = append(w.elems, b[start:i:i])
		var done bool
		if i, done, ok = nextItem(b, i, ']'); !ok || done {
			return i, ok
		}
	}
}

// element validates the object element n at b[i], passing its members.
func (w *splitWalk) element(i, n int) (int, bool) {
	b := w.b
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		kstart, kend, vstart, ok := memberHead(b, i)
		if !ok {
			return vstart, false
		}
		if i, ok = validValue(b, vstart, 3); !ok {
			return i, false
		}
		w.member(n, keyBytes(b[kstart:kend]), b[vstart:i:i])
		var done bool
		if i, done, ok = nextItem(b, i, '}'); !ok || done {
			return i, ok
		}
	}
}
