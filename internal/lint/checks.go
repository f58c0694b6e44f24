package lint

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/textmeasure"
)

func (d *doc) length() Check {
	p := d.cfg.Profile
	c := Check{ID: Length, Severity: Warning}
	if p.Chosen {
		c.Severity = Error
	}
	limits := d.msg("平台 "+p.Name+"：下限 "+itoa(p.WordsMin)+"，目标 "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+"，上限 "+itoa(p.WordsMax),
		"platform "+p.Name+": min "+itoa(p.WordsMin)+", target "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+", max "+itoa(p.WordsMax))
	switch {
	case d.words < p.WordsMin:
		c.Count = 1
		c.Detail = d.msg("字数 "+itoa(d.words)+"，低于下限（"+limits+"）", "word count "+itoa(d.words)+" is below the minimum ("+limits+")")
	case d.words > p.WordsMax:
		// A draft above the maximum is re-asked (cheap models overshoot
		// by 2×, SPEC §24); later stages only warn.
		c.Count, c.Severity = 1, Warning
		c.Detail = d.msg("字数 "+itoa(d.words)+"，超过上限（"+limits+"）", "word count "+itoa(d.words)+" is above the maximum ("+limits+")")
		if d.in.Stage == StageDraft {
			c.Severity = Error
			c.Detail += d.msg("；请删减到目标字数 "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1]),
				"; trim to the target "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1]))
		}
	default:
		c.Detail = d.msg("字数 "+itoa(d.words)+"（"+limits+"）", "word count "+itoa(d.words)+" ("+limits+")")
	}
	return c
}

var headingRE = lazyre.New(`^# 第([0-9]+)章(?:[ \t　]+(.*))?$`)

func (d *doc) headingCheck() Check {
	c := Check{ID: Heading, Severity: Error}
	want := "# 第" + itoa(d.in.Chapter) + "章 " + d.msg("标题", "Title")
	first := -1
	for i, l := range d.lines {
		if strings.TrimSpace(l.Text) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		c.Count, c.Detail = 1, d.msg("正文为空，缺少标题行 "+want, "the text is empty; the heading line "+want+" is missing")
		return c
	}
	l := d.lines[first]
	line := strings.TrimRight(l.Text, " \t　")
	m := headingRE().FindStringSubmatch(line)
	var problem string
	switch {
	case m == nil:
		problem = d.msg("首行不是 "+want+" 形式的标题（第 N 章用阿拉伯数字）", "the first line is not a heading of the form "+want+" (N in Arabic digits)")
	case atoiOr(m[1]) != d.in.Chapter:
		problem = d.msg("标题的章号是 "+m[1]+"，应为 "+itoa(d.in.Chapter), "the heading's chapter number is "+m[1]+", want "+itoa(d.in.Chapter))
	case utf8.RuneCountInString(strings.TrimSpace(m[2])) > thresholds.HeadingTitleMax:
		problem = d.msg("章名 "+itoa(utf8.RuneCountInString(strings.TrimSpace(m[2])))+" 字，超过 "+itoa(thresholds.HeadingTitleMax)+" 字",
			"the title has "+itoa(utf8.RuneCountInString(strings.TrimSpace(m[2])))+" characters, more than "+itoa(thresholds.HeadingTitleMax))
	}
	if problem == "" {
		c.Detail = d.msg("标题行正确", "the heading line is fine")
		return c
	}
	c.Count, c.Detail = 1, problem
	c.Evidence = []Evidence{{Line: l.N, Excerpt: excerpt(l.Text, 0)}}
	return c
}

func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

var thinkRE = lazyre.New(`(?i)</?think`)

func (d *doc) artifacts() Check {
	c := Check{ID: ModelArtifacts, Severity: Error}
	var hits []hit
	tags, fences, hintsLines, chat := 0, 0, 0, 0
	inFence := false
	for _, l := range d.lines {
		t := strings.TrimSpace(l.Text)
		for _, ix := range thinkRE().FindAllStringIndex(l.Text, -1) {
			tags++
			hits = append(hits, hit{line: l, at: ix[0]})
		}
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			// A fenced block counts once, at its opening fence.
			if !inFence {
				fences++
				hits = append(hits, hit{line: l, at: strings.Index(l.Text, t[:3])})
			}
			inFence = !inFence
		case !inFence && strings.HasPrefix(t, `{"hints"`):
			hintsLines++
			hits = append(hits, hit{line: l, at: strings.Index(l.Text, "{")})
		}
	}
	for _, h := range d.chatLines() {
		chat++
		hits = append(hits, h)
	}
	notes := d.trailingNotes()
	hits = append(hits, notes...)
	sortByLine(hits)
	c.Count = tags + fences + hintsLines + chat + len(notes)
	c.Detail = d.msg("思考标签 "+itoa(tags)+" 处，代码块 "+itoa(fences)+" 个，遗留 hints "+itoa(hintsLines)+" 处，对话式套话 "+itoa(chat)+" 处",
		itoa(tags)+" think tags, "+itoa(fences)+" code blocks, "+itoa(hintsLines)+" leftover hints, "+itoa(chat)+" chat lines")
	if len(notes) > 0 {
		c.Detail += d.msg("，正文后的非正文块（修改说明、预告、重复的章标题等）1 处", ", 1 block after the chapter that is not story (a change note, a preview, a repeated chapter heading)")
	}
	if fences > 0 && d.in.Stage != StageDraft {
		c.Detail += d.msg("（只有初稿末尾可以带 hints 代码块）", " (only a draft may end with the hints block)")
	}
	c.Evidence = evidence(hits)
	return c
}

// chatLines are the lines that open with an assistant's chat phrase
// (chatLineRE). A character may say "好的，以下是…": the phrase must start
// the line's narration, so a line opening with a quote is dialogue.
func (d *doc) chatLines() []hit {
	depth := 0
	var hs []hit
	for _, l := range d.lines {
		narr := textmeasure.Narration(l.Text, &depth)
		at := len(l.Text) - len(strings.TrimLeft(l.Text, chatLead))
		if m := chatLineRE().FindStringIndex(narr[at:]); m != nil {
			hs = append(hs, hit{line: l, at: at, end: at + m[1]})
		}
	}
	return hs
}

// IsChatLine reports whether a paragraph of a model's answer opens with an
// assistant's chat phrase addressed to its user (the model_artifacts
// definition): hygiene drops such paragraphs after a chapter, and only
// those — a closing line of narration that merely starts the same way
// (「希望这场雪早点停。」) is story.
func IsChatLine(par string) bool {
	par = strings.TrimLeft(par, chatLead)
	return chatLineRE().MatchString(par)
}

func sortByLine(hs []hit) {
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].line.N != hs[j].line.N {
			return hs[i].line.N < hs[j].line.N
		}
		return hs[i].at < hs[j].at
	})
}

// metaRE finds the suite's bookkeeping in prose: ids (W-001, F-003,
// LS-001, C-xxx-1), field names (snake_case, foreshadow…, storyline…)
// and project paths. \b is ASCII-only, so a Chinese character next to
// an id is a boundary.
var metaRE = lazyre.New(`\b(?:(?:W|F|LS)-[0-9]{3}|C-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*-[0-9]+)\b` +
	`|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|(?i:\bforeshadow[a-z]*|\bstoryline[a-z_]*)` +
	`|\b(?:staging|chapters|summaries|volumes|storylines|state|evaluations)/|\.jsonl?\b|\.md\b`)

func (d *doc) metaLeak() Check {
	c := Check{ID: MetaLeak, Severity: Error}
	var hits []hit
	var found []string
	for _, l := range d.body {
		for _, ix := range metaRE().FindAllStringIndex(l.Text, -1) {
			hits = append(hits, hit{line: l, at: ix[0]})
			if w := l.Text[ix[0]:ix[1]]; !slices.Contains(found, w) {
				found = append(found, w)
			}
		}
	}
	c.Count = len(hits)
	if c.Count == 0 {
		c.Detail = d.msg("未发现编号、字段名或项目路径", "no ids, field names or project paths")
	} else {
		c.Detail = d.msg("正文里出现了流水线的编号、字段名或路径："+strings.Join(firstN(found, 5), "、"),
			"the text contains the pipeline's ids, field names or paths: "+strings.Join(firstN(found, 5), ", "))
	}
	c.Evidence = evidence(hits)
	return c
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

func (d *doc) quotes() Check {
	c := Check{ID: Quotes, Severity: Warning}
	style := d.cfg.QuoteStyle
	var wrongOpen, wrongClose []string
	want := "「」"
	if style == settings.QuoteCurly {
		wrongOpen, wrongClose, want = []string{"「", "『"}, []string{"」", "』"}, "“”"
	} else {
		wrongOpen, wrongClose = []string{"“", "‘"}, []string{"”", "’"}
	}
	var hits []hit
	for i := range wrongOpen {
		o := findAll(d.body, wrongOpen[i:i+1])
		cl := findAll(d.body, wrongClose[i:i+1])
		// A passage is counted once; a stray closing mark alone counts too.
		c.Count += max(len(o), len(cl))
		hits = append(hits, o...)
		if len(o) == 0 {
			hits = append(hits, cl...)
		}
	}
	ascii := findAll(d.body, []string{`"`})
	c.Count += (len(ascii) + 1) / 2
	for i := 0; i < len(ascii); i += 2 {
		hits = append(hits, ascii[i])
	}
	sortByLine(hits)
	if c.Count == 0 {
		c.Detail = d.msg("对话引号统一为 "+want, "dialogue quotes are all "+want)
	} else {
		c.Detail = d.msg(itoa(c.Count)+" 处对话没有使用项目的引号 "+want+"（settings.json quote_style: "+style+"）",
			itoa(c.Count)+" quoted passages do not use the project's quotes "+want+" (settings.json quote_style: "+style+")")
	}
	c.Evidence = evidence(hits)
	return c
}

// runs finds maximal runs of r (at least minLen runes) in the body.
func runs(lines []textmeasure.Line, r rune, minLen int) []hit {
	var out []hit
	for _, l := range lines {
		n, start := 0, 0
		for i, x := range l.Text + "\n" {
			if x == r {
				if n == 0 {
					start = i
				}
				n++
				continue
			}
			if n >= minLen {
				out = append(out, hit{line: l, at: start})
			}
			n = 0
		}
	}
	return out
}

func (d *doc) dashes() Check {
	c := Check{ID: Dashes, Severity: Warning}
	dash := runs(d.body, '—', 1)
	ell := append(runs(d.body, '…', 1), runs(d.body, '.', 3)...)
	sortByLine(ell)
	var hits []hit
	if d.over(len(dash), thresholds.DashesPerK) {
		c.Count += len(dash)
		hits = append(hits, dash...)
	}
	if d.over(len(ell), thresholds.EllipsesPerK) {
		c.Count += len(ell)
		hits = append(hits, ell...)
	}
	sortByLine(hits)
	c.Detail = d.msg("破折号 "+itoa(len(dash))+" 处（"+d.perK(len(dash))+"/千字，上限 "+itoa(thresholds.DashesPerK)+"），省略号 "+itoa(len(ell))+" 处（"+d.perK(len(ell))+"/千字，上限 "+itoa(thresholds.EllipsesPerK)+"）",
		itoa(len(dash))+" dashes ("+d.perK(len(dash))+" per 1000 words, limit "+itoa(thresholds.DashesPerK)+"), "+itoa(len(ell))+" ellipses ("+d.perK(len(ell))+" per 1000 words, limit "+itoa(thresholds.EllipsesPerK)+")")
	c.Evidence = evidence(hits)
	return c
}

func (d *doc) aiPatterns() Check {
	c := Check{ID: AIPatterns, Severity: Warning}
	var frames []hit
	for _, l := range d.body {
		for _, s := range textmeasure.Sentences(l.Text) {
			if i := strings.Index(s, "不是"); i >= 0 && strings.Contains(s[i:], "而是") {
				frames = append(frames, hit{line: l, at: strings.Index(l.Text, s) + i})
			}
		}
	}
	sim := findAll(d.body, similes)
	conn := d.inNarration(d.body, connectors)
	emo := findAll(d.body, emotionTags)
	var hits []hit
	fire := func(hs []hit, over bool) {
		if over {
			c.Count += len(hs)
			hits = append(hits, hs...)
		}
	}
	fire(frames, len(frames) > thresholds.NotButPerChapter)
	fire(sim, d.over(len(sim), thresholds.SimilesPerK))
	fire(conn, d.over(len(conn), thresholds.ConnectorsPerK))
	fire(emo, len(emo) > thresholds.EmotionPerChapter)
	sortByLine(hits)
	c.Detail = d.msg("“不是…而是…” "+itoa(len(frames))+" 处（上限 "+itoa(thresholds.NotButPerChapter)+"/章），比喻词 "+itoa(len(sim))+" 处（"+d.perK(len(sim))+"/千字，上限 "+itoa(thresholds.SimilesPerK)+
		"），叙述连接词 "+itoa(len(conn))+" 处（"+d.perK(len(conn))+"/千字，上限 "+itoa(thresholds.ConnectorsPerK)+"），情绪标签 "+itoa(len(emo))+" 处（上限 "+itoa(thresholds.EmotionPerChapter)+"/章）",
		"\"不是…而是…\" frames "+itoa(len(frames))+" (limit "+itoa(thresholds.NotButPerChapter)+" per chapter), similes "+itoa(len(sim))+" ("+d.perK(len(sim))+" per 1000 words, limit "+itoa(thresholds.SimilesPerK)+
			"), narration connectors "+itoa(len(conn))+" ("+d.perK(len(conn))+" per 1000 words, limit "+itoa(thresholds.ConnectorsPerK)+"), emotion labels "+itoa(len(emo))+" (limit "+itoa(thresholds.EmotionPerChapter)+" per chapter)")
	c.Evidence = evidence(hits)
	return c
}

// inNarration finds the needles outside dialogue (「」 and “” blanked,
// an open quote carrying over to the next line); the hits point at the
// original lines for the evidence.
func (d *doc) inNarration(lines []textmeasure.Line, needles []string) []hit {
	depth := 0
	var narr, orig []textmeasure.Line // orig[i] is the line narr[i] was made from
	for _, l := range lines {
		if strings.TrimSpace(l.Text) == "" {
			continue // no quote to carry, no needle to find (a chapter may hold millions)
		}
		narr = append(narr, textmeasure.Line{N: l.N, Text: textmeasure.Narration(l.Text, &depth)})
		orig = append(orig, l)
	}
	hs := findAll(narr, needles)
	for i := range hs {
		n := hs[i].line.N
		hs[i].line = orig[sort.Search(len(orig), func(j int) bool { return orig[j].N >= n })]
	}
	return hs
}

func (d *doc) blacklist() Check {
	c := Check{ID: blacklistCheck, Severity: Warning}
	bc := textmeasure.CountBlacklist(d.cfg.Blacklist, d.in.Text, d.words)
	var words []string
	for _, h := range firstNHits(bc.Hits, thresholds.BlacklistWordsShown) {
		words = append(words, h.Word+"×"+itoa(h.Count))
	}
	rate := strconv.FormatFloat(bc.HitsPerKChar, 'f', -1, 64)
	if d.over(bc.TotalHits, thresholds.BlacklistPerK) {
		c.Count = bc.TotalHits
		var list []string
		for _, h := range bc.Hits {
			list = append(list, h.Word)
		}
		c.Evidence = evidence(findAll(d.body, list))
	}
	c.Detail = d.msg("黑名单命中 "+itoa(bc.TotalHits)+" 次（"+rate+"/千字，上限 "+itoa(thresholds.BlacklistPerK)+"）",
		itoa(bc.TotalHits)+" blacklist hits ("+rate+" per 1000 words, limit "+itoa(thresholds.BlacklistPerK)+")")
	if len(words) > 0 {
		c.Detail += d.msg("："+strings.Join(words, "、"), ": "+strings.Join(words, ", "))
	}
	return c
}

func firstNHits(h []textmeasure.BlacklistHit, n int) []textmeasure.BlacklistHit {
	return h[:min(n, len(h))]
}

func (d *doc) paragraphs() Check {
	c := Check{ID: Paragraphs, Severity: Info}
	var hits []hit
	longest := 0
	for _, l := range d.body {
		n := textmeasure.LineWords(l.Text)
		longest = max(longest, n)
		if n > thresholds.ParagraphMaxWords {
			hits = append(hits, hit{line: l, at: len(l.Text) - len(strings.TrimLeft(l.Text, " \t　"))})
		}
	}
	c.Count = len(hits)
	c.Detail = d.msg(itoa(c.Count)+" 段超过 "+itoa(thresholds.ParagraphMaxWords)+" 字（最长 "+itoa(longest)+" 字）",
		itoa(c.Count)+" paragraphs over "+itoa(thresholds.ParagraphMaxWords)+" words (longest "+itoa(longest)+")")
	if c.Count > 0 {
		c.Detail += d.msg("，手机上难读，拆成短段", "; hard to read on a phone, split them")
	}
	c.Evidence = evidence(hits)
	return c
}
