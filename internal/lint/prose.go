package lint

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/textmeasure"
)

// The deeper AI tells of SPEC §24: a signature phrase repeated within a
// chapter or carried over from the previous one, and a narrator's verdict
// closing a scene. Both are warnings: a model can be told, a reader will
// notice, but neither makes a chapter unpublishable.

// numerals are normalised to N in a sentence frame (数到三 and 数到七 are
// the same frame) and never make a phrase on their own.
const numerals = "0123456789〇零一二三四五六七八九十百千万两"

func isNumeral(r rune) bool { return strings.ContainsRune(numerals, r) }

// repetition finds phrases of ≥ RepeatPhraseChars Han characters that
// occur ≥ RepeatPhraseTimes times (names and registered terms masked
// first), each reported at its longest, and sentence frames of ≥
// RepeatFrameChars characters the previous chapter also used.
func (d *doc) repetition() Check {
	c := Check{ID: Repetition, Severity: Warning}
	var hits []hit
	var found []string
	masked := make([]string, len(d.body))
	terms := d.presentTerms()
	for i, l := range d.body {
		masked[i] = maskTerms(l.Text, terms)
	}
	all := strings.Join(masked, "\n")
	for _, p := range repeatedPhrases(masked) {
		n := strings.Count(all, p)
		found = append(found, "「"+p+"」"+itoa(n)+d.msg(" 次", "×"))
		for i, l := range d.body {
			if at := strings.Index(masked[i], p); at >= 0 {
				hits = append(hits, hit{line: l, at: at})
				break
			}
		}
	}
	if d.in.Previous != "" {
		prev := windows(textmeasure.Body(d.in.Previous))
		for _, f := range sharedFrames(d.body, prev) {
			found = append(found, d.msg("与上一章相同的句式", "a frame the previous chapter used: ")+"「"+f.text+"」")
			hits = append(hits, f.hit)
		}
	}
	c.Count = len(found)
	sortByLine(hits)
	c.Detail = d.msg("重复的说法 "+itoa(len(found))+" 处（同一短语 ≥ "+itoa(thresholds.RepeatPhraseChars)+" 字出现 ≥ "+itoa(thresholds.RepeatPhraseTimes)+" 次，或 ≥ "+itoa(thresholds.RepeatFrameChars)+" 字的句式与上一章相同）",
		itoa(len(found))+" repeated phrasings (a phrase of ≥ "+itoa(thresholds.RepeatPhraseChars)+" characters ≥ "+itoa(thresholds.RepeatPhraseTimes)+" times, or a frame of ≥ "+itoa(thresholds.RepeatFrameChars)+" characters the previous chapter used)")
	if len(found) > 0 {
		c.Detail += d.msg("：", ": ") + strings.Join(found[:min(len(found), thresholds.EvidenceMax)], d.msg("，", ", "))
	}
	c.Evidence = evidence(hits)
	return c
}

// maskTerms blanks the names and registered terms in a line (same byte
// length, so offsets still point into the original line).
func maskTerms(s string, terms []string) string {
	for _, t := range terms {
		if t != "" {
			s = strings.ReplaceAll(s, t, strings.Repeat(" ", len(t)))
		}
	}
	return s
}

// presentTerms are the registered terms that occur somewhere in the
// chapter, in their order: a long project registers about a thousand,
// a chapter uses a few, and searching every line for every term was
// most of a lint. Masking only blanks, so a term absent from the text
// cannot appear in a line after others are masked — unless it contains
// a blank itself, and those are kept.
func (d *doc) presentTerms() []string {
	var b strings.Builder
	for _, l := range d.body {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	text := b.String()
	// A term can be in the text only if its first two characters are a
	// pair the text has: that rejects almost every term without a search
	// (a search for a CJK term stops at every character sharing its first
	// byte).
	// (Valid UTF-8 only: there a term's bytes can match only at a
	// character boundary; otherwise every term is searched.)
	valid := utf8.ValidString(text)
	pairs := map[[2]rune]bool{}
	prev := rune(-1)
	for _, r := range text {
		if prev >= 0 {
			pairs[[2]rune{prev, r}] = true
		}
		prev = r
	}
	var out []string
	for _, t := range d.cfg.Terms {
		if t == "" {
			continue
		}
		if strings.Contains(t, " ") {
			out = append(out, t)
			continue
		}
		if r0, n := utf8.DecodeRuneInString(t); valid && utf8.ValidString(t) && n < len(t) {
			if r1, _ := utf8.DecodeRuneInString(t[n:]); !pairs[[2]rune{r0, r1}] {
				continue
			}
		}
		if strings.Contains(text, t) {
			out = append(out, t)
		}
	}
	return out
}

// hanRuns are the maximal runs of Han characters of a text.
func hanRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.Is(unicode.Han, r) })
}

// repeatedPhrases are the phrases to report, each at its longest: every
// gram of RepeatPhraseChars characters that occurs often enough and is
// not all numerals, extended while every occurrence shares the next (or
// previous) character, once per phrase, in order of first occurrence.
func repeatedPhrases(lines []string) []string {
	n := thresholds.RepeatPhraseChars
	counts := map[string]int{}
	var order []string
	for _, l := range lines {
		for _, run := range hanRuns(l) {
			r := []rune(run)
			for i := 0; i+n <= len(r); i++ {
				g := string(r[i : i+n])
				if counts[g] == 0 {
					order = append(order, g)
				}
				counts[g]++
			}
		}
	}
	all := strings.Join(lines, "\n")
	var out []string
	for _, g := range order {
		if counts[g] < thresholds.RepeatPhraseTimes || strings.IndexFunc(g, func(r rune) bool { return !isNumeral(r) }) < 0 {
			continue
		}
		// Overlapping occurrences (灯灯灯灯灯) are not a phrase used five
		// times. Every occurrence of a Han gram in the text is one counts
		// saw, and only a gram whose start is also its end can overlap
		// itself: the others need no second count over the whole text.
		if selfOverlapping(g) && strings.Count(all, g) < thresholds.RepeatPhraseTimes {
			continue
		}
		covered := false
		for _, p := range out {
			if strings.Contains(p, g) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, extend(all, g))
		}
	}
	return out
}

// selfOverlapping reports whether g has a proper prefix that is also its
// suffix (so two occurrences can overlap).
func selfOverlapping(g string) bool {
	for k := 1; k < len(g); k++ {
		if strings.HasPrefix(g, g[len(g)-k:]) {
			return true
		}
	}
	return false
}

// extend grows p while every occurrence in all is followed (then
// preceded) by the same Han character.
func extend(all, p string) string {
	for grown := true; grown; {
		grown = false
		if r, ok := sharedNeighbour(all, p, true); ok {
			p, grown = p+string(r), true
		}
		if r, ok := sharedNeighbour(all, p, false); ok {
			p, grown = string(r)+p, true
		}
	}
	return p
}

func sharedNeighbour(all, p string, after bool) (rune, bool) {
	var shared rune = -1
	n := 0
	for from := 0; ; {
		i := strings.Index(all[from:], p)
		if i < 0 {
			break
		}
		at := from + i
		var r rune
		if after {
			r, _ = utf8.DecodeRuneInString(all[at+len(p):])
		} else {
			r, _ = utf8.DecodeLastRuneInString(all[:at])
		}
		if !unicode.Is(unicode.Han, r) || (shared >= 0 && r != shared) {
			return 0, false
		}
		shared, n = r, n+1
		from = at + len(p)
	}
	return shared, n >= thresholds.RepeatPhraseTimes
}

// frame is a sentence with its quotes dropped and numerals as N.
func frame(s string) []rune {
	var out []rune
	for _, r := range s {
		switch {
		case strings.ContainsRune("「」『』“”‘’ \t\u3000", r):
		case isNumeral(r):
			if len(out) == 0 || out[len(out)-1] != 'N' {
				out = append(out, 'N')
			}
		default:
			out = append(out, r)
		}
	}
	return out
}

// windows are the RepeatFrameChars-character windows of every sentence's
// frame with at least two thirds of them Han or N.
func windows(lines []textmeasure.Line) map[string]bool {
	set := map[string]bool{}
	for _, l := range lines {
		for _, s := range textmeasure.Sentences(l.Text) {
			f := frame(s)
			for i := 0; i+thresholds.RepeatFrameChars <= len(f); i++ {
				if w := f[i : i+thresholds.RepeatFrameChars]; wordy(w) {
					set[string(w)] = true
				}
			}
		}
	}
	return set
}

func wordy(w []rune) bool {
	n := 0
	for _, r := range w {
		if r == 'N' || unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return 3*n >= 2*len(w)
}

type sharedFrame struct {
	text string
	hit  hit
}

// sharedFrames are the longest spans of each sentence whose every
// window the previous chapter also has, trimmed of punctuation, once each.
func sharedFrames(body []textmeasure.Line, prev map[string]bool) []sharedFrame {
	var out []sharedFrame
	seen := map[string]bool{}
	k := thresholds.RepeatFrameChars
	for _, l := range body {
		for _, s := range textmeasure.Sentences(l.Text) {
			f := frame(s)
			for i := 0; i+k <= len(f); {
				if !prev[string(f[i:i+k])] {
					i++
					continue
				}
				j := i + 1
				for j+k <= len(f) && prev[string(f[j:j+k])] {
					j++
				}
				t := strings.TrimFunc(string(f[i:j-1+k]), func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
				if !seen[t] {
					seen[t] = true
					out = append(out, sharedFrame{text: t, hit: hit{line: l, at: strings.Index(l.Text, s)}})
				}
				i = j - 1 + k
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].hit.line.N < out[b].hit.line.N })
	return out
}

// verdicts are the narrator's closing-verdict frames: a marker, and for
// two-part frames the word that must follow it in the same sentence.
var verdicts = []struct{ first, then string }{
	{"这一刻", ""}, {"终于明白", ""}, {"原来", "就是"}, {"一切都", "了"},
}

// summaryLines finds a paragraph that ends the chapter or a scene (the
// paragraph before a separator line or two blank lines) whose last
// narration sentence is a verdict frame. Dialogue is blanked first: a
// character may draw conclusions, the narrator should not.
func (d *doc) summaryLines() Check {
	c := Check{ID: SummaryLines, Severity: Warning}
	var hits []hit
	lines := d.body
	depth := 0
	narr := make([]string, len(lines))
	for i, l := range lines {
		narr[i] = textmeasure.Narration(l.Text, &depth)
	}
	for i, l := range lines {
		if strings.TrimSpace(l.Text) == "" || isSeparator(l.Text) || !closesScene(lines, i) {
			continue
		}
		ss := textmeasure.Sentences(strings.TrimSpace(narr[i]))
		if len(ss) == 0 {
			continue
		}
		last := ss[len(ss)-1]
		for _, v := range verdicts {
			at := strings.Index(last, v.first)
			if at >= 0 && (v.then == "" || strings.Contains(last[at+len(v.first):], v.then)) {
				hits = append(hits, hit{line: l, at: strings.Index(l.Text, strings.TrimSpace(last))})
				break
			}
		}
	}
	c.Count = len(hits)
	c.Detail = d.msg("以旁白结论收束场景或章节 "+itoa(len(hits))+" 处（这一刻…／终于明白…／原来…就是…／一切都…了）：删掉结论，让最后一个动作或画面自己说话",
		itoa(len(hits))+" scene or chapter endings with a narrator's verdict (这一刻… / 终于明白… / 原来…就是… / 一切都…了): cut the verdict and end on the last action or image")
	c.Evidence = evidence(hits)
	return c
}

// closesScene: the next non-blank line is a separator, or two or more
// blank lines follow, or nothing does.
func closesScene(lines []textmeasure.Line, i int) bool {
	blank := 0
	for j := i + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j].Text)
		if t == "" {
			blank++
			continue
		}
		return blank >= 2 || isSeparator(t)
	}
	return true
}

// isSeparator is a scene-break line: only symbols such as ＊＊＊, * * *,
// ◇◇◇ or ——.
func isSeparator(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "*＊◇◆·•—-~～ 　") == ""
}
