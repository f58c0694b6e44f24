package bookexport

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	epub "github.com/go-shiori/go-epub"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
)

// bookCSS is the one style sheet: indented paragraphs and centred chapter
// headings, as Chinese e-books are set, and a centred title page.
const bookCSS = `body { line-height: 1.8; }
h1 { text-align: center; font-size: 1.4em; margin: 1.5em 0 1em; }
p { text-indent: 2em; margin: 0 0 0.6em; }
h1.book-title { font-size: 1.8em; margin-top: 30%; }
p.book-author, p.book-range { text-indent: 0; text-align: center; }
`

// tocTitles are the navigation document's heading per book language.
var tocTitles = map[string]string{"zh": "目录", "en": "Contents"}

// EPUB builds an EPUB 3 file with go-epub (a maintained library: OPF,
// navigation document and the EPUB 2 NCX are its work, not ours): a title
// page, then each chapter as one XHTML section listed in the table of
// contents. The identifier is Book.ID. go-epub writes neither a language
// on its pages nor a table-of-contents heading other than English, so
// localise sets both in the archive it wrote.
func (b *Book) EPUB() ([]byte, error) {
	e, err := epub.NewEpub(b.PubTitle())
	if err != nil {
		return nil, epubErr(err)
	}
	e.SetLang(b.Lang)
	if b.Author != "" {
		e.SetAuthor(b.Author)
	}
	e.SetIdentifier(b.ID)
	css, err := e.AddCSS("data:text/css;base64,"+base64.StdEncoding.EncodeToString([]byte(bookCSS)), "book.css")
	if err != nil {
		return nil, epubErr(err)
	}
	if _, err := e.AddSection(b.titlePage(), b.PubTitle(), "title.xhtml", css); err != nil {
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
	modified := b.Modified
	if modified.IsZero() {
		modified = time.Now()
	}
	return localise(buf.Bytes(), b.Lang, modified)
}

func (b *Book) titlePage() string {
	var w strings.Builder
	w.WriteString(`<h1 class="book-title">` + html.EscapeString(b.Title) + "</h1>\n")
	if b.Author != "" {
		w.WriteString(`<p class="book-author">` + html.EscapeString(b.Author) + "</p>\n")
	}
	if !b.Whole {
		r := strconv.Itoa(b.From) + "–" + strconv.Itoa(b.To)
		if b.Lang == "en" {
			r = "Chapters " + r
		} else {
			r = "第" + r + "章"
		}
		w.WriteString(`<p class="book-range">` + r + "</p>\n")
	}
	return w.String()
}

func sectionBody(ch Chapter) string {
	var w strings.Builder
	w.WriteString("<h1>" + html.EscapeString(ch.Heading) + "</h1>\n")
	for _, p := range ch.Paragraphs {
		w.WriteString("<p>" + html.EscapeString(p) + "</p>\n")
	}
	return w.String()
}

// The markers localise rewrites in go-epub's output.
const (
	htmlTag    = `<html xmlns="http://www.w3.org/1999/xhtml"`
	navHeading = "<h1>Table of Contents</h1>"
)

// localise copies the archive with xml:lang and lang on every XHTML page
// and the navigation heading in the book's language, keeping the entry
// order and methods (mimetype first and stored). A marker go-epub no
// longer writes is an error, never a silently English book.
func localise(data []byte, lang string, modified time.Time) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, epubErr(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, epubErr(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, epubErr(err)
		}
		if strings.HasSuffix(f.Name, ".xhtml") {
			if body, err = setLang(f.Name, body, lang); err != nil {
				return nil, err
			}
		}
		if strings.HasSuffix(f.Name, ".opf") {
			if body, err = setModified(f.Name, body, modified); err != nil {
				return nil, err
			}
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: f.Method})
		if err != nil {
			return nil, epubErr(err)
		}
		if _, err := w.Write(body); err != nil {
			return nil, epubErr(err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, epubErr(err)
	}
	return out.Bytes(), nil
}

func setLang(name string, body []byte, lang string) ([]byte, error) {
	s := string(body)
	i := strings.Index(s, htmlTag)
	j := -1
	if i >= 0 {
		j = strings.IndexByte(s[i:], '>')
	}
	if j < 0 {
		return nil, epubErr(fmt.Errorf("%s: no %s start tag to set the language on", name, htmlTag))
	}
	s = s[:i+j] + ` xml:lang="` + lang + `" lang="` + lang + `"` + s[i+j:]
	if path.Base(name) == "nav.xhtml" {
		if !strings.Contains(s, navHeading) {
			return nil, epubErr(fmt.Errorf("%s: no %s heading to translate", name, navHeading))
		}
		s = strings.Replace(s, navHeading, "<h1>"+tocTitles[lang]+"</h1>", 1)
	}
	return []byte(s), nil
}

// modifiedRE is go-epub's dcterms:modified meta, stamped with the wall
// clock when the archive is written (it has no setter).
var modifiedRE = lazyre.New(`(<meta property="dcterms:modified">)[^<]*(</meta>)`)

func setModified(name string, body []byte, t time.Time) ([]byte, error) {
	if !modifiedRE().Match(body) {
		return nil, epubErr(fmt.Errorf("%s: no dcterms:modified to set", name))
	}
	return modifiedRE().ReplaceAll(body, []byte("${1}"+t.UTC().Format("2006-01-02T15:04:05Z")+"${2}")), nil
}

func epubErr(err error) error {
	return errs.Newf(errs.IO, "无法生成 EPUB：%v", "cannot build the EPUB: %v", err).Wrap(err)
}
