// Package integrity is the cheap check that a project's committed
// chapters are all still there (SPEC §22.1): chapters 1…last_completed
// each have their chapter file, summary and changelog line, and
// foreshadowing/global.json exists once a foreshadow op was committed.
// next, every packet and every commit refuse a gap with E_INTEGRITY;
// status reports it. It lists two directories and scans the changelog's
// lines for their chapter numbers; it decodes neither the state nor the
// ops.
package integrity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Gap is what Check found missing.
type Gap struct {
	// Missing are the missing committed files, chapter by chapter (chapter
	// file, then summary), then foreshadowing/global.json.
	Missing []string
	// ChangelogChapters are the chapters without a changelog line.
	ChangelogChapters []int
	// First is the lowest chapter a gap concerns: rolling back to it
	// removes every damaged chapter.
	First int
	// Last is last_completed_chapter.
	Last int
}

// Require is Check as an error: nil when nothing is missing, else
// E_INTEGRITY naming the missing files and the way back.
func Require(root *project.Root, last int) error {
	g, err := Check(root, last)
	if err != nil || g == nil {
		return err
	}
	return g.Err()
}

// Check looks for the committed files of chapters 1…last. A nil Gap means
// nothing is missing.
func Check(root *project.Root, last int) (*Gap, error) {
	if last < 1 {
		return nil, nil
	}
	chapters, err := present(root, layout.ChaptersDir, layout.Chapter)
	if err != nil {
		return nil, err
	}
	summaries, err := present(root, layout.SummariesDir, layout.Summary)
	if err != nil {
		return nil, err
	}
	lines, err := scanChangelog(root, last)
	if err != nil {
		return nil, err
	}
	g := &Gap{Last: last}
	gap := func(c int) {
		if g.First == 0 || c < g.First {
			g.First = c
		}
	}
	for c := 1; c <= last; c++ {
		if !has(chapters, c) {
			g.Missing = append(g.Missing, layout.Chapter(c))
			gap(c)
		}
		if !has(summaries, c) {
			g.Missing = append(g.Missing, layout.Summary(c))
			gap(c)
		}
	}
	from, err := lines.from(root)
	if err != nil {
		return nil, err
	}
	for c := max(from, 1); from > 0 && c <= last; c++ {
		if !lines.chapters[c] {
			g.ChangelogChapters = append(g.ChangelogChapters, c)
			gap(c)
		}
	}
	if lines.foreshadow > 0 {
		if !root.Exists(layout.GlobalForeshadow) {
			g.Missing = append(g.Missing, layout.GlobalForeshadow)
			gap(lines.foreshadow)
		}
	}
	if len(g.Missing) == 0 && len(g.ChangelogChapters) == 0 {
		return nil, nil
	}
	return g, nil
}

// present lists dir once and marks the chapters whose file (named by
// name, the canonical layout path) is there. A symlink counts as there:
// reading it is where a link leaving the project is refused.
func present(root *project.Root, dir string, name func(int) string) ([]bool, error) {
	abs, err := root.Abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.ReadFailed(dir, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, errs.ReadFailed(dir, err)
	}
	var out []bool
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		num, ok := strings.CutPrefix(e.Name(), "chapter-")
		if !ok {
			continue
		}
		end := strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' })
		if end <= 0 || end > 9 {
			continue
		}
		c, _ := strconv.Atoi(num[:end])
		if c < 1 || dir+"/"+e.Name() != name(c) {
			continue
		}
		for len(out) <= c {
			out = append(out, false)
		}
		out[c] = true
	}
	return out, nil
}

func has(s []bool, c int) bool { return c < len(s) && s[c] }

// changelog is what the scan of state/changelog.jsonl found.
type changelog struct {
	exists     bool
	chapters   []bool // chapters 1…last with a line
	lowest     int    // the lowest chapter with a line (0: none)
	foreshadow int    // the first chapter whose committed ops hold a foreshadow op (0: none)
}

// foreshadowOps find a foreshadow op in a line's ops, canonical or as
// other tools space it.
var foreshadowOps = [][]byte{[]byte(`"op":"foreshadow"`), []byte(`"op": "foreshadow"`)}

// scanChangelog reads each line's chapter (suite lines start with
// {"chapter":N, read without decoding; other tools' lines are split at
// their top level) and, until one is found, whether its ops commit a
// foreshadow op.
func scanChangelog(root *project.Root, last int) (*changelog, error) {
	cl := &changelog{chapters: make([]bool, last+1)}
	abs, err := root.Abs(layout.Changelog)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return cl, nil
	}
	if err != nil {
		return nil, errs.ReadFailed(layout.Changelog, err)
	}
	defer f.Close()
	cl.exists = true
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		c := lineChapter(line)
		if c < 1 {
			continue // not a commit line: rebuild --check judges the file
		}
		if c <= last {
			cl.chapters[c] = true
		}
		if cl.lowest == 0 || c < cl.lowest {
			cl.lowest = c
		}
		if (cl.foreshadow == 0 || c < cl.foreshadow) && bytes.Contains(line, []byte(`"foreshadow"`)) && foreshadowIn(line) {
			cl.foreshadow = c
		}
	}
	if err := sc.Err(); err != nil {
		return nil, errs.ReadFailed(layout.Changelog, err)
	}
	return cl, nil
}

const suitePrefix = `{"chapter":`

func lineChapter(line []byte) int {
	if rest, ok := bytes.CutPrefix(line, []byte(suitePrefix)); ok {
		end := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if end > 0 && end <= 9 {
			c, _ := strconv.Atoi(string(rest[:end]))
			return c
		}
	}
	c := 0
	jsonio.SplitObjectBytes(line, func(key []byte, val json.RawMessage) {
		if string(key) == "chapter" {
			var n json.Number
			if json.Unmarshal(val, &n) == nil {
				if v, err := n.Int64(); err == nil && v > 0 && v < 1e9 {
					c = int(v)
				}
			}
		}
	})
	return c
}

// foreshadowIn reports whether a line's committed ops (not its dropped
// ones) hold a foreshadow op.
func foreshadowIn(line []byte) bool {
	var ops json.RawMessage
	jsonio.SplitObjectBytes(line, func(key []byte, val json.RawMessage) {
		if string(key) == "ops" {
			ops = val
		}
	})
	for _, op := range foreshadowOps {
		if bytes.Contains(ops, op) {
			return true
		}
	}
	return false
}

// from is the first chapter that must have a changelog line (0: none
// must). Lines are required from the lowest chapter the changelog holds
// (chapters before it came from another tool or an import); a project
// whose changelog is gone or empty needs them from the chapter after
// state/baseline.json's last_updated_chapter — the baseline is written by
// the suite's first commit, so without one the suite never committed.
func (cl *changelog) from(root *project.Root) (int, error) {
	if cl.lowest > 0 {
		return cl.lowest, nil
	}
	abs, err := root.Abs(layout.Baseline)
	if err != nil {
		return 0, err
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, errs.ReadFailed(layout.Baseline, err)
	}
	b := 0
	jsonio.SplitObjectBytes(data, func(key []byte, val json.RawMessage) {
		if string(key) == "last_updated_chapter" {
			b, _ = strconv.Atoi(string(bytes.TrimSpace(val)))
		}
	})
	return b + 1, nil
}

// Err is the gap as E_INTEGRITY: the missing files (the first few in the
// message, all in details) and the way back.
func (g *Gap) Err() *errs.Error {
	var zh, en []string
	for _, f := range g.Missing {
		zh, en = append(zh, f), append(en, f)
	}
	for _, c := range g.ChangelogChapters {
		zh = append(zh, layout.Changelog+" 中第 "+strconv.Itoa(c)+" 章的提交行")
		en = append(en, "the chapter "+strconv.Itoa(c)+" line of "+layout.Changelog)
	}
	const shown = 5
	list := func(items []string, sep, more string) string {
		if len(items) <= shown {
			return strings.Join(items, sep)
		}
		return strings.Join(items[:shown], sep) + more
	}
	n := strconv.Itoa(len(zh))
	first := strconv.Itoa(g.First)
	e := errs.New(errs.Integrity,
		"项目已提交的内容缺失（已完成 "+strconv.Itoa(g.Last)+" 章）："+list(zh, "、", " 等 "+n+" 项"),
		"committed files of the project are missing ("+strconv.Itoa(g.Last)+" chapters done): "+list(en, ", ", " and more ("+n+" in all)")).
		With("missing", nonNil(g.Missing)).With("changelog_missing_chapters", nonNilInts(g.ChangelogChapters)).
		With("first_chapter", g.First).With("last_completed_chapter", g.Last).
		Hint("从备份恢复这些文件后重试；或运行 novel-commit rollback --to "+first+" 撤销第 "+first+" 章及之后的章节，再重新写",
			"restore these files from a backup and retry, or run novel-commit rollback --to "+first+" to undo chapter "+first+" and later and write them again")
	if len(g.Missing) > 0 {
		e.With("file", g.Missing[0])
	} else {
		e.With("file", layout.Changelog)
	}
	return e
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
