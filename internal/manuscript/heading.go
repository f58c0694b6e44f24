package manuscript

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/outline"
)

// Kind is what a manuscript line is to the splitter.
type Kind int

// Line kinds.
const (
	KindText     Kind = iota // body text (or a preamble line)
	KindChapter              // 第N章/回/节, Chapter N
	KindVolume               // 第N卷
	KindPrologue             // 楔子, 序章, 引子: front matter
	KindExtra                // 番外, 后记: back matter
)

// Heading is a recognised heading line.
type Heading struct {
	Kind   Kind
	Number int    // chapter or volume number; 0 for front and back matter
	Label  string // the heading word as written: "第一章", "Chapter 3", "楔子", "番外一"
	Title  string // what follows it, "" when nothing does
}

// maxTitle is the longest title a heading line carries, in characters; a
// longer "title" is a sentence that happens to start with 第N章.
const maxTitle = 30

// isSpace is the "spaces" of the heading grammar (SPEC §5): space, tab, U+3000.
func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\u3000' }

func trimSpaces(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return isSpace(r) || unicode.IsSpace(r) })
}

// ParseHeading classifies one manuscript line (SPEC §22.1): after leading
// spaces and 0–6 '#', an optional 【…】 around the heading word, then
// 第N章 / 第N回 / 第N节 (Arabic, full-width or Chinese numerals), Chapter N,
// 第N卷, 楔子 / 序章 / 引子 or 番外 / 后记, followed by the end of the line,
// a ':' / '：' or whitespace and a title. A "title" holding 。 or longer
// than 30 characters makes the line body text: 「第八章 结束了他的回忆，陆照
// 合上书。」 is a sentence, not a heading. The volume outline keeps its
// own, stricter recogniser (outline.ParseHeading, SPEC §5); both read
// numbers with outline.ParseNumber.
func ParseHeading(line string) (Heading, bool) {
	rest := trimSpaces(line)
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	if n > 6 {
		return Heading{}, false
	}
	rest = trimSpaces(rest[n:])
	inner, after, bracket := strings.Cut(strings.TrimPrefix(rest, "【"), "】")
	if !bracket || !strings.HasPrefix(rest, "【") {
		inner, after, bracket = rest, "", false
	}
	h, tail, ok := parseLabel(trimSpaces(inner))
	if !ok {
		return Heading{}, false
	}
	title, ok := titleAfter(tail)
	if !ok {
		return Heading{}, false
	}
	if bracket {
		// 【第四章】灯火 or 【第四章 灯火】: the title may sit on either side
		after = trimSpaces(strings.TrimLeft(trimSpaces(after), ":："))
		title = trimSpaces(title + " " + after)
	}
	if isSentence(title) {
		return Heading{}, false
	}
	h.Title = title
	return h, true
}

// isSentence reports a "title" that is body text: it holds 。 or is longer
// than any chapter title.
func isSentence(title string) bool {
	return strings.Contains(title, "。") || utf8.RuneCountInString(title) > maxTitle
}

// parseLabel reads the heading word at the start of s and returns what
// follows it.
func parseLabel(s string) (Heading, string, bool) {
	if rest, found := strings.CutPrefix(s, "第"); found {
		rest = strings.TrimLeftFunc(rest, isSpace)
		end := strings.IndexFunc(rest, func(r rune) bool { return isSpace(r) || strings.ContainsRune("章回节卷", r) })
		if end <= 0 {
			return Heading{}, "", false
		}
		num, ok := outline.ParseNumber(rest[:end])
		if !ok {
			return Heading{}, "", false
		}
		after := strings.TrimLeftFunc(rest[end:], isSpace)
		unit, size := utf8.DecodeRuneInString(after)
		kind := KindChapter
		switch unit {
		case '章', '回', '节':
		case '卷':
			kind = KindVolume
		default:
			return Heading{}, "", false
		}
		return Heading{Kind: kind, Number: num, Label: s[:len(s)-len(after)+size]}, after[size:], true
	}
	if len(s) >= len("chapter") && strings.EqualFold(s[:len("chapter")], "chapter") {
		rest := strings.TrimLeftFunc(s[len("chapter"):], isSpace)
		end := strings.IndexFunc(rest, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= '０' && r <= '９') })
		if end < 0 {
			end = len(rest)
		}
		if end == 0 || rest[end:] != "" && !strings.HasPrefix(rest[end:], ".") && !startsSeparator(rest[end:]) {
			return Heading{}, "", false
		}
		num, ok := outline.ParseNumber(rest[:end])
		if !ok {
			return Heading{}, "", false
		}
		return Heading{Kind: KindChapter, Number: num, Label: s[:len(s)-len(rest)+end]}, strings.TrimPrefix(rest[end:], "."), true
	}
	for _, w := range []struct {
		word string
		kind Kind
	}{{"楔子", KindPrologue}, {"序章", KindPrologue}, {"引子", KindPrologue}, {"番外", KindExtra}, {"后记", KindExtra}} {
		rest, found := strings.CutPrefix(s, w.word)
		if !found {
			continue
		}
		if w.word == "番外" {
			// 番外一, 番外2, 番外篇: the number or 篇 belongs to the word
			end := strings.IndexFunc(rest, func(r rune) bool {
				_, isNum := outline.ParseNumber(string(r))
				return !(isNum || r == '零' || r == '〇' || r == '篇')
			})
			if end < 0 {
				end = len(rest)
			}
			rest = rest[end:]
		}
		return Heading{Kind: w.kind, Label: s[:len(s)-len(rest)]}, rest, true
	}
	return Heading{}, "", false
}

// startsSeparator reports a ':' / '：' or a space after the heading word.
func startsSeparator(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == ':' || r == '：' || isSpace(r) || unicode.IsSpace(r)
}

// titleAfter reads what follows the heading word: nothing, or a
// separator and a title that is not a sentence.
func titleAfter(tail string) (string, bool) {
	if tail == "" {
		return "", true
	}
	if !startsSeparator(tail) {
		return "", false // 第三章节, 第12章x, 楔子是
	}
	r, size := utf8.DecodeRuneInString(tail)
	if r == ':' || r == '：' {
		tail = tail[size:]
	}
	return trimSpaces(tail), true
}
