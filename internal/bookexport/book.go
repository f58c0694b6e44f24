// Package bookexport turns the committed chapters of a project into a book:
// plain text, Markdown or EPUB 3 (SPEC §23). It only reads the project.
package bookexport

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gofrs/uuid/v5"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// Book is what every format renders.
type Book struct {
	Title  string
	Author string
	// ID is the publication's identifier, a urn:uuid: (see identifier).
	ID string
	// Lang is the language the chapters are written in: "zh" or "en".
	Lang string
	// From and To are the chapters exported; Whole says they are every
	// committed chapter (a range is a publication of its own).
	From, To int
	Whole    bool
	Chapters []Chapter
	// Modified is the package's dcterms:modified: the suite's time
	// (NOVEL_NOW when set), so two exports at the same time are the same
	// bytes.
	Modified time.Time
	// Warnings name what export changed to make the book valid (control
	// characters removed), in the project's message language.
	Warnings []string
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
var headingRE = lazyre.New(`^#{1,6}[ \t\x{3000}]*(.+?)[ \t\x{3000}]*$`)

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
	// A control character in the title or author would break the EPUB's
	// metadata as one in a chapter breaks its page.
	name, _ := stripControls(title(root, s))
	author, _ := stripControls(s.Author)
	b := &Book{Title: name, Author: author, From: from, To: to, Whole: from == 1 && to == last, Warnings: []string{}}
	for c := from; c <= to; c++ {
		ch, removed, err := loadChapter(root, c)
		if err != nil {
			return nil, err
		}
		if len(removed) > 0 {
			b.Warnings = append(b.Warnings, controlWarning(s.Language, ch.File, removed))
		}
		b.Chapters = append(b.Chapters, ch)
	}
	id, err := identifier(root, s, b)
	if err != nil {
		return nil, err
	}
	b.ID = "urn:uuid:" + id.String()
	b.Lang = language(b.Chapters)
	return b, nil
}

// loadChapter reads chapter c without the control characters an XML
// book cannot hold, and returns the ones it removed.
func loadChapter(root *project.Root, c int) (Chapter, []rune, error) {
	rel := layout.Chapter(c)
	raw, err := root.ReadText(rel)
	if err != nil {
		return Chapter{}, nil, err
	}
	ch := Chapter{Number: c, File: rel, Heading: "第" + strconv.Itoa(c) + "章"}
	text := strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n")
	text, removed := stripControls(text)
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) {
		if m := headingRE().FindStringSubmatch(lines[i]); m != nil {
			ch.Heading = m[1]
			i++
		}
	}
	ch.Paragraphs = paragraphs(lines[i:])
	return ch, removed, nil
}

// paragraphs makes every non-empty line a paragraph: chapters separate
// paragraphs with blank lines, but a hand edit or a model answer with a
// single newline between paragraphs must not become one wall of text
// (SPEC §22.1). Re-joining hard-wrapped text is novel import's work.
func paragraphs(lines []string) []string {
	var out []string
	for _, l := range lines {
		if t := strings.TrimSpace(strings.TrimLeft(l, "\u3000")); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// stripControls removes the characters XML 1.0 forbids or discourages
// (C0 controls other than tab and newline, DEL, C1 controls, U+FFFE,
// U+FFFF): one of them makes an EPUB that strict readers refuse.
func stripControls(text string) (string, []rune) {
	var removed []rune
	out := strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff {
			removed = append(removed, r)
			return -1
		}
		return r
	}, text)
	return out, removed
}

func controlWarning(lang, file string, removed []rune) string {
	var codes []string
	for _, r := range removed {
		c := fmt.Sprintf("U+%04X", r)
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	n, list := strconv.Itoa(len(removed)), strings.Join(codes, ", ")
	if lang == "en" {
		return file + " holds " + n + " control character(s) (" + list + "); removed from the export"
	}
	return file + " 含 " + n + " 个控制字符（" + list + "），导出时已删除"
}

// bookNamespace names the derived book identifiers (UUID version 5).
var bookNamespace = uuid.NewV5(uuid.NamespaceURL, "https://github.com/novelsuite/novel/book")

// identifier is the publication's UUID: settings.json book_id (novel init
// and novel migrate write a random one), else one derived from the title,
// author and chapter 1's text, so a project without book_id still gets a
// stable identifier of its own and export still writes nothing. A range
// of chapters (a volume) is another publication: its UUID is derived from
// the book's and the range.
func identifier(root *project.Root, s settings.Settings, b *Book) (uuid.UUID, error) {
	id, err := uuid.FromString(s.BookID)
	if s.BookID == "" || err != nil {
		first, err := root.ReadText(layout.Chapter(1))
		if err != nil {
			return uuid.Nil, err
		}
		id = uuid.NewV5(bookNamespace, b.Title+"\x00"+b.Author+"\x00"+first)
	}
	if b.Whole {
		return id, nil
	}
	return uuid.NewV5(id, "chapters "+strconv.Itoa(b.From)+"-"+strconv.Itoa(b.To)), nil
}

// language is "zh" unless the chapters hold more Latin letters than twice
// their Han characters: the book's language is the one it is written in,
// not the project's message language.
func language(chapters []Chapter) string {
	han, latin := 0, 0
	for _, ch := range chapters {
		for _, p := range ch.Paragraphs {
			for _, r := range p {
				switch {
				case unicode.Is(unicode.Han, r):
					han++
				case r < utf8.RuneSelf && unicode.IsLetter(r):
					latin++
				}
			}
		}
	}
	if latin > 2*han {
		return "en"
	}
	return "zh"
}

// PubTitle is the title a publication carries: the book's, with the range
// of chapters when it holds only some of them.
func (b *Book) PubTitle() string {
	if b.Whole {
		return b.Title
	}
	r := strconv.Itoa(b.From) + "–" + strconv.Itoa(b.To)
	if b.Lang == "en" {
		return b.Title + " (chapters " + r + ")"
	}
	return b.Title + "（第" + r + "章）"
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
			m := headingRE().FindStringSubmatch(strings.TrimRight(l, "\r"))
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
