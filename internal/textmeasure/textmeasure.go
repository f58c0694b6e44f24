// Package textmeasure holds the text measures every part of the suite
// shares: the chapter's word count (字数, SPEC §20), sentence splitting and
// dialogue detection (style drift, SPEC §16), the draft's trailing hints
// block, and the exact blacklist count (the judge's blacklist_lint, SPEC
// §6). One implementation each, so the chapter log, the lint report, the
// drift metrics and the judge packet never disagree about a chapter.
package textmeasure

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is one line of a chapter with its 1-based number in the file.
type Line struct {
	N    int
	Text string
}

// Split returns the chapter's lines (a BOM and CR line ends dropped) and
// the index in lines of the heading line — the first non-empty line when
// it is a Markdown heading — or -1 when there is none.
func Split(text string) (lines []Line, heading int) {
	text = strings.TrimPrefix(text, "\uFEFF")
	heading = -1
	seen := false
	n := 0
	lines = make([]Line, 0, strings.Count(text, "\n")+1)
	for l := range strings.SplitSeq(text, "\n") {
		n++
		l = strings.TrimSuffix(l, "\r")
		lines = append(lines, Line{N: n, Text: l})
		if !seen && strings.TrimSpace(l) != "" {
			seen = true
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "#") {
				heading = len(lines) - 1
			}
		}
	}
	return lines, heading
}

// Body returns the lines that count as the chapter's body: everything but
// the heading line. A Markdown heading marker opening any other line is
// markup, not text: it is cut from the returned text.
func Body(text string) []Line {
	lines, h := Split(text)
	out := make([]Line, 0, len(lines))
	for i, l := range lines {
		if i == h {
			continue
		}
		t := strings.TrimLeftFunc(l.Text, unicode.IsSpace)
		if strings.HasPrefix(t, "#") {
			l.Text = strings.TrimLeft(t, "#")
		}
		out = append(out, l)
	}
	return out
}

// Stats are the measures of a chapter body.
type Stats struct {
	// Words is the word count as platforms count it: non-whitespace
	// characters, Chinese punctuation included, each maximal run of ASCII
	// letters/digits counting as one.
	Words int
	// Sentences end at 。！？… (or !?) or at a line end.
	Sentences int
	// Dialogue counts the word units inside 「」 or “” (the quote marks
	// themselves are not dialogue).
	Dialogue int
}

// Measure computes the Stats of a chapter (the heading line excluded).
func Measure(text string) Stats {
	var s Stats
	depth := 0
	for _, l := range Body(text) {
		inSentence, inASCII := false, false
		for _, r := range l.Text {
			if unicode.IsSpace(r) || r == '\uFEFF' {
				inASCII = false
				continue
			}
			ascii := isASCIIAlnum(r)
			if ascii && inASCII {
				continue // the rest of one ASCII word
			}
			inASCII = ascii
			s.Words++
			switch r {
			case '「', '“':
				depth++
				continue
			case '」', '”':
				if depth > 0 {
					depth--
				}
				continue
			}
			if depth > 0 {
				s.Dialogue++
			}
			if isSentenceEnd(r) {
				if inSentence {
					s.Sentences++
				}
				inSentence = false
			} else {
				inSentence = true
			}
		}
		if inSentence {
			s.Sentences++
		}
	}
	return s
}

// WordCount is the chapter's word count (字数, SPEC §20): the body's
// non-whitespace characters, the heading line excluded, each maximal run
// of ASCII letters/digits counting as one. A draft's trailing hints block
// is not text and is left out.
func WordCount(text string) int {
	body, _, _ := SplitHints(text)
	return Measure(body).Words
}

// LineWords is the word count of one line of text (no heading rule).
func LineWords(line string) int {
	n, inASCII := 0, false
	for _, r := range line {
		if unicode.IsSpace(r) || r == '\uFEFF' {
			inASCII = false
			continue
		}
		ascii := isASCIIAlnum(r)
		if !(ascii && inASCII) {
			n++
		}
		inASCII = ascii
	}
	return n
}

// isSentenceEnd reports whether r closes a sentence.
func isSentenceEnd(r rune) bool {
	switch r {
	case '。', '！', '？', '…', '!', '?':
		return true
	}
	return false
}

// Sentences splits a line into sentences: each ends after a run of
// sentence-ending marks (a closing quote right after them stays with the
// sentence), or at the end of the line. Empty pieces are dropped.
func Sentences(line string) []string {
	var out []string
	start, i := 0, 0
	for i < len(line) {
		r, n := utf8.DecodeRuneInString(line[i:])
		i += n
		if !isSentenceEnd(r) {
			continue
		}
		for i < len(line) {
			r, n = utf8.DecodeRuneInString(line[i:])
			if !isSentenceEnd(r) && !isCloseQuote(r) {
				break
			}
			i += n
		}
		if s := strings.TrimSpace(line[start:i]); s != "" {
			out = append(out, s)
		}
		start = i
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// isCloseQuote: a closing quote mark right after a sentence end stays with
// its sentence (「…。」, nested 『…。』, “…。”, ‘…。’).
func isCloseQuote(r rune) bool { return r == '」' || r == '』' || r == '”' || r == '’' }

// Narration returns line with the dialogue (the text inside 「」 or “”,
// quote marks included) replaced by spaces, so byte offsets still match
// the original line. depth carries an open quote across lines.
func Narration(line string, depth *int) string {
	b := []byte(line)
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		if r == '「' || r == '“' {
			*depth++
		}
		if *depth > 0 {
			for j := i; j < i+n; j++ {
				b[j] = ' '
			}
		}
		if (r == '」' || r == '”') && *depth > 0 {
			*depth--
		}
		i += n
	}
	return string(b)
}

func isASCIIAlnum(r rune) bool {
	return r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}

// SplitHints separates a draft's trailing fenced ```json block (the
// writer's hints for the Summarizer) from the text. ok is false when the
// text does not end with such a block; then body is text unchanged.
func SplitHints(text string) (body, inner string, ok bool) {
	t := strings.TrimRight(text, " \t\r\n")
	if !strings.HasSuffix(t, "```") {
		return text, "", false
	}
	rest := strings.TrimSuffix(t, "```")
	open := strings.LastIndex(rest, "```json")
	// The opening fence must start a line.
	if open < 0 || (open > 0 && rest[open-1] != '\n') {
		return text, "", false
	}
	in := rest[open+len("```json"):]
	nl := strings.IndexByte(in, '\n')
	if nl < 0 || strings.TrimSpace(in[:nl]) != "" {
		return text, "", false
	}
	return rest[:open], in[nl+1:], true
}

// Clip is s cut to its first n characters, with "…" when it was longer.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
