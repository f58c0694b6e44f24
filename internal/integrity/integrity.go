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
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
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
	g, _, _, err := Scan(root, last)
	return g, err
}

// Scan is Check that also returns the highest committed chapter in
// chapters/ (checkpoint.CommittedNumber) and the names there that end in
// revision.json (revision.CheckOf) from the same listing, so next's
// committed-ahead rule and revision gate do not list the folder again.
func Scan(root *project.Root, last int) (*Gap, int, []string, error) {
	// The two listings run beside the changelog scan: next has a 10 ms
	// budget on a 2,000-chapter project (SPEC §14).
	type listing struct {
		have      []bool
		highest   int
		revisions []string
		err       error
	}
	chCh, sumCh := make(chan listing, 1), make(chan listing, 1)
	go func() {
		var revs []string
		h, high, err := present(root, layout.ChaptersDir, layout.Chapter(1), func(name string) {
			if strings.HasSuffix(name, "revision.json") {
				revs = append(revs, name)
			}
		})
		chCh <- listing{h, high, revs, err}
	}()
	lines := &changelog{}
	var clErr error
	if last >= 1 {
		go func() {
			h, _, err := present(root, layout.SummariesDir, layout.Summary(1), nil)
			sumCh <- listing{have: h, err: err}
		}()
		// Foreshadow ops matter only when global.json is gone: the search
		// for them is skipped in the ordinary case.
		lines, clErr = scanChangelog(root, last, !root.Exists(layout.GlobalForeshadow))
	} else {
		sumCh <- listing{}
	}
	chs, sums := <-chCh, <-sumCh
	for _, err := range []error{chs.err, sums.err, clErr} {
		if err != nil {
			return nil, 0, nil, err
		}
	}
	if last < 1 {
		return nil, chs.highest, chs.revisions, nil
	}
	chapters, summaries := chs.have, sums.have
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
		return nil, 0, nil, err
	}
	for c := max(from, 1); from > 0 && c <= last; c++ {
		if !lines.chapters[c] {
			g.ChangelogChapters = append(g.ChangelogChapters, c)
			gap(c)
		}
	}
	if lines.foreshadow > 0 {
		g.Missing = append(g.Missing, layout.GlobalForeshadow)
		gap(lines.foreshadow)
	}
	if len(g.Missing) == 0 && len(g.ChangelogChapters) == 0 {
		return nil, chs.highest, chs.revisions, nil
	}
	return g, chs.highest, chs.revisions, nil
}

// present lists dir once (entry names and types, no stat) and marks the
// chapters whose file is there, named like example (the layout path of
// chapter 1): "chapter-", the number as layout.Pad writes it, the same
// suffix. A symlink counts as there: reading it is where a link leaving
// the project is refused. highest is the highest committed chapter by
// checkpoint.CommittedNumber (meaningful for chapters/).
func present(root *project.Root, dir, example string, each func(name string)) (have []bool, highest int, err error) {
	suffix := strings.TrimPrefix(example, dir+"/chapter-"+layout.Pad(1))
	abs, err := root.Abs(dir)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, errs.ReadFailed(dir, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, 0, errs.ReadFailed(dir, err)
	}
	for _, e := range ents {
		if each != nil {
			each(e.Name())
		}
		if n, ok := checkpoint.CommittedNumber(e); ok {
			highest = max(highest, n)
		}
		num, ok := strings.CutPrefix(e.Name(), "chapter-")
		if !ok {
			continue
		}
		if num, ok = strings.CutSuffix(num, suffix); !ok || !padded(num) {
			continue
		}
		c, _ := strconv.Atoi(num)
		if c < 1 {
			continue
		}
		for len(have) <= c {
			have = append(have, false)
		}
		have[c] = true
	}
	return have, highest, nil
}

// padded reports whether num is a chapter number as layout.Pad writes it:
// three digits, or more without a leading zero.
func padded(num string) bool {
	if len(num) < 3 || len(num) > 9 || (len(num) > 3 && num[0] == '0') {
		return false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return false
		}
	}
	return true
}

func has(s []bool, c int) bool { return c < len(s) && s[c] }

// changelog is what the scan of state/changelog.jsonl found.
type changelog struct {
	chapters   []bool // chapters 1…last with a line
	lowest     int    // the lowest chapter with a line (0: none)
	foreshadow int    // the chapter of the first line whose committed ops hold a foreshadow op (0: none)
}

// foreshadowOps find a foreshadow op, canonical or as other tools space it.
var foreshadowOps = [][]byte{[]byte(`"op":"foreshadow"`), []byte(`"op": "foreshadow"`)}

// indexForeshadow is the offset of the first foreshadow op in data, or
// len(data).
func indexForeshadow(data []byte) int {
	at := len(data)
	for _, op := range foreshadowOps {
		if i := bytes.Index(data[:at], op); i >= 0 {
			at = i
		}
	}
	return at
}

// scanChangelog reads each line's chapter (suite lines start with
// {"chapter":N, read without decoding; other tools' lines are split at
// their top level) and, when foreshadow is set, the first line whose ops
// commit a foreshadow op (found by one search of the file, not line by
// line).
func scanChangelog(root *project.Root, last int, foreshadow bool) (*changelog, error) {
	cl := &changelog{chapters: make([]bool, last+1)}
	abs, err := root.Abs(layout.Changelog)
	if err != nil {
		return nil, err
	}
	if !foreshadow {
		return cl, cl.stream(abs, last)
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return cl, nil
	}
	if err != nil {
		return nil, errs.ReadFailed(layout.Changelog, err)
	}
	fsAt := len(data)
	if foreshadow {
		fsAt = indexForeshadow(data)
	}
	for off := 0; off < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i
		}
		line := bytes.TrimSpace(data[off:end])
		lineStart := off
		off = end + 1
		c := lineChapter(line)
		if cl.foreshadow == 0 && fsAt >= lineStart && fsAt < end {
			if c >= 1 && foreshadowIn(line) {
				cl.foreshadow = c
			} else if off < len(data) {
				fsAt = off + indexForeshadow(data[off:]) // a dropped op only: look further
			}
		}
		cl.mark(c, last)
	}
	return cl, nil
}

// mark records a line of chapter c.
func (cl *changelog) mark(c, last int) {
	if c < 1 {
		return // not a commit line: rebuild --check judges the file
	}
	if c <= last {
		cl.chapters[c] = true
	}
	if cl.lowest == 0 || c < cl.lowest {
		cl.lowest = c
	}
}

// stream reads the changelog's line chapters through a 64 KiB buffer:
// next, every packet and every commit run this check, and a dense
// project's changelog is MBs (reading it whole allocated and faulted in
// the whole file on each call).
func (cl *changelog) stream(abs string, last int) error {
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errs.ReadFailed(layout.Changelog, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var long []byte // a line longer than the buffer, gathered
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
			long = long[:0]
		}
		cl.mark(lineChapter(bytes.TrimSpace(line)), last)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return errs.ReadFailed(layout.Changelog, err)
		}
	}
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
	return indexForeshadow(ops) < len(ops)
}

// from is the first chapter that must have a changelog line (0: none
// must). Lines are required from the lowest chapter the changelog holds
// (chapters before it came from another tool or an import); a project
// whose changelog is gone or empty needs them from the chapter after
// state/baseline.json's last_updated_chapter — the baseline is written by
// the suite's first commit, so without one the suite never committed (nor
// is anything due when the baseline does not say its chapter).
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
	b := -1
	jsonio.SplitObjectBytes(data, func(key []byte, val json.RawMessage) {
		if string(key) == "last_updated_chapter" {
			if n, err := strconv.Atoi(string(bytes.TrimSpace(val))); err == nil && n >= 0 {
				b = n
			}
		}
	})
	if b < 0 {
		return 0, nil // a baseline another tool's state made, without the field: unknown
	}
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
