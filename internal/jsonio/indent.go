package jsonio

import (
	"bytes"
	"encoding/json"
)

// Indent is json.Indent for input that is one valid JSON value (what the
// suite's encoders produce from validated files): the same bytes, in one
// pass without the general scanner — a query result of hundreds of items
// spent a tenth of its time there. Input that turns out not to be a
// single valid value is handed to json.Indent, whose error it returns.
func Indent(dst *bytes.Buffer, src []byte, prefix, indent string) error {
	start := dst.Len()
	if indentValid(dst, src, prefix, indent) {
		return nil
	}
	dst.Truncate(start)
	return json.Indent(dst, src, prefix, indent)
}

// indentValid writes src re-indented; false when src is not one
// well-formed value as far as its brackets and strings go (the caller
// then lets json.Indent decide).
func indentValid(dst *bytes.Buffer, src []byte, prefix, indent string) bool {
	if !valid(src) {
		return false
	}
	depth := 0
	needIndent := false
	newline := func() {
		dst.WriteByte('\n')
		dst.WriteString(prefix)
		for range depth {
			dst.WriteString(indent)
		}
	}
	// Leading whitespace is dropped, trailing whitespace kept (as
	// json.Indent does).
	end := len(src)
	for end > 0 && isSpace(src[end-1]) {
		end--
	}
	for i := 0; i < end; i++ {
		c := src[i]
		if isSpace(c) {
			continue
		}
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline()
		}
		switch c {
		case '"':
			j := skipString(src, i)
			dst.Write(src[i:j])
			i = j - 1
		case '{', '[':
			needIndent = true
			dst.WriteByte(c)
		case ',':
			dst.WriteByte(c)
			newline()
		case ':':
			dst.WriteString(": ")
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				newline()
			}
			dst.WriteByte(c)
		default:
			dst.WriteByte(c)
		}
	}
	dst.Write(src[end:])
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
