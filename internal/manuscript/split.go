package manuscript

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/outline"
)

// Chapter is one chapter of a manuscript.
type Chapter struct {
	Number     int
	Title      string
	Line       int      // 1-based line of its heading in the source
	Paragraphs []string // non-empty lines, trimmed (indentation dropped)
}

// Manuscript is a split manuscript.
type Manuscript struct {
	Chapters []Chapter
	// PreambleLines counts the non-empty lines before the first heading
	// (title page, author's notes): reported, not imported.
	PreambleLines int
	// TOCLines counts the headings dropped as a table of contents.
	TOCLines int
}

// Split cuts text at chapter headings (outline.ParseManuscriptHeading:
// "第N章 标题" at the start of a line, with or without '#', Chinese numerals
// included). A heading with no text under it whose number comes again later
// is a table-of-contents line and is dropped. The chapters must then run
// first, first+1, … without gaps or repeats, each with some text; else
// E_SCHEMA naming the line.
func Split(text, file string, first int) (*Manuscript, error) {
	m := &Manuscript{}
	var all []Chapter
	for i, line := range strings.Split(text, "\n") {
		if n, title, ok := outline.ParseManuscriptHeading(line); ok {
			all = append(all, Chapter{Number: n, Title: title, Line: i + 1})
			continue
		}
		t := strings.TrimSpace(strings.Trim(line, "\u3000"))
		if t == "" {
			continue
		}
		if len(all) == 0 {
			m.PreambleLines++
			continue
		}
		cur := &all[len(all)-1]
		cur.Paragraphs = append(cur.Paragraphs, t)
	}
	later := map[int]int{} // number → how many headings of it come after
	for _, c := range all {
		later[c.Number]++
	}
	for _, c := range all {
		later[c.Number]--
		if len(c.Paragraphs) == 0 && later[c.Number] > 0 {
			m.TOCLines++
			continue
		}
		m.Chapters = append(m.Chapters, c)
	}
	if len(m.Chapters) == 0 {
		return nil, errs.New(errs.Schema, file+" 中没有找到章节标题（如「第一章 标题」）", file+" has no chapter heading (such as 「第一章 标题」)").
			With("file", file).Hint("每章以单独一行的「第N章 标题」开头后重试", "start each chapter with a line 「第N章 标题」 and retry")
	}
	for i, c := range m.Chapters {
		want := first + i
		if c.Number != want {
			return nil, errs.Newf(errs.Schema, "%s 第 %d 行是第 %d 章，应为第 %d 章（章节须从第 %d 章起连续、不重复）",
				"%s line %d is chapter %d, expected chapter %d (chapters must run from %d without gaps or repeats)",
				file, c.Line, c.Number, want, first).With("file", file).With("line", c.Line).With("found", c.Number).With("expected", want).
				Hint("修正该章节标题的编号后重试", "fix that heading's number and retry")
		}
		if len(c.Paragraphs) == 0 {
			return nil, errs.Newf(errs.Schema, "%s 第 %d 行的第 %d 章没有正文", "%s line %d: chapter %d has no text", file, c.Line, c.Number).
				With("file", file).With("line", c.Line).Hint("补上正文或删去该标题后重试", "add its text or remove the heading and retry")
		}
	}
	return m, nil
}

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
