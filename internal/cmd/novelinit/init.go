// Package novelinit is the command surface of novel-init (SPEC §17): a new
// novel project in an empty (or research-only) directory.
package novelinit

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/newproject"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

type grammar struct {
	cli.Globals       `embed:""`
	Dir               string `arg:"" optional:"" help:"Directory of the new project (default: --project, else the working directory); created if missing." placeholder:"DIR"`
	Title             string `help:"The book's title."`
	Genre             string `help:"Genre, e.g. 东方玄幻."`
	Platform          string `help:"Target platform: fanqie, qidian, jinjiang or general (default)." placeholder:"P"`
	Premise           string `help:"The story in one sentence." placeholder:"S"`
	Protagonist       string `help:"Who the protagonist is." placeholder:"S"`
	Conflict          string `help:"The core conflict." placeholder:"S"`
	ChaptersPerVolume int    `help:"Chapters per volume (1..1000)." placeholder:"N"`
	TargetChapters    int    `help:"Chapters in the whole book (1..10000), the length setup:book plans to; default: the brief's 目标章数, else 200." placeholder:"N"`
	WordsPerChapter   int    `help:"Target words (字) per chapter: at least the platform's words_min (general 2000; a platform-profile.json already in DIR may lower it), at most 20000." placeholder:"N"`
	Language          string `help:"Message language of the suite for this project: zh (default) or en." placeholder:"zh|en"`
}

type result struct {
	Project  string   `json:"project"`
	Created  []string `json:"created"`
	NextStep string   `json:"next_step"`
}

func (c *grammar) Run(ctx *cli.Context) error {
	ctx.SetLanguage(c.Language)
	o := newproject.Options{Title: strings.TrimSpace(c.Title), Genre: strings.TrimSpace(c.Genre), Platform: c.Platform,
		Premise: strings.TrimSpace(c.Premise), Protagonist: strings.TrimSpace(c.Protagonist), Conflict: strings.TrimSpace(c.Conflict),
		ChaptersPerVolume: c.ChaptersPerVolume, TargetChapters: c.TargetChapters, WordsPerChapter: c.WordsPerChapter, Language: c.Language}
	if err := o.Validate(); err != nil {
		return err
	}
	id, err := settings.NewBookID()
	if err != nil {
		return err
	}
	o.BookID = id
	clk, err := ctx.Clock()
	if err != nil {
		return err
	}
	dir := c.Dir
	if dir == "" {
		dir = ctx.Globals.Project
	}
	if dir == "" {
		dir = "."
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ctx.Cwd, dir)
	}
	files, err := newproject.Files(o, clk.Stamp())
	if err != nil {
		return errs.Newf(errs.IO, "无法生成项目文件：%v", "cannot render the project files: %v", err)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return errs.Newf(errs.Usage, "%s 不是目录", "%s is not a directory", c.Dir).With("dir", dir)
	}
	// The length floor may come from a platform-profile.json already in
	// the folder; checked before anything (the folder included) is created.
	var existing *project.Root
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		if existing, err = project.New(dir); err != nil {
			return err
		}
	}
	if err := o.CheckFloor(existing); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errs.Newf(errs.IO, "无法创建目录 %s：%v", "cannot create directory %s: %v", dir, err).With("dir", dir)
	}
	root, err := project.New(dir)
	if err != nil {
		return err
	}
	conflicts, err := newproject.Conflicts(root, files)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return errs.Newf(errs.Conflict, "%s 已存在：novel init 不会覆盖已有文件", "%s already exists: novel init never replaces a file", conflicts[0]).
			With("files", conflicts).With("project", root.Dir).
			Hint("在一个新目录中运行 novel init；已有项目用 novel next 继续", "run novel init in a new directory; continue an existing project with novel next")
	}
	res := result{Project: root.Dir, NextStep: "setup:world"}
	for _, d := range newproject.Folders {
		abs, err := root.Abs(d)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return errs.Newf(errs.IO, "无法创建目录 %s：%v", "cannot create directory %s: %v", d, err).With("dir", d)
		}
	}
	for _, f := range files {
		if err := root.WriteFile(f.Path, f.Data); err != nil {
			return err
		}
		res.Created = append(res.Created, f.Path)
	}
	for _, d := range newproject.Folders {
		res.Created = append(res.Created, d+"/")
	}
	ctx.Result(res, func() string {
		return "已创建小说项目 " + root.Dir + "：先填写 brief.md，下一步 " + res.NextStep
	})
	return nil
}

// Main runs novel-init.
func Main() int {
	return cli.Main("novel-init", "Create a new novel project: .checkpoint.json in QUICK_START, brief.md to fill in, settings.json, "+
		"an empty state and foreshadowing, the storyline rules, a starter AI-flavour blacklist and the project folders. "+
		"Never replaces an existing file.", &grammar{})
}
