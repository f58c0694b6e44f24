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
	Start       int    `type:"chapter" default:"1" help:"Number the first imported chapter N: the later part of a book, after chapter N-1 of this project (or into a new project)." placeholder:"N"`
	Prologue    string `enum:"front_matter,chapter" default:"front_matter" help:"A prologue (楔子/序章/引子) before the first chapter: front_matter (kept in logs/import.json, not a chapter) or chapter (imported as the first chapter)."`
	Unwrap      string `enum:"auto,on,off" default:"auto" help:"Re-join hard-wrapped lines into paragraphs at sentence ends (auto: when the text is hard-wrapped)."`
}

type result struct {
	Project       string                  `json:"project"`
	Source        string                  `json:"source"`
	Encoding      string                  `json:"encoding"`
	Start         int                     `json:"start"`
	Unwrap        string                  `json:"unwrap"`
	Chapters      []manuscript.LogChapter `json:"chapters"`
	Volumes       []manuscript.VolumeMark `json:"volumes"`
	FrontMatter   []manuscript.Matter     `json:"front_matter"`
	BackMatter    []manuscript.Matter     `json:"back_matter"`
	PreambleLines int                     `json:"preamble_lines"`
	TOCLines      int                     `json:"toc_lines"`
	SkippedLines  []manuscript.Skipped    `json:"skipped_lines"`
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
	if err := checkProject(root, c.Start); err != nil {
		return err
	}
	m, err := manuscript.Split(text, c.File, manuscript.Options{Start: c.Start, PrologueChapter: c.Prologue == "chapter", Unwrap: c.Unwrap})
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
	if err := checkProject(root, c.Start); err != nil {
		return err
	}
	files, err := plan(root, m)
	if err != nil {
		return err
	}
	old, err := readLog(root)
	if err != nil {
		return err
	}
	unwrap := manuscript.UnwrapOff
	if m.Unwrapped {
		unwrap = manuscript.UnwrapOn
	}
	log := manuscript.Log{SchemaVersion: 1, Source: c.File, Encoding: enc, ImportedAt: now, Start: c.Start, Unwrap: unwrap,
		Chapters: []manuscript.LogChapter{}, Volumes: orEmpty(m.Volumes), FrontMatter: orEmpty(m.FrontMatter), BackMatter: orEmpty(m.BackMatter),
		PreambleLines: m.PreambleLines, TOCLines: m.TOCLines, SkippedLines: orEmpty(m.Skipped)}
	for i, ch := range m.Chapters {
		rel := layout.Chapter(ch.Number)
		if files[i] != nil {
			if err := root.WriteFile(rel, files[i]); err != nil {
				return err
			}
		}
		log.Chapters = append(log.Chapters, manuscript.LogChapter{Chapter: ch.Number, Title: ch.Title, File: rel, Paragraphs: len(ch.Paragraphs)})
	}
	imported := log.Chapters
	log.Continue(old)
	// The log is written last: it exists only for a complete import.
	if err := root.WriteJSON(layout.ImportLog, log); err != nil {
		return err
	}
	res := result{Project: root.Dir, Source: c.File, Encoding: enc, Start: c.Start, Unwrap: unwrap, Chapters: imported,
		Volumes: log.Volumes, FrontMatter: log.FrontMatter, BackMatter: log.BackMatter,
		PreambleLines: m.PreambleLines, TOCLines: m.TOCLines, SkippedLines: log.SkippedLines, Log: layout.ImportLog,
		Warnings: warnings(m, c.File, s.Language)}
	ctx.Result(res, func() string {
		first, last := imported[0].File, imported[len(imported)-1].File
		return errs.Text(s.Language, "已导入 "+strconv.Itoa(len(imported))+" 章（"+enc+"）："+first+" … "+last,
			"imported "+strconv.Itoa(len(imported))+" chapters ("+enc+"): "+first+" … "+last)
	})
	return nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// readLog reads an earlier import's logs/import.json (nil when there is
// none), which a later part of the book continues.
func readLog(root *project.Root) (*manuscript.Log, error) {
	if !root.Exists(layout.ImportLog) {
		return nil, nil
	}
	var old manuscript.Log
	if err := root.ReadJSON(layout.ImportLog, &old); err != nil {
		return nil, err
	}
	return &old, nil
}

// warnings tell the author what was not made a chapter, and where it is.
func warnings(m *manuscript.Manuscript, file, lang string) []string {
	w := []string{}
	add := func(zh, en string) { w = append(w, errs.Text(lang, zh, en)) }
	if m.PreambleLines > 0 {
		n := strconv.Itoa(m.PreambleLines)
		add("第一个章节标题之前的 "+n+" 行文字（书名、作者的话等）没有导入，见 skipped_lines",
			n+" lines before the first heading (title, author's notes) were not imported; see skipped_lines")
	}
	if m.TOCLines > 0 {
		n := strconv.Itoa(m.TOCLines)
		add(n+" 行目录没有导入，见 skipped_lines", n+" table-of-contents lines were not imported; see skipped_lines")
	}
	for _, f := range m.FrontMatter {
		l := strconv.Itoa(f.Line)
		add(file+" 第 "+l+" 行的「"+f.Heading+"」不是章节，已作为 front_matter 记录在 "+layout.ImportLog+"；要把它导入为第一章，加 --prologue chapter 重新导入",
			file+" line "+l+" 「"+f.Heading+"」 is not a chapter; it is kept as front_matter in "+layout.ImportLog+"; to import it as the first chapter, import again with --prologue chapter")
	}
	for _, b := range m.BackMatter {
		l := strconv.Itoa(b.Line)
		add(file+" 第 "+l+" 行的「"+b.Heading+"」不是章节，已作为 back_matter 记录在 "+layout.ImportLog,
			file+" line "+l+" 「"+b.Heading+"」 is not a chapter; it is kept as back_matter in "+layout.ImportLog)
	}
	texts := 0
	for _, sk := range m.Skipped {
		if sk.Reason == manuscript.SkipVolumeText {
			texts++
		}
	}
	if texts > 0 {
		n := strconv.Itoa(texts)
		add("卷标题与该卷第一章之间的 "+n+" 行文字没有导入，见 skipped_lines", n+" lines between a volume heading and its first chapter were not imported; see skipped_lines")
	}
	if m.Unwrapped {
		add("稿件是硬换行的文本：各行已在句末重新合并为段落（--unwrap off 保留每行一段）",
			"the manuscript is hard-wrapped: its lines were re-joined into paragraphs at sentence ends (--unwrap off keeps one paragraph per line)")
	}
	if m.NoPrologue {
		add("第一章之前没有楔子、序章或引子，--prologue chapter 没有作用", "there is no prologue (楔子/序章/引子) before the first chapter; --prologue chapter changed nothing")
	}
	return w
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

// checkProject allows an import only into a QUICK_START project with no
// chapter in progress (SPEC §23); imported chapters are then backfilled in
// order. A later part of the book (start > 1) must follow the project's
// last chapter, start-1, or go into a project without chapters.
func checkProject(root *project.Root, start int) error {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	if start == 1 && cp.LastCompleted > 0 || cp.Inflight != 0 {
		return errs.Newf(errs.State, "项目已有第 %d 章之前的提交或正在写的章节，只能导入到新项目", "the project already has committed chapters (last %d) or a chapter in progress; import only into a new project", cp.LastCompleted).
			WithExit(1).With("last_completed_chapter", cp.LastCompleted).
			Hint("在一个新目录中运行 novel init 后再导入；书的后半部分用 --start "+strconv.Itoa(cp.LastCompleted+1)+" 接着导入",
				"run novel init in a new directory and import there; import the later part of a book with --start "+strconv.Itoa(cp.LastCompleted+1))
	}
	if cp.State != checkpoint.QuickStart {
		return errs.Newf(errs.State, "项目已进入 %s，只能导入到新项目或 QUICK_START 的项目", "the project is in %s; import only into a new or QUICK_START project", cp.State).
			WithExit(1).With("orchestrator_state", cp.State).
			Hint("在一个新目录中运行 novel init 后再导入", "run novel init in a new directory and import there")
	}
	if start == 1 {
		return nil
	}
	prev := layout.Chapter(start - 1)
	if cp.LastCompleted != 0 && cp.LastCompleted != start-1 || root.Exists(layout.Chapter(1)) && !root.Exists(prev) {
		_, high, err := checkpoint.CommittedChapters(root)
		if err != nil {
			return err
		}
		if cp.LastCompleted > high {
			high = cp.LastCompleted
		}
		return errs.Newf(errs.State, "--start %d 须接在第 %d 章之后，但项目的最后一章是第 %d 章", "--start %d must follow chapter %d, but the project's last chapter is %d", start, start-1, high).
			WithExit(1).With("file", prev).With("last_chapter", high).
			Hint("用 --start "+strconv.Itoa(high+1)+" 接着导入，或导入到一个新项目", "import with --start "+strconv.Itoa(high+1)+", or into a new project")
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
		"chapter headings (第N章/回/节 标题 with Arabic, full-width or Chinese numerals, 【第N章】, Chapter N) into chapters/chapter-NNN.md, "+
		"record volume headings (第N卷), prologue and extras (楔子/序章/引子, 番外/后记) and every line not imported in logs/import.json. "+
		"Existing chapter files are never replaced.", &grammar{})
}
