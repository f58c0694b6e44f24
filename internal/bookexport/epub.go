package bookexport

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"html"
	"strings"

	epub "github.com/go-shiori/go-epub"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
)

// bookCSS is the one style sheet: indented paragraphs and centred chapter
// headings, as Chinese e-books are set.
const bookCSS = `body { line-height: 1.8; }
h1 { text-align: center; font-size: 1.4em; margin: 1.5em 0 1em; }
p { text-indent: 2em; margin: 0 0 0.6em; }
`

// EPUB builds an EPUB 3 file with go-epub (a maintained library: OPF,
// navigation document and the EPUB 2 NCX are its work, not ours). Each
// chapter is one XHTML section listed in the table of contents. The
// identifier is derived from the title and author, so re-exporting a book
// keeps its identity in readers' libraries.
func (b *Book) EPUB() ([]byte, error) {
	e, err := epub.NewEpub(b.Title)
	if err != nil {
		return nil, epubErr(err)
	}
	e.SetLang("zh")
	if b.Author != "" {
		e.SetAuthor(b.Author)
	}
	e.SetIdentifier(bookID(b.Title, b.Author))
	css, err := e.AddCSS("data:text/css;base64,"+base64.StdEncoding.EncodeToString([]byte(bookCSS)), "book.css")
	if err != nil {
		return nil, epubErr(err)
	}
	for _, ch := range b.Chapters {
		if _, err := e.AddSection(sectionBody(ch), ch.Heading, "chapter-"+layout.Pad(ch.Number)+".xhtml", css); err != nil {
			return nil, epubErr(err)
		}
	}
	var buf bytes.Buffer
	if _, err := e.WriteTo(&buf); err != nil {
		return nil, epubErr(err)
	}
	return buf.Bytes(), nil
}

func sectionBody(ch Chapter) string {
	var w strings.Builder
	w.WriteString("<h1>" + html.EscapeString(ch.Heading) + "</h1>\n")
	for _, p := range ch.Paragraphs {
		w.WriteString("<p>" + html.EscapeString(p) + "</p>\n")
	}
	return w.String()
}

// bookID is a name-based (version 5 style) UUID URN of title and author.
func bookID(title, author string) string {
	h := sha1.Sum([]byte("novel-book\x00" + title + "\x00" + author))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func epubErr(err error) error {
	return errs.Newf(errs.IO, "无法生成 EPUB：%v", "cannot build the EPUB: %v", err).Wrap(err)
}
