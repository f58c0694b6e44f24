// Package novellint is the command surface of novel-lint: the
// deterministic chapter checks and platform limits of SPEC §20.
package novellint

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

type grammar struct {
	cli.Globals `embed:""`
	Chapter     int    `type:"chapter" required:"" help:"Chapter number; the heading must say 第N章 with this N." placeholder:"C"`
	File        string `help:"Lint this file instead (relative to the working directory; outside a project the defaults apply)." placeholder:"PATH"`
	Stage       string `help:"Stage of the text: draft (may end with the hints block), refine, polish or committed (default: the chapter's stage)." enum:"draft,refine,polish,committed," default:""`
}

func (g *grammar) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil && (g.File == "" || !errs.Is(err, errs.NoProject)) {
		return err
	}
	s := settings.Defaults()
	if root != nil {
		if s, err = settings.Load(root, ctx.Getenv); err != nil {
			return err
		}
	}
	rel, text, stage, err := g.read(ctx, root)
	if err != nil {
		return err
	}
	var cfg lint.Config
	if root != nil {
		cfg, err = lint.LoadConfig(root, s)
	} else {
		cfg, err = lint.NewConfig(nil, s, nil)
	}
	if err != nil {
		return err
	}
	prev, err := lint.PreviousChapter(root, g.Chapter)
	if err != nil {
		return err
	}
	r := lint.Run(lint.Input{Chapter: g.Chapter, File: rel, Stage: stage, Text: text, Previous: prev}, cfg)
	ctx.Result(r, func() string { return textForm(r) })
	return nil
}

// read finds and reads the text: --file, else the staging chapter when
// it exists, else the committed one. It returns the path as reported.
func (g *grammar) read(ctx *cli.Context, root *project.Root) (rel, text, stage string, err error) {
	var data []byte
	switch {
	case g.File != "":
		p := g.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(ctx.Cwd, p)
		}
		rel = g.File
		if data, err = jsonio.ReadFile(p, g.File); err != nil {
			return "", "", "", err
		}
		if root != nil {
			if r := root.Rel(p); r == layout.StagingChapter(g.Chapter) || r == layout.Chapter(g.Chapter) {
				rel = r
			}
		}
	default:
		rel = layout.StagingChapter(g.Chapter)
		if !root.Exists(rel) {
			rel = layout.Chapter(g.Chapter)
		}
		if data, err = root.ReadFile(rel); err != nil {
			return "", "", "", err
		}
	}
	if !utf8.Valid(data) {
		line, col := jsonio.LineCol(data, jsonio.FirstInvalidUTF8(data))
		return "", "", "", errs.Newf(errs.Schema, "%s 不是有效的 UTF-8（第 %d 行第 %d 列）", "%s is not valid UTF-8 (line %d, column %d)", rel, line, col).
			With("file", rel).With("line", line).With("column", col).Hint("把文件转成 UTF-8 后重试", "convert the file to UTF-8 and retry")
	}
	stage = g.Stage
	if stage == "" {
		stage = defaultStage(root, rel, g.Chapter)
	}
	return rel, string(data), stage, nil
}

// defaultStage: the committed chapter is committed; the staging chapter is
// a draft until the chapter is refined (so its hints block is allowed),
// polish while polishing, else refine. Any other file is judged as a
// finished text.
func defaultStage(root *project.Root, rel string, c int) string {
	switch rel {
	case layout.StagingChapter(c):
		cp, err := checkpoint.Load(root)
		switch {
		case err != nil:
			return lint.StageRefine
		case cp.Idle():
			return lint.StageDraft // written before its advance
		case cp.Inflight != c:
			return lint.StageRefine
		case cp.Stage == checkpoint.Polishing:
			return lint.StagePolish
		case cp.Stage == checkpoint.Revising || checkpoint.Order(cp.Stage) < checkpoint.Order(checkpoint.Refined):
			return lint.StageDraft
		}
		return lint.StageRefine
	}
	return lint.StageCommitted
}

// textForm is one line per check that fired, then the summary.
func textForm(r *lint.Report) string {
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Count == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s %s ×%d: %s\n", c.Severity, c.ID, c.Count, c.Detail)
		for _, e := range c.Evidence {
			fmt.Fprintf(&b, "  %s:%d: %s\n", r.File, e.Line, e.Excerpt)
		}
	}
	fmt.Fprintf(&b, "%s: %d 字, %d error(s), %d warning(s)", r.File, r.WordCount, r.Summary.Errors, r.Summary.Warnings)
	return b.String()
}

// Main runs novel-lint.
func Main() int {
	return cli.Main("novel-lint", "Lint a chapter (SPEC §20): the platform's word-count limits, the heading, model artefacts, "+
		"bookkeeping leaks, quote style, dashes, AI-prose patterns, blacklist density and paragraph length. "+
		"Exit 0 whatever it finds (it is a report); exit 1 only when the text cannot be read.", &grammar{})
}
