package jsonio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The splitters below take JSON that has already been validated (by
// Decode, or because it came out of a json.RawMessage) and cut one level
// of it into raw member values without decoding them. encoding/json
// re-validates its whole input on every Unmarshal, so decoding a file
// level by level with Unmarshal scans the same bytes many times; these
// scan each byte once. Values are sub-slices of the input with their
// capacity clipped, so appending to one never overwrites its neighbour.

// SplitArray returns the elements of a validated JSON array; ok is false
// when raw is not an array.
func SplitArray(raw []byte) (elems []json.RawMessage, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipWS(raw, i+1)
	elems = []json.RawMessage{}
	if i < len(raw) && raw[i] == ']' {
		return elems, true
	}
	for i < len(raw) {
		end := skipValue(raw, i)
		elems = append(elems, raw[i:end:end])
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipWS(raw, i+1)
	}
	return elems, true
}

// SplitObject calls fn for each member of a validated JSON object in
// document order (a repeated key is reported each time; callers storing
// into a map get encoding/json's last-wins behaviour). ok is false when
// raw is not an object.
func SplitObject(raw []byte, fn func(key string, val json.RawMessage)) (ok bool) {
	return SplitObjectBytes(raw, func(key []byte, val json.RawMessage) { fn(string(key), val) })
}

// SplitObjectBytes is SplitObject passing each key as bytes (decoded; do
// not keep them): a caller that only compares keys allocates nothing per
// member.
func SplitObjectBytes(raw []byte, fn func(key []byte, val json.RawMessage)) (ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipWS(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := skipString(raw, i)
		key := keyBytes(raw[i:kend])
		i = skipWS(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return true
		}
		i = skipWS(raw, i+1)
		end := skipValue(raw, i)
		fn(key, raw[i:end:end])
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipWS(raw, i+1)
	}
	return true
}

// ObjectMap is SplitObject into a map, as json.Unmarshal into
// map[string]json.RawMessage would give (nil, false for a non-object).
func ObjectMap(raw []byte) (map[string]json.RawMessage, bool) {
	return ObjectMapSize(raw, 0)
}

// ObjectMapSize is ObjectMap with a size hint for the map (objects with a
// known set of keys, decoded by the thousand, skip the map's growth).
func ObjectMapSize(raw []byte, hint int) (map[string]json.RawMessage, bool) {
	m := make(map[string]json.RawMessage, hint)
	if !SplitObject(raw, func(k string, v json.RawMessage) { m[k] = v }) {
		return nil, false
	}
	return m, true
}

// String decodes a validated JSON string value; ok is false for any other
// value. Strings without escapes are converted directly.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	ascii := true
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return "", false
			}
			return s, true
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(body) {
		// encoding/json would replace bad bytes with U+FFFD; match it.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	return string(body), true
}

// keyBytes is the decoded content of a quoted key: the bytes between the
// quotes when they need no decoding (plain ASCII), else String's result.
func keyBytes(q []byte) []byte {
	if len(q) >= 2 {
		body := q[1 : len(q)-1]
		plain := true
		for _, c := range body {
			if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		if plain {
			return body
		}
	}
	return []byte(unquote(q))
}

func unquote(q []byte) string {
	s, _ := String(q)
	return s
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i]=='"'.
// It jumps from quote to quote (bytes.IndexByte is vectorised: the state's
// long notes strings were most of a scan's time); a quote closes the
// string when an even run of backslashes precedes it.
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		j, n := i+k, 0
		for p := j - 1; p >= i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default: // number, true, false, null
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
		}
		return len(b)
	}
}

// Validate checks data the way Decode does (BOM, UTF-8, empty, syntax,
// trailing data) without decoding it, and returns it with the BOM
// stripped, ready for the splitters. Valid input costs two allocation-free
// scans; invalid input gets Decode's own error (file, line, column).
func Validate(data []byte, rel string) ([]byte, error) {
	body := StripBOM(data)
	if utf8.Valid(body) && valid(body) {
		return body, nil
	}
	var v json.RawMessage
	if err := Decode(data, rel, &v); err != nil {
		return nil, err
	}
	return body, nil // unreachable: json.Valid and Decode agree
}

// SplitLines cuts a JSON-lines file into its non-empty lines, untrimmed
// (sub-slices of data): line numbers of a parse error are counted by
// the caller over these.
func SplitLines(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, b := range data {
		if b == '\n' {
			if i > start {
				out = append(out, data[start:i])
			}
			start = i + 1
		}
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}

// Lines returns the non-blank lines of a JSON-lines file (or any text
// output), each trimmed.
func Lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}
