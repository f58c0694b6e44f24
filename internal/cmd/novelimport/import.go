// Package novelimport is the command surface of novel-import (SPEC §23):
// an existing manuscript split into the project's chapter files.
package novelimport

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/manuscript"
	"github.com/novelsuite/novel/internal/project"
)

// maxManuscript bounds the file read (a 3-million-character novel in
// GB18030 is ~6 MiB).
const maxManuscript = 64 << 20

type grammar struct {
	cli.Globals `embed:""`
	File        string `arg:"" help:"The manuscript: UTF-8, UTF-8 with BOM, or GB18030/GBK text (relative to the working directory)." placeholder:"FILE"`
}

type result struct {
	Project       string                  `json:"project"`
	Source        string                  `json:"source"`
	Encoding      string                  `json:"encoding"`
	Chapters      []manuscript.LogChapter `json:"chapters"`
	PreambleLines int                     `json:"preamble_lines"`
	TOCLines      int                     `json:"toc_lines"`
	Log           string                  `json:"log"`
	Warnings      []string                `json:"warnings"`
}

func (c *grammar) Run(ctx *cli.Context) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	data, err := readManuscript(ctx.Cwd, c.File)
	if err != nil {
		return err
	}
	text, enc, err := manuscript.Decode(data, c.File)
	if err != nil {
		return err
	}
	if err := checkProject(root); err != nil {
		return err
	}
	m, err := manuscript.Split(text, c.File, 1)
	if err != nil {
		return err
	}
	// Refuse before taking the lock, so a conflict never waits on it.
	if _, err := plan(root, m); err != nil {
		return err
	}
	release, err := lock.Guard(root, ctx.Getenv, 0, s.LockStaleMinutes)
	if err != nil {
		return err
	}
	defer release()
	// Re-check under the lock: another writer may have started meanwhile.
	if err := checkProject(root); err != nil {
		return err
	}
	files, err := plan(root, m)
	if err != nil {
		return err
	}
	log := manuscript.Log{SchemaVersion: 1, Source: c.File, Encoding: enc, ImportedAt: now,
		PreambleLines: m.PreambleLines, TOCLines: m.TOCLines}
	for i, ch := range m.Chapters {
		rel := layout.Chapter(ch.Number)
		if files[i] != nil {
			if err := root.WriteFile(rel, files[i]); err != nil {
				return err
			}
		}
		log.Chapters = append(log.Chapters, manuscript.LogChapter{Chapter: ch.Number, Title: ch.Title, File: rel, Paragraphs: len(ch.Paragraphs)})
	}
	// The log is written last: it exists only for a complete import.
	if err := root.WriteJSON(layout.ImportLog, log); err != nil {
		return err
	}
	res := result{Project: root.Dir, Source: c.File, Encoding: enc, Chapters: log.Chapters,
		PreambleLines: m.PreambleLines, TOCLines: m.TOCLines, Log: layout.ImportLog, Warnings: []string{}}
	if m.PreambleLines > 0 {
		res.Warnings = append(res.Warnings, "第一个章节标题之前的 "+strconv.Itoa(m.PreambleLines)+" 行文字（书名、作者的话等）没有导入")
	}
	ctx.Result(res, func() string {
		return "已导入 " + strconv.Itoa(len(log.Chapters)) + " 章（" + enc + "）：" + log.Chapters[0].File + " … " + log.Chapters[len(log.Chapters)-1].File
	})
	return nil
}

func readManuscript(cwd, file string) ([]byte, error) {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	st, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return nil, errs.Newf(errs.MissingFile, "找不到稿件 %s", "manuscript %s not found", file).With("file", file)
	case err != nil:
		return nil, errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", file, err).With("file", file)
	case st.IsDir():
		return nil, errs.Newf(errs.Usage, "%s 是目录，不是稿件文件", "%s is a directory, not a manuscript file", file).With("file", file)
	case st.Size() > maxManuscript:
		return nil, errs.Newf(errs.IO, "%s 超过 64 MiB", "%s is larger than 64 MiB", file).With("file", file)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", file, err).With("file", file)
	}
	return data, nil
}

// checkProject allows an import only into a project with no chapter
// written or in progress: imported chapters are then backfilled in order.
func checkProject(root *project.Root) error {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	if cp.LastCompleted > 0 || cp.Inflight != 0 {
		return errs.Newf(errs.State, "项目已有第 %d 章之前的提交或正在写的章节，只能导入到新项目", "the project already has committed chapters (last %d) or a chapter in progress; import only into a new project", cp.LastCompleted).
			WithExit(1).With("last_completed_chapter", cp.LastCompleted).
			Hint("在一个新目录中运行 novel init 后再导入", "run novel init in a new directory and import there")
	}
	return nil
}

// plan returns each chapter's bytes, nil where the file already holds
// exactly them (a resumed import); a different existing file is
// E_CONFLICT — nothing the author wrote is ever replaced.
func plan(root *project.Root, m *manuscript.Manuscript) ([][]byte, error) {
	files := make([][]byte, len(m.Chapters))
	for i, ch := range m.Chapters {
		rel := layout.Chapter(ch.Number)
		want := ch.Markdown()
		if !root.Exists(rel) {
			files[i] = want
			continue
		}
		have, err := root.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(have, want) {
			return nil, errs.Newf(errs.Conflict, "%s 已存在且内容不同，导入不会覆盖它", "%s already exists with different content; import never replaces it", rel).
				With("file", rel).Hint("把已有的章节文件移走，或导入到一个新项目", "move the existing chapter files aside, or import into a new project")
		}
	}
	return files, nil
}

// Main runs novel-import.
func Main() int {
	return cli.Main("novel-import", "Import an existing manuscript into a new project: detect UTF-8 or GB18030/GBK, split it at "+
		"chapter headings (第N章 标题, Chinese numerals too) into chapters/chapter-NNN.md, record logs/import.json. "+
		"Existing chapter files are never replaced.", &grammar{})
}
