package changelog

import (
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// Record is one changelog line as read back for a rewrite (the amend
// recomputes them).
type Record struct {
	Raw  []byte
	Line Line
	// Commit is false for a note line (the plugin's canon_upgrade), which
	// is kept as it is and never replayed.
	Commit bool
}

// Records reads the changelog and finds chapter c's commit line, in
// any of the shapes rebuild reads (SPEC §22.1): after the baseline
// (inBaseline false), or else the line of a chapter another tool
// committed whose state the baseline already holds (inBaseline true). A
// chapter without either (imported, not backfilled) cannot be amended.
func Records(root *project.Root, c int) (lines []Record, idx int, inBaseline bool, err error) {
	data, err := root.ReadIfExists(layout.Changelog)
	if err != nil {
		return nil, 0, false, err
	}
	base := BaseVersion(root)
	idx, before := -1, -1
	for _, ln := range jsonio.SplitLines(data) {
		e, err := ParseEntry(ln)
		if err != nil {
			return nil, 0, false, err
		}
		var l Line
		if err := jsonio.Decode(ln, layout.Changelog, &l); err != nil {
			return nil, 0, false, err // ParseEntry already read it
		}
		if e.Commit {
			l.StateVersion, l.BaseStateVersion = e.StateVersion, e.BaseStateVersion
			if e.Chapter == c && e.StateVersion > base && idx < 0 {
				idx = len(lines)
			}
			if e.Chapter == c && e.StateVersion <= base {
				before = len(lines)
			}
		}
		lines = append(lines, Record{Raw: ln, Line: l, Commit: e.Commit})
	}
	switch {
	case idx >= 0:
		return lines, idx, false, nil
	case before >= 0:
		return lines, before, true, nil
	}
	hz, he := "导入的章节先运行 make -f pipeline.mk backfill", "for imported chapters run make -f pipeline.mk backfill first"
	if !root.Exists(layout.ImportLog) {
		hz, he = "该章没有任何工具留下的提交记录，修订无法确定它的故事线和状态：直接编辑 summaries/ 中的摘要", "no tool left a commit line for it, so an amend cannot tell its storyline or state: edit its summary in summaries/ by hand"
	}
	return nil, 0, false, errs.Newf(errs.State, "%s 中没有第 %d 章的提交记录，不能修订", "%s has no commit line for chapter %d; it cannot be amended", layout.Changelog, c).
		With("file", layout.Changelog).With("chapter", c).WithExit(errs.ExitFailed).Hint(hz, he)
}

// MemoryBefore is the storyline memory as it was before committed
// chapter c: the history copy its commit kept (history/memory-NNN.md, NNN
// the line's previous chapter, 000 for a memory from before the suite);
// "" when the line had no memory then.
func MemoryBefore(root *project.Root, id string, c int) (string, error) {
	prev, err := LastOnStoryline(root, id, c)
	if err != nil {
		return "", err
	}
	if rel := layout.MemoryHistory(id, prev); root.IsFile(rel) {
		return rel, nil
	}
	return "", nil
}

// ChapterLine returns committed chapter c's changelog line (after the
// baseline, or the line of another tool's commit the baseline holds; nil
// when it has none: imported, not backfilled).
func ChapterLine(root *project.Root, c int) (*Line, error) {
	if !root.Exists(layout.Changelog) {
		return nil, nil
	}
	lines, idx, _, err := Records(root, c)
	if err != nil {
		if errs.Is(err, errs.State) {
			return nil, nil
		}
		return nil, err
	}
	return &lines[idx].Line, nil
}

// BaseVersion is the baseline's state_version read from its top-level
// line (0 without a baseline); lines at or below it predate the suite.
func BaseVersion(root *project.Root) int {
	v, err := stateops.FileVersion(root, layout.Baseline)
	if err != nil {
		return 0
	}
	return v
}
