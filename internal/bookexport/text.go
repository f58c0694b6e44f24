package bookexport

import "strings"

// Text is the book as plain UTF-8 text: the title (and author) first, then
// each chapter's heading and its paragraphs, one per line, indented with two
// ideographic spaces as Chinese plain-text books are; chapters are separated
// by a blank line.
func (b *Book) Text() []byte {
	var w strings.Builder
	w.WriteString(b.Title + "\n")
	if b.Author != "" {
		w.WriteString("作者：" + b.Author + "\n")
	}
	for _, ch := range b.Chapters {
		w.WriteString("\n\n" + ch.Heading + "\n\n")
		for _, p := range ch.Paragraphs {
			w.WriteString("\u3000\u3000" + p + "\n")
		}
	}
	return []byte(w.String())
}

// Markdown is the book as one Markdown document: `# 书名`, the author line,
// then `## 第N章 标题` per chapter with its paragraphs separated by blank
// lines (the chapter files' own `#` headings move one level down).
func (b *Book) Markdown() []byte {
	var w strings.Builder
	w.WriteString("# " + b.Title + "\n")
	if b.Author != "" {
		w.WriteString("\n作者：" + b.Author + "\n")
	}
	for _, ch := range b.Chapters {
		w.WriteString("\n## " + ch.Heading + "\n")
		for _, p := range ch.Paragraphs {
			w.WriteString("\n" + p + "\n")
		}
	}
	return []byte(w.String())
}
