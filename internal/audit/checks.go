package audit

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// actVerbs follow a name (within two characters) when its owner acts or
// speaks: "周伯说", "周伯缓缓抬头".
var actVerbs = []string{"说", "道", "问", "答", "喊", "叫", "笑", "哭", "叹", "走", "跑", "站", "坐", "抬", "伸", "点头", "摇头",
	"转身", "回头", "看", "望", "盯", "握", "拔", "推", "拉", "冲", "开口", "皱眉", "拍"}

// memoryMarks make a sentence about the dead, not by them: memories,
// dreams, graves, the death itself.
var memoryMarks = []string{"想起", "记得", "回忆", "忆起", "梦", "遗", "尸", "坟", "墓", "灵位", "牌位", "生前", "当年", "那年",
	"曾经", "如果", "倘若", "要是", "死", "亡"}

// useVerbs show an item being used or handled.
var useVerbs = []string{"拿", "握", "用", "举", "挥", "戴", "掏出", "取出", "攥", "捏", "佩", "摩挲", "揣", "递", "抛", "亮出"}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// acts reports whether name, somewhere in s, is followed within two
// characters by an action or speech verb.
func acts(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		after := []rune(s[i+j+len(name):])
		after = after[:min(len(after), 4)]
		for k, r := range after {
			if unicode.IsPunct(r) {
				after = after[:k] // "陆照看着周伯，没说话": the verb is not his
				break
			}
		}
		tail := string(after)
		for _, v := range actVerbs {
			if k := strings.Index(tail, v); k >= 0 && len([]rune(tail[:k])) <= 2 {
				return true
			}
		}
		i += j + len(name)
	}
}

func excerpt(s string) string { return textmeasure.Clip(s, 80) }

// deadAt reports whether slug is dead as of the end of chapter c-1.
func (w *Window) deadBefore(slug string, c int) bool {
	dead := w.BaselineDead[slug]
	for _, op := range w.StatusOps[slug] {
		if op.chapter < c {
			dead = op.dead
		}
	}
	return dead
}

func (w *Window) checkDead() []Issue {
	var out []Issue
	for _, ch := range w.Characters {
		var ev []Evidence
		for c := w.From; c <= w.To; c++ {
			if !w.deadBefore(ch.Slug, c) {
				continue
			}
			for _, s := range w.Sentences[c] {
				if acts(s, ch.Name) && !containsAny(s, memoryMarks) {
					ev = append(ev, Evidence{c, excerpt(s)})
				}
			}
		}
		if len(ev) > 0 {
			out = append(out, Issue{Type: DeadCharacter, Entities: []string{ch.Slug},
				Description: fmt.Sprintf("%s 在状态中已死亡，却在第 %d 章有动作或对白", ch.Name, ev[0].Chapter),
				Evidence:    ev[:min(3, len(ev))],
				Suggestion:  "若是回忆或幻象，请在文中写明；若角色其实未死，请用 set 操作更正其 status"})
		}
	}
	return out
}

func (w *Window) touched(c int, pred func(path string) bool) bool {
	for _, p := range w.Touched[c] {
		if pred(p) {
			return true
		}
	}
	return false
}

// placesWith lists the known locations named in a sentence with name, and
// one such sentence.
func (w *Window) placesWith(c int, name string) (map[string]bool, string) {
	places, first := map[string]bool{}, ""
	for _, s := range w.Sentences[c] {
		if !strings.Contains(s, name) {
			continue
		}
		for _, l := range w.Locations {
			if strings.Contains(s, l) && !strings.Contains(name, l) {
				places[l] = true
				if first == "" {
					first = s
				}
			}
		}
	}
	return places, first
}

func only(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

func (w *Window) checkLocations() []Issue {
	var out []Issue
	for _, ch := range w.Characters {
		prev, prevS := w.placesWith(w.From, ch.Name)
		for c := w.From + 1; c <= w.To; c++ {
			cur, curS := w.placesWith(c, ch.Name)
			moved := w.touched(c, func(p string) bool { return p == "characters."+ch.Slug+".location" }) ||
				w.touched(c-1, func(p string) bool { return p == "characters."+ch.Slug+".location" })
			if len(prev) == 1 && len(cur) == 1 && only(prev) != only(cur) && !moved {
				out = append(out, Issue{Type: LocationJump, Entities: []string{ch.Slug},
					Description: fmt.Sprintf("%s 第 %d 章在%s，第 %d 章在%s，两章之间没有地点变更（location 操作）", ch.Name, c-1, only(prev), c, only(cur)),
					Evidence:    []Evidence{{c - 1, excerpt(prevS)}, {c, excerpt(curS)}},
					Suggestion:  "在文中交代移动过程，并让摘要写出 set characters." + ch.Slug + ".location"})
			}
			prev, prevS = cur, curS
		}
	}
	return out
}

func (w *Window) checkItems() []Issue {
	names := map[string]string{}
	for _, ch := range w.Characters {
		names[ch.Slug] = ch.Name
	}
	var out []Issue
	for _, it := range w.Items {
		owner := names[it.Owner]
		if owner == "" {
			owner = it.Owner
		}
		var ev []Evidence
		var users []string
		for c := w.From; c <= w.To; c++ {
			if w.touched(c, func(p string) bool { return strings.HasPrefix(p, "items.") || strings.HasSuffix(p, ".inventory") }) {
				continue // the chapter logged a change of hands
			}
			for _, s := range w.Sentences[c] {
				if !strings.Contains(s, it.Name) || strings.Contains(s, owner) || !containsAny(s, useVerbs) {
					continue
				}
				for _, ch := range w.Characters {
					if ch.Slug != it.Owner && strings.Contains(s, ch.Name) {
						ev = append(ev, Evidence{c, excerpt(s)})
						users = append(users, ch.Slug)
						break
					}
				}
			}
		}
		if len(ev) > 0 {
			out = append(out, Issue{Type: ItemOwner, Entities: append([]string{it.Owner}, users[0]),
				Description: fmt.Sprintf("%s 属于%s，第 %d 章却由%s使用", it.Name, owner, ev[0].Chapter, names[users[0]]),
				Evidence:    ev[:min(3, len(ev))],
				Suggestion:  "若物品易手，请在文中写出交接并记录持有者变更；否则改为持有者本人使用"})
		}
	}
	return out
}

// dayRE finds explicit day markers: 第N天/第N日 (absolute) and N天后/N日后
// (relative).
var dayRE = lazyre.New(`(第)?([0-9０-９一二三四五六七八九十百千零两]+)(天|日)(后|之后)?`)

// dayMarks returns the chapter's markers in order: absolute ones as
// (n, true), relative ones as (n, false). 第一天/第二天 are read as the
// idioms "the first/next day", not as a count, and skipped.
func dayMarks(sentences []string) (marks [][2]int, where []string) {
	for _, s := range sentences {
		for _, m := range dayRE().FindAllStringSubmatch(s, -1) {
			n, ok := outline.ParseNumber(m[2])
			if !ok {
				continue
			}
			switch {
			case m[1] == "第" && m[4] == "" && n >= 3:
				marks, where = append(marks, [2]int{n, 1}), append(where, s)
			case m[1] == "" && m[4] != "":
				marks, where = append(marks, [2]int{n, 0}), append(where, s)
			}
		}
	}
	return marks, where
}

func (w *Window) checkTimeline() []Issue {
	var out []Issue
	day := map[string]int{}      // storyline → day count at the end of its last chapter
	lastCh := map[string]int{}   // storyline → that chapter
	lastS := map[string]string{} // storyline → the sentence that set the count
	for c := w.From; c <= w.To; c++ {
		line := w.Storyline[c]
		if line == "" {
			continue
		}
		marks, where := dayMarks(w.Sentences[c])
		first := true
		for i, m := range marks {
			n, absolute := m[0], m[1] == 1
			if !absolute {
				if day[line] > 0 {
					day[line], lastS[line] = day[line]+n, where[i]
				}
				continue
			}
			if first && day[line] > 0 && n < day[line] {
				out = append(out, Issue{Type: TimelineRegression, Entities: []string{line},
					Description: fmt.Sprintf("故事线 %s：第 %d 章已到第 %d 天，第 %d 章却回到第 %d 天", line, lastCh[line], day[line], c, n),
					Evidence:    []Evidence{{lastCh[line], excerpt(lastS[line])}, {c, excerpt(where[i])}},
					Suggestion:  "核对日期；若是倒叙，请在文中标明"})
			}
			first = false
			day[line], lastS[line] = n, where[i]
		}
		if len(marks) > 0 {
			lastCh[line] = c
		}
	}
	return append(out, w.checkClock()...)
}

// checkClock flags a chapter whose story clock (SPEC §25) is earlier than
// the one the storyline's previous chapter ended on: the summarizer's
// clock is the book's own record of time, so no text marker is needed.
func (w *Window) checkClock() []Issue {
	var out []Issue
	last := map[string]int{} // storyline → its last chapter with a clock
	for c := w.From; c <= w.To; c++ {
		line, now, ok := w.Storyline[c], w.StoryTime[c], w.StoryTime[c].Day > 0
		if line == "" || !ok {
			continue
		}
		if p := last[line]; p > 0 && now.Day < w.StoryTime[p].Day {
			was := w.StoryTime[p]
			out = append(out, Issue{Type: TimelineRegression, Entities: []string{line},
				Description: fmt.Sprintf("故事线 %s：第 %d 章结束时故事时钟已到第 %d 天（%s），第 %d 章却回到第 %d 天（%s）", line, p, was.Day, was.Label, c, now.Day, now.Label),
				Evidence:    []Evidence{{p, fmt.Sprintf("story_time 第%d天（%s）", was.Day, was.Label)}, {c, fmt.Sprintf("story_time 第%d天（%s）", now.Day, now.Label)}},
				Suggestion:  "核对本章的时间：时钟只能前进；若是倒叙，请在文中标明，并让摘要员把 story_time 设回当前"})
		}
		last[line] = c
	}
	return out
}

func (w *Window) checkDormant() []Issue {
	var out []Issue
	for i := range w.Foreshadow {
		// A light item's dormancy (no history) can only be longer than
		// the full item's: confirm on the full item.
		if _, dormant := foreshadow.Dormant(&w.Foreshadow[i], w.To); !dormant {
			continue
		}
		full := w.Foreshadow[i].Full()
		it := &full
		since, dormant := foreshadow.Dormant(it, w.To)
		if !dormant {
			continue
		}
		out = append(out, Issue{Type: DormantForeshadowing, Entities: []string{it.ID},
			Description: fmt.Sprintf("伏笔 %s（%s）已 %d 章未推进（上限 %d 章）", it.ID, textmeasure.Clip(it.Description, 60), since, foreshadow.DormantLimit(it.Scope)),
			Evidence:    []Evidence{{foreshadow.LastTouched(it), textmeasure.Clip(it.Description, 80)}},
			Suggestion:  "在接下来几章里推进或回收它，或在卷规划中调整其回收区间"})
	}
	return out
}

// Run runs every check and numbers the issues.
func (w *Window) Run(now string) *Report {
	r := &Report{SchemaVersion: 1, Scope: "sliding_window", ChapterRange: [2]int{w.From, w.To}, GeneratedAt: now,
		Issues: []Issue{}, Stats: Stats{Chapters: len(w.Sentences), Characters: len(w.Characters),
			Locations: len(w.Locations), Items: len(w.Items), ByType: map[string]int{}}}
	for _, found := range [][]Issue{w.checkDead(), w.checkLocations(), w.checkItems(), w.checkTimeline(), w.checkDormant()} {
		sort.SliceStable(found, func(i, j int) bool { return found[i].Evidence[0].Chapter < found[j].Evidence[0].Chapter })
		r.Issues = append(r.Issues, found...)
	}
	for i := range r.Issues {
		is := &r.Issues[i]
		is.ID = fmt.Sprintf("CONT-%03d-%02d", w.To, i+1)
		is.Severity, is.Confidence = severity[is.Type], "high"
		if is.Type == LocationJump || is.Type == ItemOwner || is.Type == TimelineRegression {
			is.Confidence = "medium" // text heuristics: a person confirms
		}
		r.Stats.count(is)
	}
	return r
}

// count adds an issue to the tallies by severity and by type.
func (s *Stats) count(is *Issue) {
	s.ByType[is.Type]++
	switch is.Severity {
	case "high":
		s.High++
	case "medium":
		s.Medium++
	default:
		s.Low++
	}
}
