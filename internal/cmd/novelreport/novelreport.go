// Package novelreport is the command surface of novel-report (SPEC §12).
package novelreport

import (
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/report"
)

// grammar has no subcommands: novel-report does one thing.
type grammar struct {
	cli.Globals `embed:""`
	Out         string `help:"Write the document to FILE atomically and print a small JSON result (relative to the working directory; written like -o)." placeholder:"FILE"`
	Format      string `help:"Document format: html (default), md or json." enum:"html,md,json" default:"html"`
}

// outResult is printed after --out wrote the document.
type outResult struct {
	Format   string          `json:"format"`
	Out      string          `json:"out"`
	Bytes    int             `json:"bytes"`
	Chapters int             `json:"chapters"`
	Headline report.Headline `json:"headline"`
	Warnings []string        `json:"warnings"`
}

func (c *grammar) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	s, err := ctx.Settings()
	if err != nil {
		return err
	}
	if c.Out == "" && c.Format != "json" && ctx.Globals.JQ != "" {
		return cli.UsageError("--jq 只适用于 JSON：请同时使用 --format json 或 --out FILE",
			"--jq applies to JSON only: use --format json or --out FILE")
	}
	if c.Out != "" {
		if err := ctx.CheckOutput(c.Out); err != nil {
			return err
		}
	}
	r, err := report.Collect(root, s)
	if err != nil {
		return err
	}
	var doc []byte
	switch c.Format {
	case "md":
		doc = r.Markdown()
	case "json":
		if doc, err = jsonio.Marshal(r); err != nil {
			return errs.Newf(errs.IO, "无法编码报告：%v", "cannot encode the report: %v", err)
		}
	default:
		doc = r.HTML()
	}
	if c.Out != "" {
		if err := ctx.WriteOutput(c.Out, doc); err != nil {
			return err
		}
		res := outResult{Format: c.Format, Out: c.Out, Bytes: len(doc), Chapters: len(r.Chapters), Headline: r.Headline, Warnings: r.Warnings}
		ctx.Result(res, func() string {
			return "报告已写入 " + c.Out + "（" + c.Format + "）：" + r.Headline.Text()
		})
		return nil
	}
	if c.Format == "json" {
		ctx.Result(r, func() string { return r.Headline.Text() })
		return nil
	}
	ctx.Document(doc) // HTML or Markdown
	return nil
}

// Main runs novel-report.
func Main() int {
	return cli.Main("novel-report", "Render the novel project's health report: headline numbers, score, gate decisions and "+
		"word count per chapter, foreshadowing spans, storyline rotation, pending revisions and the latest logic reviews "+
		"(one self-contained HTML page, Markdown tables, or the JSON data).", &grammar{})
}
