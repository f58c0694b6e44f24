// Package bookexport turns the committed chapters of a project into a book:
// plain text, Markdown or EPUB 3 (SPEC §23). It only reads the project.
package bookexport

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// Book is what every format renders.
type Book struct {
	Title    string
	Author   string
	Chapters []Chapter
}

// Chapter is one committed chapter, split into paragraphs.
type Chapter struct {
	Number int
	// Heading is the chapter's own heading without the Markdown marks
	// ("第1章 第七盏灯"), or "第N章" when the file has none.
	Heading    string
	Paragraphs []string
	File       string
}

// headingRE is the chapter file's first line as the suite writes it.
var headingRE = regexp.MustCompile(`^#{1,6}[ \t\x{3000}]*(.+?)[ \t\x{3000}]*$`)

// Load reads the committed chapters from..to (0 = the first / the last
// committed chapter). Committed means ≤ last_completed_chapter: an
// inflight chapter's staging text is never exported.
func Load(root *project.Root, s settings.Settings, from, to int) (*Book, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	last := cp.LastCompleted
	if from == 0 {
		from = 1
	}
	if to == 0 {
		to = last
	}
	if last == 0 {
		return nil, errs.New(errs.State, "项目还没有已提交的章节，无法导出", "the project has no committed chapter to export").WithExit(1).
			Hint("先用 make -f pipeline.mk continue 写出并提交章节", "write and commit chapters first (make -f pipeline.mk continue)")
	}
	if from > to || to > last {
		return nil, errs.Newf(errs.Usage, "导出范围 %d–%d 无效：已提交的章节是 1–%d", "export range %d–%d is invalid: the committed chapters are 1–%d", from, to, last).
			With("from", from).With("to", to).With("last_completed_chapter", last).
			Hint("用 --from/--to 选择 1–"+strconv.Itoa(last)+" 之内的章节", "choose --from/--to within 1–"+strconv.Itoa(last))
	}
	b := &Book{Title: title(root, s), Author: s.Author}
	for c := from; c <= to; c++ {
		ch, err := loadChapter(root, c)
		if err != nil {
			return nil, err
		}
		b.Chapters = append(b.Chapters, ch)
	}
	return b, nil
}

func loadChapter(root *project.Root, c int) (Chapter, error) {
	rel := layout.Chapter(c)
	raw, err := root.ReadText(rel)
	if err != nil {
		return Chapter{}, err
	}
	ch := Chapter{Number: c, File: rel, Heading: "第" + strconv.Itoa(c) + "章"}
	text := strings.ReplaceAll(raw, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) {
		if m := headingRE.FindStringSubmatch(lines[i]); m != nil {
			ch.Heading = m[1]
			i++
		}
	}
	ch.Paragraphs = paragraphs(lines[i:])
	return ch, nil
}

// paragraphs splits the body at blank lines; the lines of one paragraph
// are joined without a separator (a hard-wrapped Chinese line has no
// spaces to restore).
func paragraphs(lines []string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(l, "\u3000"))
		if t == "" {
			flush()
			continue
		}
		cur.WriteString(t)
	}
	flush()
	return out
}

// title is settings.json's title, else the text inside the first 《》 of
// brief.md's first heading, else that heading, else the project folder's
// name: a brief titled "《守灯人》项目简介" names the book 守灯人.
func title(root *project.Root, s settings.Settings) string {
	if t := strings.TrimSpace(s.Title); t != "" {
		return t
	}
	if data, err := root.ReadFile(layout.Brief); err == nil && utf8.Valid(data) {
		for _, l := range strings.Split(string(jsonio.StripBOM(data)), "\n") {
			m := headingRE.FindStringSubmatch(strings.TrimRight(l, "\r"))
			if m == nil {
				continue
			}
			h := m[1]
			if a := strings.Index(h, "《"); a >= 0 {
				if b := strings.Index(h[a:], "》"); b > len("《") {
					return h[a+len("《") : a+b]
				}
			}
			return h
		}
	}
	return filepath.Base(root.Dir)
}
