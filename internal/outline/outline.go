// Package outline reads a volume outline (volumes/vol-VV/outline.md): the
// one chapter-heading recogniser, chapter blocks, key lines, transition
// hints and the volume range (SPEC §5). Every tool that needs a chapter's
// outline goes through this package so they all agree on what a heading is.
package outline

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
)

// requiredKeys are the key lines every chapter block should carry, in
// the order missing ones are reported.
var requiredKeys = []string{"Storyline", "POV", "Location", "Conflict", "Arc", "Foreshadowing", "StateChanges", "TransitionHint"}

// isSpace is the "spaces" of the heading grammar: space, tab, U+3000.
func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\u3000' }

func skipSpaces(s string) string {
	return strings.TrimLeftFunc(s, isSpace)
}

// ParseHeading recognises a chapter heading: "###" + spaces + "第" +
// spaces + number + spaces + "章", then end of line, a ":"/"：" and a
// title, or whitespace and a title. It is the single recogniser used for
// blocks and for the volume range.
func ParseHeading(line string) (chapter int, title string, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	rest, found := strings.CutPrefix(line, "###")
	if !found {
		return 0, "", false
	}
	return parseChapterTitle(rest)
}

// parseChapterTitle is the heading grammar after the '#' marks:
// spaces + "第" + spaces + number + spaces + "章" + (end | ":"/"：" title |
// whitespace title).
func parseChapterTitle(rest string) (chapter int, title string, ok bool) {
	rest, found := strings.CutPrefix(skipSpaces(rest), "第")
	if !found {
		return 0, "", false
	}
	rest = skipSpaces(rest)
	end := strings.IndexFunc(rest, func(r rune) bool { return isSpace(r) || r == '章' })
	if end <= 0 {
		return 0, "", false
	}
	n, numOK := ParseNumber(rest[:end])
	if !numOK {
		return 0, "", false
	}
	rest, found = strings.CutPrefix(skipSpaces(rest[end:]), "章")
	if !found {
		return 0, "", false
	}
	switch r, size := utf8.DecodeRuneInString(rest); {
	case rest == "":
	case r == ':' || r == '：':
		rest = rest[size:]
	case unicode.IsSpace(r) || r == '\u3000':
	default:
		return 0, "", false // 第12章节, 第12章x
	}
	return n, strings.TrimFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '\u3000' }), true
}

// isBoundary reports a line that ends a block: a chapter heading or any
// ATX heading of level 1–3 (level 4 and deeper stay inside the block).
func isBoundary(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 3 {
		return false
	}
	rest := line[n:]
	if rest == "" || rest == "\r" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if isSpace(r) {
		return true
	}
	_, _, ok := ParseHeading(line)
	return ok
}

type heading struct {
	chapter int
	title   string
	line    int // 0-based index into lines
}

// Outline is one parsed volume outline.
type Outline struct {
	Volume   int
	File     string // project-relative path (or the --file argument)
	Chapters []int  // chapter numbers in file order

	lines    []string
	headings []heading
	bounds   []int // 0-based line indexes of every block boundary, ascending
	// cp, when known, makes hints name what works in the project's state.
	cp *checkpoint.Checkpoint
}

// Parse scans an outline once. data must be UTF-8 (a BOM is ignored);
// rel names the file in errors.
func Parse(data []byte, rel string, volume int) (*Outline, error) {
	data = jsonio.StripBOM(data)
	if !utf8.Valid(data) {
		line, col := jsonio.LineCol(data, jsonio.FirstInvalidUTF8(data))
		return nil, errs.Newf(errs.Outline, "大纲 %s 不是有效的 UTF-8（第 %d 行第 %d 列）", "outline %s is not valid UTF-8 (line %d, column %d)", rel, line, col).
			With("file", rel).With("line", line).With("column", col).
			Hint("以 UTF-8 编码重新保存该大纲", "save the outline as UTF-8")
	}
	o := &Outline{Volume: volume, File: rel, Chapters: []int{}}
	text := string(data)
	o.lines = strings.Split(text, "\n")
	for i, l := range o.lines {
		if l == "" || (l[0] != '#') {
			continue
		}
		if c, title, ok := ParseHeading(l); ok {
			o.headings = append(o.headings, heading{chapter: c, title: title, line: i})
			o.Chapters = append(o.Chapters, c)
			o.bounds = append(o.bounds, i)
			continue
		}
		if isBoundary(l) {
			o.bounds = append(o.bounds, i)
		}
	}
	return o, nil
}

// Load reads volumes/vol-VV/outline.md. A missing outline is
// E_MISSING_FILE with a hint to plan the volume.
func Load(root *project.Root, volume int) (*Outline, error) {
	return LoadFor(root, volume, nil)
}

// LoadFor is Load for a project whose checkpoint is known: the hints of a
// missing outline or chapter block then name the command (or edit) that
// works in its orchestrator state rather than volume planning, which only
// VOL_PLANNING and QUICK_START allow.
func LoadFor(root *project.Root, volume int, cp *checkpoint.Checkpoint) (*Outline, error) {
	rel := layout.Outline(volume)
	data, err := root.ReadFile(rel)
	if err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.MissingFile {
			e.Zh = "缺少第 " + strconv.Itoa(volume) + " 卷大纲 " + rel
			e.En = "missing the outline of volume " + strconv.Itoa(volume) + ": " + rel
			zh, en := missingHint(rel, volume, cp)
			e.Hint(zh, en).With("volume", volume)
		}
		return nil, err
	}
	o, err := Parse(data, rel, volume)
	if o != nil {
		o.cp = cp
	}
	return o, err
}

func planCmd(volume int) string {
	return "novel instructions volume:" + layout.PadVol(volume) + ":plan"
}

// missingHint says how to get a missing volume outline back.
func missingHint(rel string, volume int, cp *checkpoint.Checkpoint) (zh, en string) {
	if zh, en, ok := stateHint(cp); ok {
		return zh, en
	}
	if cp != nil && volume <= cp.CurrentVolume {
		// The volume's plan was committed (that is how the project got
		// to WRITING): only the file itself is gone.
		return "第 " + strconv.Itoa(volume) + " 卷的规划已提交，大纲却不在了：从备份或版本库恢复 " + rel,
			"volume " + strconv.Itoa(volume) + "'s plan was committed but its outline is gone: restore " + rel + " from a backup or version control"
	}
	if volume < 1 {
		volume = 1
	}
	return "先完成卷规划：" + planCmd(volume), "plan the volume first: " + planCmd(volume)
}

// stateHint is the way on for the states that do not write chapters:
// a finished volume (VOL_REVIEW) moves to the next one, a volume being
// planned (VOL_PLANNING, QUICK_START) is planned. ok is false otherwise.
func stateHint(cp *checkpoint.Checkpoint) (zh, en string, ok bool) {
	if cp == nil {
		return "", "", false
	}
	v := cp.CurrentVolume
	switch cp.State {
	case checkpoint.VolReview:
		next := strconv.Itoa(v + 1)
		return "第 " + strconv.Itoa(v) + " 卷已写完：先做卷末回顾（make -f pipeline.mk review，或 novel instructions volume:" + layout.PadVol(v) + ":review 后 novel-commit volume-review），再用 " + planCmd(v+1) + " 规划第 " + next + " 卷",
			"volume " + strconv.Itoa(v) + " is finished: review it first (make -f pipeline.mk review, or novel instructions volume:" + layout.PadVol(v) + ":review then novel-commit volume-review), then plan volume " + next + " with " + planCmd(v+1), true
	case checkpoint.VolPlanning, checkpoint.QuickStart:
		if v < 1 {
			v = 1
		}
		return "先完成第 " + strconv.Itoa(v) + " 卷的规划：" + planCmd(v), "plan volume " + strconv.Itoa(v) + " first: " + planCmd(v), true
	}
	return "", "", false
}

// Range is the volume range: the smallest and largest chapter headed in
// the outline. ok is false when it heads no chapter at all.
func (o *Outline) Range() (start, end int, ok bool) {
	if len(o.Chapters) == 0 {
		return 0, 0, false
	}
	start, end = o.Chapters[0], o.Chapters[0]
	for _, c := range o.Chapters[1:] {
		start, end = min(start, c), max(end, c)
	}
	return start, end, true
}

// Has reports whether the outline heads chapter c.
func (o *Outline) Has(c int) bool {
	for _, h := range o.headings {
		if h.chapter == c {
			return true
		}
	}
	return false
}

// TransitionHint is a parsed TransitionHint key (null when absent/无).
type TransitionHint struct {
	Text          string `json:"text"`
	NextStoryline string `json:"next_storyline,omitempty"`
}

// Block is one chapter's outline block.
type Block struct {
	Chapter        int
	Title          string
	Text           string // heading line through the line before the next boundary, trimmed
	Keys           map[string]string
	StorylineID    string
	TransitionHint *TransitionHint
	MissingKeys    []string
	Line           int // 1-based line of the heading
}

// Block extracts chapter c's block and validates its key lines: not found
// or headed twice → E_OUTLINE; a missing/empty Storyline or a repeated key
// → E_OUTLINE; a Storyline or next_storyline that is not a slug → E_SCHEMA.
func (o *Outline) Block(c int) (*Block, error) {
	var hs []heading
	for _, h := range o.headings {
		if h.chapter == c {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return nil, o.notFound(c)
	}
	if len(hs) > 1 {
		lines := make([]int, len(hs))
		for i, h := range hs {
			lines[i] = h.line + 1
		}
		return nil, errs.Newf(errs.Outline, "大纲 %s 中第 %d 章出现了 %d 次（第 %s 行）", "outline %s heads chapter %d %d times (lines %s)",
			o.File, c, len(hs), joinInts(lines)).
			With("file", o.File).With("chapter", c).With("lines", lines).
			Hint("删除重复的章节标题，每章只保留一个区块", "remove the duplicate heading so each chapter has one block")
	}
	h := hs[0]
	end := len(o.lines)
	for _, b := range o.bounds {
		if b > h.line {
			end = b
			break
		}
	}
	body := o.lines[h.line:end]
	blk := &Block{Chapter: c, Title: h.title, Line: h.line + 1, Keys: map[string]string{}, MissingKeys: []string{}}
	var sb strings.Builder
	for i, l := range body {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(strings.TrimRight(l, "\r"))
	}
	blk.Text = strings.TrimSpace(sb.String())
	keyLine := map[string]int{}
	for i, l := range body[1:] {
		k, v, ok := parseKeyLine(l)
		if !ok {
			continue
		}
		ln := h.line + 2 + i
		if first, dup := keyLine[k]; dup {
			return nil, errs.Newf(errs.Outline, "大纲 %s 第 %d 章的 %s 字段重复（第 %d 行和第 %d 行）", "outline %s chapter %d: key %s is repeated (lines %d and %d)",
				o.File, c, k, first, ln).
				With("file", o.File).With("chapter", c).With("key", k).With("lines", []int{first, ln}).
				Hint("每个字段只写一行，删除多余的一行", "keep one line per key and delete the other")
		}
		keyLine[k] = ln
		blk.Keys[k] = v
	}
	sl, has := blk.Keys["Storyline"]
	if !has || sl == "" {
		return nil, errs.Newf(errs.Outline, "大纲 %s 第 %d 章缺少 Storyline 字段", "outline %s chapter %d has no Storyline",
			o.File, c).With("file", o.File).With("chapter", c).With("line", blk.Line).
			Hint("在该章区块中加入一行 `- **Storyline**: main-arc`", "add a line `- **Storyline**: main-arc` to the chapter's block")
	}
	if !project.IsSlug(sl) {
		return nil, slugErr(o.File, c, "Storyline", sl)
	}
	blk.StorylineID = sl
	for _, k := range requiredKeys {
		if _, ok := blk.Keys[k]; !ok {
			blk.MissingKeys = append(blk.MissingKeys, k)
		}
	}
	if v, ok := blk.Keys["TransitionHint"]; ok {
		th := parseTransitionHint(v)
		if th != nil && th.NextStoryline != "" && !project.IsSlug(th.NextStoryline) {
			return nil, slugErr(o.File, c, "TransitionHint next_storyline", th.NextStoryline)
		}
		blk.TransitionHint = th
	}
	return blk, nil
}

func slugErr(file string, c int, field, v string) error {
	return errs.Newf(errs.Schema, "大纲 %s 第 %d 章的 %s %q 不是合法的故事线 id（小写字母、数字和连字符）",
		"outline %s chapter %d: %s %q is not a storyline id (lowercase letters, digits, hyphens)",
		file, c, field, v).
		With("file", file).With("chapter", c).With("field", field).With("value", v).
		Hint("改为形如 main-arc 的 slug", "use a slug such as main-arc")
}

func (o *Outline) notFound(c int) error {
	chapters := o.Chapters
	if chapters == nil {
		chapters = []int{}
	}
	return errs.Newf(errs.Outline, "大纲 %s 中找不到第 %d 章的区块，期望格式：### 第 %d 章: 章名", "outline %s has no block for chapter %d; expected a heading like ### 第 %d 章: 章名",
		o.File, c, c).
		With("file", o.File).With("chapter", c).With("chapters", chapters).
		Hint(o.blockHint(c))
}

// blockHint says how to get chapter c's block: in a project that writes
// chapters (or with no project known) the block is added to the file
// itself; a finished or unplanned volume routes as stateHint says.
func (o *Outline) blockHint(c int) (zh, en string) {
	last := 0
	for _, n := range o.Chapters {
		last = max(last, n)
	}
	if o.cp != nil && (o.cp.State != checkpoint.VolReview || c > last) {
		if zh, en, ok := stateHint(o.cp); ok {
			return zh, en
		}
	}
	n := strconv.Itoa(c)
	return "在 " + o.File + " 中补写第 " + n + " 章的区块（### 第 " + n + " 章: 章名，及 - **Storyline**: … 等字段）",
		"add chapter " + n + "'s block to " + o.File + " (### 第 " + n + " 章: title, with - **Storyline**: … and the other keys)"
}

// keyRE matches `- **Key**: value`; the colon may also sit inside the bold
// (`- **Key：** value`), a common Markdown habit.
var keyRE = lazyre.New(`^[-*][ \t]+\*\*([\p{L}\p{N}_]+)(?:\*\*[ \t]*[:：]|[ \t]*[:：]\*\*)(.*)$`)

func parseKeyLine(line string) (key, value string, ok bool) {
	line = strings.TrimRight(line, "\r")
	if len(line) < 5 || (line[0] != '-' && line[0] != '*') {
		return "", "", false
	}
	m := keyRE().FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimFunc(m[2], func(r rune) bool { return unicode.IsSpace(r) || r == '\u3000' }), true
}

var nextRE = lazyre.New(`(?i)next_storyline[ \t\x{3000}]*[=:：][ \t\x{3000}]*([^\s,，;；。、)）]+)`)

// parseTransitionHint reads a TransitionHint value: nil for 无/none/null/
// "-"/empty, else the text plus next_storyline taken from a JSON object
// inside the value or from `next_storyline=x` / `: x` / `：x`.
func parseTransitionHint(v string) *TransitionHint {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "无", "無", "none", "null", "-", "—", "n/a":
		return nil
	}
	th := &TransitionHint{Text: v}
	if i, j := strings.IndexByte(v, '{'), strings.LastIndexByte(v, '}'); i >= 0 && j > i {
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader([]byte(v[i : j+1])))
		if dec.Decode(&obj) == nil {
			var s string
			if raw, ok := obj["next_storyline"]; ok && json.Unmarshal(raw, &s) == nil {
				th.NextStoryline = strings.TrimSpace(s)
				return th
			}
		}
	}
	if m := nextRE().FindStringSubmatch(v); m != nil {
		th.NextStoryline = strings.Trim(m[1], `"'`)
	}
	return th
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// Window is the outline cut to what a chapter's packet needs (SPEC §19):
// the volume header (everything before the first chapter heading) and the
// blocks of chapters from..to in file order, each block up to the next
// boundary.
func (o *Outline) Window(from, to int) string {
	var parts []string
	first := len(o.lines)
	if len(o.headings) > 0 {
		first = o.headings[0].line
	}
	if h := strings.TrimSpace(strings.Join(o.lines[:first], "\n")); h != "" {
		parts = append(parts, h)
	}
	parts = append(parts, o.blocks(from, to)...)
	return strings.Join(parts, "\n\n") + "\n"
}

// Blocks is the blocks of chapters from..to in file order without the
// volume header ("" when the range holds none): what the judge checks a
// chapter against for premature reveals (SPEC §24).
func (o *Outline) Blocks(from, to int) string {
	parts := o.blocks(from, to)
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func (o *Outline) blocks(from, to int) []string {
	var parts []string
	for _, h := range o.headings {
		if h.chapter < from || h.chapter > to {
			continue
		}
		end := len(o.lines)
		if i := sort.SearchInts(o.bounds, h.line+1); i < len(o.bounds) {
			end = o.bounds[i]
		}
		parts = append(parts, strings.TrimSpace(strings.Join(o.lines[h.line:end], "\n")))
	}
	return parts
}
