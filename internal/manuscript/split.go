package manuscript

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/outline"
)

// Chapter is one chapter of a manuscript.
type Chapter struct {
	Number     int // the project's chapter number
	Source     int // the number its heading carries (0: a prologue imported as a chapter)
	Title      string
	Line       int      // 1-based line of its heading in the source
	Paragraphs []string // trimmed (indentation dropped)
}

// VolumeMark is a volume heading (第N卷): a boundary between chapters,
// never part of one.
type VolumeMark struct {
	Volume       int    `json:"volume"`
	Title        string `json:"title"`
	Line         int    `json:"line"`
	FirstChapter int    `json:"first_chapter"` // the chapter it opens; 0 when none follows
}

// Matter is a prologue (front matter) or an extra (back matter) kept out
// of the chapters, its text recorded whole.
type Matter struct {
	Kind       string   `json:"kind"` // "prologue" or "extra"
	Heading    string   `json:"heading"`
	Title      string   `json:"title"`
	Line       int      `json:"line"`
	Paragraphs []string `json:"paragraphs"`
}

// Matter kinds.
const (
	MatterPrologue = "prologue"
	MatterExtra    = "extra"
)

// Skipped is a non-empty source line that went into no chapter.
type Skipped struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Reasons a line is skipped.
const (
	SkipPreamble    = "preamble"       // before the first heading: title page, author's note
	SkipTOC         = "toc"            // a table of contents
	SkipVolume      = "volume_heading" // 第N卷 …
	SkipVolumeText  = "volume_text"    // text between a volume heading and the next heading
	SkipFrontMatter = "front_matter"
	SkipBackMatter  = "back_matter"
)

// Unwrap modes (novel import --unwrap).
const (
	UnwrapAuto = "auto"
	UnwrapOn   = "on"
	UnwrapOff  = "off"
)

// Options steer Split.
type Options struct {
	Start           int    // the project number of the first imported chapter (≥ 1)
	PrologueChapter bool   // import the prologue as chapter Start
	Unwrap          string // auto, on or off
}

// Manuscript is a split manuscript.
type Manuscript struct {
	Chapters    []Chapter
	Volumes     []VolumeMark
	FrontMatter []Matter
	BackMatter  []Matter
	Skipped     []Skipped
	// PreambleLines counts the non-empty lines before the first heading
	// (title page, author's notes); TOCLines the table-of-contents lines.
	PreambleLines int
	TOCLines      int
	// Unwrapped: hard-wrapped lines were re-joined into paragraphs.
	Unwrapped bool
	// NoPrologue: PrologueChapter was asked for but there is no prologue
	// before the first chapter.
	NoPrologue bool
}

type srcLine struct {
	n   int    // 1-based line number
	raw string // as in the file
}

// section is the text under one heading (or before the first).
type section struct {
	head Heading
	line int
	text string // the heading line, trimmed
	// afterVolume: a volume heading came between the previous chapter and this one
	afterVolume bool
	lines       []srcLine // body lines, blank ones included (they separate paragraphs)
}

// Split cuts text into chapters at the headings ParseHeading recognises
// (SPEC §22.1). Volume headings are boundaries; a prologue before the
// first chapter and extras become front and back matter (or, with
// PrologueChapter, the prologue becomes chapter Start); a table of
// contents is only a run of ≥ 3 heading lines before the first body text;
// every other line lands in exactly one chapter or in Skipped. The
// headings must then number 1 or Start, then +1 each (a volume may start
// again at 1), each chapter with some text; else E_SCHEMA naming the line
// at fault.
func Split(text, file string, o Options) (*Manuscript, error) {
	if o.Start < 1 {
		o.Start = 1
	}
	lines := strings.Split(text, "\n")
	heads := make([]*Heading, len(lines))
	for i, l := range lines {
		if h, ok := ParseHeading(l); ok {
			heads[i] = &h
		}
	}
	m := &Manuscript{}
	toc := tocLines(lines, heads)
	var secs []*section
	var preamble []srcLine
	for i, l := range lines {
		n := i + 1
		switch {
		case toc[i]:
			m.TOCLines++
			m.Skipped = append(m.Skipped, Skipped{n, trimSpaces(l), SkipTOC})
		case heads[i] != nil:
			secs = append(secs, &section{head: *heads[i], line: n, text: trimSpaces(l)})
		case len(secs) == 0:
			if trimSpaces(l) != "" {
				m.PreambleLines++
				preamble = append(preamble, srcLine{n, l})
			}
		default:
			cur := secs[len(secs)-1]
			cur.lines = append(cur.lines, srcLine{n, l})
		}
	}
	for _, p := range preamble {
		m.Skipped = append(m.Skipped, Skipped{p.n, trimSpaces(p.raw), SkipPreamble})
	}
	m.Unwrapped = unwrapWanted(o.Unwrap, secs)
	indent := m.Unwrapped && indented(secs)
	var chapters []*section
	sawChapter, volume := false, false
	for _, s := range secs {
		switch s.head.Kind {
		case KindChapter:
			sawChapter = true
			s.afterVolume, volume = volume, false
			chapters = append(chapters, s)
		case KindVolume:
			volume = true
			m.Volumes = append(m.Volumes, VolumeMark{Volume: s.head.Number, Title: s.head.Title, Line: s.line})
			m.skip(s, SkipVolume, SkipVolumeText)
		case KindPrologue:
			if o.PrologueChapter && len(chapters) == 0 {
				chapters = append(chapters, s) // becomes chapter Start
				continue
			}
			m.FrontMatter = append(m.FrontMatter, s.matter(MatterPrologue, m.Unwrapped, indent))
			m.skip(s, SkipFrontMatter, SkipFrontMatter)
		case KindExtra:
			m.BackMatter = append(m.BackMatter, s.matter(MatterExtra, m.Unwrapped, indent))
			m.skip(s, SkipBackMatter, SkipBackMatter)
		}
	}
	m.NoPrologue = o.PrologueChapter && (len(chapters) == 0 || chapters[0].head.Kind != KindPrologue)
	sortSkipped(m.Skipped)
	if !sawChapter {
		return nil, errs.New(errs.Schema, file+" 中没有找到章节标题（如「第一章 标题」）", file+" has no chapter heading (such as 「第一章 标题」)").
			With("file", file).Hint("每章以单独一行的「第N章 标题」开头后重试", "start each chapter with a line 「第N章 标题」 and retry")
	}
	for i, s := range chapters {
		c := Chapter{Number: o.Start + i, Source: s.head.Number, Title: s.head.Title, Line: s.line,
			Paragraphs: paragraphs(s.lines, m.Unwrapped, indent)}
		if s.head.Kind == KindPrologue {
			c.Title = trimSpaces(s.head.Label + " " + s.head.Title)
		}
		if len(c.Paragraphs) == 0 {
			return nil, errs.Newf(errs.Schema, "%s 第 %d 行的「%s」没有正文", "%s line %d 「%s」 has no text", file, c.Line, s.text).
				With("file", file).With("line", c.Line).Hint("补上正文或删去该标题后重试（少于 3 行的目录不算目录，请删去）",
				"add its text or remove the heading and retry (a table of contents of fewer than 3 lines is not recognised; remove it)")
		}
		m.Chapters = append(m.Chapters, c)
	}
	if err := checkNumbers(chapters, lines, file, o.Start); err != nil {
		return nil, err
	}
	k := 0 // both lists are in line order
	for i := range m.Volumes {
		for k < len(m.Chapters) && m.Chapters[k].Line < m.Volumes[i].Line {
			k++
		}
		if k < len(m.Chapters) {
			m.Volumes[i].FirstChapter = m.Chapters[k].Number
		}
	}
	return m, nil
}

// skip lists a section's heading and text lines as not imported.
func (m *Manuscript) skip(s *section, headReason, textReason string) {
	m.Skipped = append(m.Skipped, Skipped{s.line, s.text, headReason})
	for _, l := range s.lines {
		if t := trimSpaces(l.raw); t != "" {
			m.Skipped = append(m.Skipped, Skipped{l.n, t, textReason})
		}
	}
}

func (s *section) matter(kind string, unwrap, indent bool) Matter {
	p := paragraphs(s.lines, unwrap, indent)
	if p == nil {
		p = []string{}
	}
	return Matter{Kind: kind, Heading: s.text, Title: s.head.Title, Line: s.line, Paragraphs: p}
}

// sortSkipped orders the list by line (insertion sort: it is built
// nearly in order).
func sortSkipped(s []Skipped) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Line < s[j-1].Line; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// tocLines marks a table of contents: the run of heading lines (blank
// lines between them allowed) that starts at the first heading, minus the
// real headings that end it (the last one, and any volume headings just
// before it), when that leaves ≥ 3 lines. Anywhere else consecutive
// headings are empty chapters, which Split refuses by name.
func tocLines(lines []string, heads []*Heading) []bool {
	toc := make([]bool, len(lines))
	var run []int
	bodyFound := false
scan:
	for i, l := range lines {
		switch {
		case heads[i] != nil:
			run = append(run, i)
		case trimSpaces(l) == "":
		case len(run) > 0:
			bodyFound = true
			break scan
		}
	}
	if !bodyFound {
		return toc // no body text at all: nothing is a table of contents
	}
	end := len(run) - 1
	for end > 0 && heads[run[end-1]].Kind == KindVolume {
		end--
	}
	if end >= 3 {
		for _, i := range run[:end] {
			toc[i] = true
		}
	}
	return toc
}

// checkNumbers: the first chapter's heading is 1 or start (with a
// prologue imported as a chapter, the first numbered one is 1 or start+1);
// every later one is its predecessor + 1, or 1 right after a volume
// heading (volumes numbered on their own). The error names the line at
// fault: a misnumbered heading when the next one fits the sequence again,
// else the gap between two headings and, when it finds one, the line in
// the gap that looks like the missing heading in a form not recognised.
func checkNumbers(chapters []*section, lines []string, file string, start int) error {
	prevLine, prev := 0, 0
	for i, s := range chapters {
		if s.head.Kind == KindPrologue {
			prevLine = s.line
			continue
		}
		n, assigned := s.head.Number, start+i
		var want int
		switch {
		case prev == 0 && (n == 1 || n == assigned):
			prev, prevLine = n, s.line
			continue
		case prev == 0:
			want = 1
		case n == prev+1 || n == 1 && s.afterVolume:
			prev, prevLine = n, s.line
			continue
		default:
			want = prev + 1
		}
		if prev == 0 && start == 1 {
			return errs.Newf(errs.Schema, "%s 第 %d 行是第 %d 章，应为第 1 章", "%s line %d is chapter %d, expected chapter 1", file, s.line, n).
				With("file", file).With("line", s.line).With("found", n).With("expected", 1).
				Hint("这是书的后半部分时，用 novel import --start "+strconv.Itoa(n)+" 接着前面已导入的第 "+strconv.Itoa(n-1)+" 章导入；否则修正该标题的编号",
					"for the later part of a book, import it with novel import --start "+strconv.Itoa(n)+" after chapter "+strconv.Itoa(n-1)+"; otherwise fix that heading's number")
		}
		if prev == 0 {
			return errs.Newf(errs.Schema, "%s 第 %d 行是第 %d 章，而导入从第 %d 章开始（--start %d）", "%s line %d is chapter %d, but the import starts at chapter %d (--start %d)",
				file, s.line, n, assigned, start).With("file", file).With("line", s.line).With("found", n).With("expected", assigned).
				Hint("稿件的第一章须编号为 1 或 "+strconv.Itoa(assigned)+"；修正标题或 --start 后重试", "the manuscript's first chapter must be numbered 1 or "+strconv.Itoa(assigned)+"; fix the heading or --start and retry")
		}
		if i+1 < len(chapters) && chapters[i+1].head.Number == want+1 {
			return errs.Newf(errs.Schema, "%s 第 %d 行的标题是第 %d 章，按前后章节应为第 %d 章", "%s line %d is headed chapter %d; between its neighbours it should be chapter %d",
				file, s.line, n, want).With("file", file).With("line", s.line).With("found", n).With("expected", want).
				Hint("把第 "+strconv.Itoa(s.line)+" 行的编号改为 "+strconv.Itoa(want)+" 后重试", "change the number on line "+strconv.Itoa(s.line)+" to "+strconv.Itoa(want)+" and retry")
		}
		if n > want {
			e := errs.Newf(errs.Schema, "%s 第 %d 行是第 %d 章，但第 %d 行的第 %d 章之后没有找到第 %d 章的标题", "%s line %d is chapter %d, but no heading of chapter %d follows chapter %d on line %d",
				file, s.line, n, prevLine, prev, want).With("file", file).With("line", s.line).With("found", n).With("expected", want)
			if j := suspect(lines, prevLine, s.line, want); j > 0 {
				t := trimSpaces(lines[j-1])
				return e.With("suspect_line", j).Hint("第 "+strconv.Itoa(j)+" 行「"+t+"」像是第 "+strconv.Itoa(want)+" 章的标题，但格式无法识别：改成「第"+strconv.Itoa(want)+"章 标题」后重试",
					"line "+strconv.Itoa(j)+" 「"+t+"」 looks like chapter "+strconv.Itoa(want)+"'s heading in a form not recognised: write it as 「第"+strconv.Itoa(want)+"章 标题」 and retry")
			}
			return e.Hint("在第 "+strconv.Itoa(prevLine)+"–"+strconv.Itoa(s.line)+" 行之间补上「第"+strconv.Itoa(want)+"章 标题」，或修正编号后重试",
				"add a heading 「第"+strconv.Itoa(want)+"章 标题」 between lines "+strconv.Itoa(prevLine)+" and "+strconv.Itoa(s.line)+", or fix the numbers, and retry")
		}
		return errs.Newf(errs.Schema, "%s 第 %d 行是第 %d 章，但第 %d 行已是第 %d 章（重复或倒退）", "%s line %d is chapter %d, but line %d is already chapter %d (repeated or going back)",
			file, s.line, n, prevLine, prev).With("file", file).With("line", s.line).With("found", n).With("expected", want).
			Hint("修正第 "+strconv.Itoa(s.line)+" 行的编号（应为第 "+strconv.Itoa(want)+" 章），或删去重复的章节后重试",
				"fix the number on line "+strconv.Itoa(s.line)+" (chapter "+strconv.Itoa(want)+" expected) or remove the repeated chapter, and retry")
	}
	return nil
}

// suspect finds, strictly between lines from and to, a short line that is
// not a sentence and carries the number want (digits or Chinese
// numerals): a heading written in a form the recogniser does not know.
func suspect(lines []string, from, to, want int) int {
	for j := from + 1; j < to; j++ {
		t := trimSpaces(lines[j-1])
		if t == "" || utf8.RuneCountInString(t) > maxTitle || endsSentence(t) {
			continue
		}
		for _, tok := range numberTokens(t) {
			if n, ok := outline.ParseNumber(tok); ok && n == want {
				return j
			}
		}
	}
	return 0
}

// numberTokens are the runs of digits or Chinese numeral characters in s.
func numberTokens(s string) []string {
	isNum := func(r rune) bool {
		return r >= '0' && r <= '9' || r >= '０' && r <= '９' || strings.ContainsRune("零〇○一二两三四五六七八九十百千万", r)
	}
	return strings.FieldsFunc(s, func(r rune) bool { return !isNum(r) })
}

// sentenceEnds are the characters a finished paragraph ends with.
const sentenceEnds = "。！？!?.…」』”’\"）)】》—～~"

func endsSentence(t string) bool {
	r, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(sentenceEnds, r)
}

// unwrapWanted decides --unwrap auto: the chapters are hard-wrapped when
// at least one body line in five ends mid-sentence with more text on the
// next line (a paragraph-per-line text ends nearly every line at a
// sentence end).
func unwrapWanted(mode string, secs []*section) bool {
	switch mode {
	case UnwrapOn:
		return true
	case UnwrapOff:
		return false
	}
	body, mid := 0, 0
	for _, s := range secs {
		if s.head.Kind != KindChapter {
			continue
		}
		for i, l := range s.lines {
			t := trimSpaces(l.raw)
			if t == "" {
				continue
			}
			body++
			if !endsSentence(t) && i+1 < len(s.lines) && trimSpaces(s.lines[i+1].raw) != "" {
				mid++
			}
		}
	}
	return mid > 0 && mid*5 >= body
}

// indented reports a text whose paragraphs are marked by indentation
// (「　　」 or two spaces): then an indented line starts a paragraph.
func indented(secs []*section) bool {
	for _, s := range secs {
		for _, l := range s.lines {
			if isIndented(l.raw) {
				return true
			}
		}
	}
	return false
}

func isIndented(raw string) bool {
	return strings.HasPrefix(raw, "\u3000") || strings.HasPrefix(raw, "  ") || strings.HasPrefix(raw, "\t")
}

// paragraphs turns body lines into paragraphs: without unwrap every
// non-empty line is one; with it, lines are joined until a blank line,
// an indented line (when the text marks paragraphs by indentation) or,
// otherwise, a line ending a sentence.
func paragraphs(lines []srcLine, unwrap, indent bool) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, l := range lines {
		t := trimSpaces(l.raw)
		switch {
		case t == "":
			flush()
			continue
		case !unwrap:
			out = append(out, t)
			continue
		case indent && isIndented(l.raw):
			flush()
		}
		if cur.Len() > 0 {
			prev, _ := utf8.DecodeLastRuneInString(cur.String())
			next, _ := utf8.DecodeRuneInString(t)
			if prev < utf8.RuneSelf && prev != ' ' && isLatin(next) {
				cur.WriteByte(' ') // a wrapped Latin text's word boundary ("snow," + "and")
			}
		}
		cur.WriteString(t)
		if !indent && endsSentence(t) {
			flush()
		}
	}
	flush()
	return out
}

func isLatin(r rune) bool { return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// Markdown is a chapter in the suite's chapter format: `# 第N章 标题`, a
// blank line, then the paragraphs separated by blank lines.
func (c Chapter) Markdown() []byte {
	var w strings.Builder
	w.WriteString("# 第" + strconv.Itoa(c.Number) + "章")
	if c.Title != "" {
		w.WriteString(" " + c.Title)
	}
	w.WriteString("\n")
	for _, p := range c.Paragraphs {
		w.WriteString("\n" + p + "\n")
	}
	return []byte(w.String())
}
