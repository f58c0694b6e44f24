// Package novelexport is the command surface of novel-export (SPEC §23):
// the committed chapters as one book in txt, md or epub.
package novelexport

import (
	"fmt"
	"strconv"

	"github.com/novelsuite/novel/internal/bookexport"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
)

type grammar struct {
	cli.Globals `embed:""`
	Format      string `help:"Book format: txt (default), md or epub." enum:"txt,md,epub" default:"txt"`
	Out         string `help:"Write the book to FILE atomically (relative to the working directory) and print a JSON result; required for epub." placeholder:"FILE"`
	From        int    `type:"chapter" help:"First chapter to export (default 1)." placeholder:"C"`
	To          int    `type:"chapter" help:"Last chapter to export (default: the last committed chapter)." placeholder:"C"`
}

// result is printed after --out wrote the book.
type result struct {
	Format   string `json:"format"`
	Out      string `json:"out"`
	Bytes    int    `json:"bytes"`
	Title    string `json:"title"`
	Author   string `json:"author"`
	From     int    `json:"from"`
	To       int    `json:"to"`
	Chapters int    `json:"chapters"`
	// Identifier is the book's (or the range's) urn:uuid: (SPEC §22.1).
	Identifier string   `json:"identifier"`
	Warnings   []string `json:"warnings"`
}

func (c *grammar) Run(ctx *cli.Context) error {
	if c.Format == "epub" && c.Out == "" {
		return cli.UsageError("EPUB 是二进制文件：请用 --out FILE 指定输出文件", "an EPUB is a binary file: name the output with --out FILE")
	}
	if c.Out == "" && ctx.Globals.JQ != "" {
		return cli.UsageError("--jq 只适用于 --out 之后打印的 JSON 结果", "--jq applies to the JSON result printed with --out")
	}
	if c.Out != "" {
		if err := ctx.CheckOutput(c.Out); err != nil {
			return err
		}
	}
	root, s, _, err := ctx.Open()
	if err != nil {
		return err
	}
	book, err := bookexport.Load(root, s, c.From, c.To)
	if err != nil {
		return err
	}
	clk, err := ctx.Clock()
	if err != nil {
		return err
	}
	book.Modified = clk.Now()
	var doc []byte
	switch c.Format {
	case "md":
		doc = book.Markdown()
	case "epub":
		if doc, err = book.EPUB(); err != nil {
			return err
		}
	default:
		doc = book.Text()
	}
	if c.Out == "" {
		// stdout holds the book, so its warnings go to stderr, one line each.
		for _, w := range book.Warnings {
			fmt.Fprintln(ctx.Err, "novel-export: "+errs.Text(s.Language, "警告：", "warning: ")+w)
		}
		ctx.Document(doc)
		return nil
	}
	if err := ctx.WriteOutput(c.Out, doc); err != nil {
		return err
	}
	first, last := book.Chapters[0].Number, book.Chapters[len(book.Chapters)-1].Number
	res := result{Format: c.Format, Out: c.Out, Bytes: len(doc), Title: book.Title, Author: book.Author,
		From: first, To: last, Chapters: len(book.Chapters), Identifier: book.ID, Warnings: book.Warnings}
	ctx.Result(res, func() string {
		return "《" + book.Title + "》第 " + strconv.Itoa(first) + "–" + strconv.Itoa(last) + " 章已导出到 " + c.Out + "（" + c.Format + "）"
	})
	return nil
}

// Main runs novel-export.
func Main() int {
	return cli.Main("novel-export", "Export the committed chapters as one book: plain text, Markdown or EPUB 3 "+
		"(title from settings.json title or brief.md's first heading, author from settings.json author). "+
		"Export never changes the project.", &grammar{})
}
