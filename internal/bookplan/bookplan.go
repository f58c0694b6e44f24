// Package bookplan owns book-plan.json (SPEC §25): the whole-book plan
// setup:book writes — how many chapters the book has, its volumes with
// their chapter ranges, arcs, goals and ending states, the ending and the
// main characters' arcs. Volume planning reads it (the volume's position
// in the book, the range its outline must cover); the volume review may
// replace it, the old one kept under logs/book-plan/.
package bookplan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
)

// Files of the book plan, relative to the project root.
const (
	File    = "book-plan.json"
	Doc     = "book-plan.md"
	logDir  = layout.LogsDir + "/book-plan"
	Default = 200 // target chapters when neither --target-chapters nor the brief gives one
	// MaxChapters bounds target_chapters (chapter numbers are bounded
	// far higher; a plan is read whole into every volume-plan packet).
	MaxChapters = 10000
)

// Archived is where the volume review of volume v keeps the plan it
// replaces.
func Archived(v int) string { return logDir + "/book-plan-v" + layout.PadVol(v) + ".json" }

// Volume is one volume of the plan.
type Volume struct {
	Volume      int    `json:"volume"`
	Title       string `json:"title"`
	Chapters    [2]int `json:"chapters"`
	Arc         string `json:"arc"`
	Goal        string `json:"goal"`
	EndingState string `json:"ending_state"`
}

// Arc is one main character's arc over the book.
type Arc struct {
	Character string `json:"character"`
	From      string `json:"from"`
	To        string `json:"to"`
}

// Plan is book-plan.json.
type Plan struct {
	TargetChapters int      `json:"target_chapters"`
	Volumes        []Volume `json:"volumes"`
	Ending         string   `json:"ending"`
	MainArcs       []Arc    `json:"main_arcs"`
}

// raw mirrors Plan with loose types so a missing field is told apart from
// a zero one and every message names the field.
type raw struct {
	TargetChapters any              `json:"target_chapters"`
	Volumes        []map[string]any `json:"volumes"`
	Ending         any              `json:"ending"`
	MainArcs       []map[string]any `json:"main_arcs"`
}

func schemaErr(rel, field, zh, en string) *errs.Error {
	return errs.New(errs.Schema, rel+"："+zh, rel+": "+en).With("file", rel).With("field", field).
		Hint("修正 "+rel+" 后重新校验，或重新运行 setup:book（novel instructions setup:book）",
			"fix "+rel+" and validate again, or run setup:book again (novel instructions setup:book)")
}

func outlineErr(rel, field, zh, en string) *errs.Error {
	return errs.New(errs.Outline, rel+"："+zh, rel+": "+en).With("file", rel).With("field", field).
		Hint("让各卷的章节范围从第 1 章起首尾相接、覆盖到 target_chapters，卷号从 1 起逐一递增；或重新运行 setup:book",
			"make the volumes' chapter ranges run from chapter 1 to target_chapters without gaps or overlaps, volumes numbered 1, 2, …; or run setup:book again")
}

func text(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	s = strings.TrimSpace(s)
	return s, ok && s != ""
}

// Parse decodes and validates a book plan (rel names it in errors).
// names are the registered display names every main_arcs character must
// be one of (SPEC §25): volumes numbered 1…n, chapter ranges contiguous
// from 1 to target_chapters.
func Parse(data []byte, rel string, names map[string]bool) (*Plan, error) {
	var r raw
	if err := jsonio.Decode(data, rel, &r); err != nil {
		return nil, err
	}
	p := &Plan{}
	n, ok := jsonio.Int(r.TargetChapters)
	if !ok || n < 1 || n > MaxChapters {
		return nil, schemaErr(rel, "target_chapters", fmt.Sprintf("target_chapters 必须是 1..%d 的整数", MaxChapters),
			fmt.Sprintf("target_chapters must be an integer 1..%d", MaxChapters)).With("value", r.TargetChapters)
	}
	p.TargetChapters = n
	if len(r.Volumes) == 0 {
		return nil, schemaErr(rel, "volumes", "volumes 必须是非空数组", "volumes must be a non-empty array")
	}
	next := 1
	for i, m := range r.Volumes {
		at := fmt.Sprintf("volumes[%d]", i)
		if m == nil {
			return nil, schemaErr(rel, at, at+" 必须是对象", at+" must be an object")
		}
		var v Volume
		num, ok := jsonio.Int(m["volume"])
		if !ok || num != i+1 {
			return nil, outlineErr(rel, at+".volume", fmt.Sprintf("%s.volume 应为 %d（卷号从 1 起逐一递增），实际为 %v", at, i+1, m["volume"]),
				fmt.Sprintf("%s.volume should be %d (volumes are numbered 1, 2, … in order), got %v", at, i+1, m["volume"])).With("volume", i+1)
		}
		v.Volume = num
		arr, _ := m["chapters"].([]any)
		a, aok := 0, false
		b, bok := 0, false
		if len(arr) == 2 {
			a, aok = jsonio.Int(arr[0])
			b, bok = jsonio.Int(arr[1])
		}
		if !aok || !bok || a > b {
			return nil, schemaErr(rel, at+".chapters", at+".chapters 必须是 [首章, 末章]，首章不大于末章", at+".chapters must be [first, last] with first ≤ last").
				With("volume", num).With("value", m["chapters"])
		}
		switch {
		case a > next:
			return nil, outlineErr(rel, at+".chapters", fmt.Sprintf("第 %d 卷从第 %d 章开始，缺少第 %d–%d 章", num, a, next, a-1),
				fmt.Sprintf("volume %d starts at chapter %d; chapters %d–%d belong to no volume", num, a, next, a-1)).
				With("volume", num).With("missing_chapters", span(next, a-1))
		case a < next:
			return nil, outlineErr(rel, at+".chapters", fmt.Sprintf("第 %d 卷从第 %d 章开始，与前一卷重叠（应从第 %d 章开始）", num, a, next),
				fmt.Sprintf("volume %d starts at chapter %d and overlaps the volume before it (it should start at chapter %d)", num, a, next)).
				With("volume", num).With("expected_start", next)
		}
		v.Chapters = [2]int{a, b}
		next = b + 1
		for _, f := range []struct {
			key string
			dst *string
		}{{"title", &v.Title}, {"arc", &v.Arc}, {"goal", &v.Goal}, {"ending_state", &v.EndingState}} {
			s, ok := text(m, f.key)
			if !ok {
				return nil, schemaErr(rel, at+"."+f.key, at+"."+f.key+" 必须是非空字符串", at+"."+f.key+" must be a non-empty string").With("volume", num)
			}
			*f.dst = s
		}
		p.Volumes = append(p.Volumes, v)
	}
	if last := next - 1; last != p.TargetChapters {
		if last < p.TargetChapters {
			return nil, outlineErr(rel, "volumes", fmt.Sprintf("各卷只覆盖到第 %d 章，target_chapters 为 %d：第 %d–%d 章不属于任何一卷", last, p.TargetChapters, last+1, p.TargetChapters),
				fmt.Sprintf("the volumes end at chapter %d but target_chapters is %d: chapters %d–%d belong to no volume", last, p.TargetChapters, last+1, p.TargetChapters)).
				With("missing_chapters", span(last+1, p.TargetChapters)).With("target_chapters", p.TargetChapters)
		}
		return nil, outlineErr(rel, "volumes", fmt.Sprintf("各卷覆盖到第 %d 章，超出 target_chapters %d：多出第 %d–%d 章", last, p.TargetChapters, p.TargetChapters+1, last),
			fmt.Sprintf("the volumes run to chapter %d, past target_chapters %d: chapters %d–%d are extra", last, p.TargetChapters, p.TargetChapters+1, last)).
			With("extra_chapters", span(p.TargetChapters+1, last)).With("target_chapters", p.TargetChapters)
	}
	s, ok := text(map[string]any{"ending": r.Ending}, "ending")
	if !ok {
		return nil, schemaErr(rel, "ending", "ending 必须是非空字符串（全书的结局）", "ending must be a non-empty string (how the book ends)")
	}
	p.Ending = s
	if len(r.MainArcs) == 0 {
		return nil, schemaErr(rel, "main_arcs", "main_arcs 必须是非空数组（主要人物的弧线）", "main_arcs must be a non-empty array (the main characters' arcs)")
	}
	for i, m := range r.MainArcs {
		at := fmt.Sprintf("main_arcs[%d]", i)
		var a Arc
		for _, f := range []struct {
			key string
			dst *string
		}{{"character", &a.Character}, {"from", &a.From}, {"to", &a.To}} {
			s, ok := text(m, f.key)
			if !ok {
				return nil, schemaErr(rel, at+"."+f.key, at+"."+f.key+" 必须是非空字符串", at+"."+f.key+" must be a non-empty string")
			}
			*f.dst = s
		}
		if !names[a.Character] {
			return nil, schemaErr(rel, at+".character", fmt.Sprintf("%s.character “%s” 不是已登记人物的显示名（characters/active/*.json 的 display_name）", at, a.Character),
				fmt.Sprintf("%s.character %q is not the display name of a registered character (display_name in characters/active/*.json)", at, a.Character)).
				With("value", a.Character).With("registered", sortedNames(names))
		}
		p.MainArcs = append(p.MainArcs, a)
	}
	return p, nil
}

// span lists a..b, at most 50 numbers (an error names the first ones).
func span(a, b int) []int {
	out := []int{}
	for c := a; c <= b && len(out) < 50; c++ {
		out = append(out, c)
	}
	return out
}

func sortedNames(names map[string]bool) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Names is the set of registered display names (characters/active/).
func Names(root *project.Root) (map[string]bool, error) {
	chars, _, err := cast.Load(root)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, c := range chars {
		out[c.DisplayName] = true
	}
	return out, nil
}

// Read validates the book plan at rel against the registered cast.
func Read(root *project.Root, rel string) (*Plan, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	names, err := Names(root)
	if err != nil {
		return nil, err
	}
	return Parse(data, rel, names)
}

// Load reads the committed book plan; nil without error when the project
// has none (projects from before §25 keep working without one).
func Load(root *project.Root) (*Plan, error) {
	ok, err := root.Optional(File)
	if err != nil || !ok {
		return nil, err
	}
	return Read(root, File)
}

// Of is volume v's entry (false when the plan has no such volume).
func (p *Plan) Of(v int) (Volume, bool) {
	if v >= 1 && v <= len(p.Volumes) {
		return p.Volumes[v-1], true
	}
	return Volume{}, false
}

// Position is a volume's place in the book as the planner sees it
// (book_position, SPEC §25).
type Position struct {
	Volume   int    `json:"volume"`
	Of       int    `json:"of"`
	Chapters [2]int `json:"chapters"`
	Title    string `json:"title"`
	Arc      string `json:"arc"`
	Goal     string `json:"goal"`
	Ending   string `json:"ending_state"`
	// After is what comes after this volume: the next volume's title and
	// goal, or the book's ending for the last one.
	After string `json:"after"`
}

// PositionOf is volume v's book_position (false: the plan has no volume v).
func (p *Plan) PositionOf(v int) (Position, bool) {
	e, ok := p.Of(v)
	if !ok {
		return Position{}, false
	}
	pos := Position{Volume: v, Of: len(p.Volumes), Chapters: e.Chapters, Title: e.Title, Arc: e.Arc, Goal: e.Goal, Ending: e.EndingState}
	if n, ok := p.Of(v + 1); ok {
		pos.After = "第 " + strconv.Itoa(n.Volume) + " 卷《" + n.Title + "》（第 " + strconv.Itoa(n.Chapters[0]) + "–" + strconv.Itoa(n.Chapters[1]) + " 章）：" + n.Goal
	} else {
		pos.After = "全书结局：" + p.Ending
	}
	return pos, true
}

// briefTarget reads the brief's "- **目标章数**：N" line (novel init
// writes it).
var briefTarget = lazyre.New(`目标章数\**\s*[：:]\s*\**\s*(\d{1,5})`)

// Target is the book's target length for setup:book: the brief's 目标章数
// (novel init --target-chapters fills it), else Default.
func Target(root *project.Root) int {
	if root.IsFile(layout.Brief) {
		if t, err := root.ReadText(layout.Brief); err == nil {
			if m := briefTarget().FindStringSubmatch(t); m != nil {
				if n, _ := strconv.Atoi(m[1]); n >= 1 && n <= MaxChapters {
					return n
				}
			}
		}
	}
	return Default
}
