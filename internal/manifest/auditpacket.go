package manifest

import (
	"encoding/json"
	"strings"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// AuditPacket is the instruction packet of audit:NNN, the continuity-auditor
// review of the window a commit's continuity audit covered (SPEC §21, §25).
// Inline: the window, the deterministic report (deterministic_findings,
// the shape the auditor answers in), the hard rules with their keywords,
// the story clock of the window's chapters, what each character of the
// window knows, and chapter_excerpts — each chapter cut to the paragraphs
// that name a rule keyword, a time word, an item or a cast member, within
// budget (the review budget, tokens). DATA: the window's summaries, the
// cast's character files, the foreshadowing and the volume's storyline
// schedule, whichever exist. Whole chapters and the whole state are not
// sent: a window is ten chapters and a long book's state is MBs. The
// answer goes to one staging file; the pipeline checks it
// (audit.ParseReview) and stores it as logs/continuity/agent-report-NNN.json.
func AuditPacket(root *project.Root, det *audit.Report, vol, budget int) (*Packet, error) {
	from, to := det.ChapterRange[0], det.ChapterRange[1]
	st := stepid.AuditStep(to)
	in, ps := &OMap{}, &OMap{}
	in.Set("chapter_range", det.ChapterRange)
	in.Set("deterministic_findings", det)
	rules, _, err := loadRules(root)
	if err != nil {
		return nil, err
	}
	ruleList := []AuditRule{}
	for _, r := range rules {
		ruleList = append(ruleList, AuditRule{ID: r.ID, Category: r.Category, Rule: r.Rule, Exceptions: r.Exceptions, Keywords: r.Keywords})
	}
	in.Set("rules", ruleList)
	clock, err := changelog.StoryTimes(root, from, to)
	if err != nil {
		return nil, err
	}
	if len(clock) > 0 {
		in.Set(keyStoryTime, clock)
	}
	texts := map[int]string{}
	var summaries []string
	for c := from; c <= to; c++ {
		if root.Exists(layout.Chapter(c)) {
			t, err := root.ReadText(layout.Chapter(c))
			if err != nil {
				return nil, err
			}
			texts[c] = t
		}
		if root.Exists(layout.Summary(c)) {
			summaries = append(summaries, layout.Summary(c))
		}
	}
	chars, _, err := loadCharacters(root)
	if err != nil {
		return nil, err
	}
	var names, contracts []string
	castSet := map[string]bool{}
	for _, ch := range chars {
		for c := from; c <= to; c++ {
			// By any name: a protagonist the text calls by an alias is
			// still the window's cast.
			if t, ok := texts[c]; ok && ch.NamedIn(t) {
				names = append(names, ch.Names()...)
				castSet[ch.Slug] = true
				contracts = append(contracts, layout.CharacterContract(ch.Slug))
				break
			}
		}
	}
	items, knows, err := auditState(root, castSet)
	if err != nil {
		return nil, err
	}
	if knows.Len() > 0 {
		in.Set(keyCastKnows, knows)
	}
	terms := append(append(names, items...), timeWords...)
	for _, r := range rules {
		terms = append(terms, r.Keywords...)
	}
	ps.Set("summaries", summaries)
	if len(contracts) > 0 {
		ps.Set("character_contracts", contracts)
	}
	for _, f := range []struct{ key, rel string }{{"foreshadowing", layout.GlobalForeshadow}, {"storyline_schedule", layout.Schedule(vol)}} {
		if root.Exists(f.rel) {
			ps.Set(f.key, f.rel)
		}
	}
	// What the excerpts may use: the budget less what is already in the
	// packet (inline values and the files named), less room for the prompt.
	used := EstimateText(indentJSON(in)).Tokens + auditPromptReserve
	for _, k := range ps.Keys() {
		v, _ := ps.Get(k)
		for _, rel := range pathList(v) {
			if t, err := root.ReadText(rel); err == nil {
				used += EstimateText(t).Tokens
			}
		}
	}
	in.Set("chapter_excerpts", excerpts(texts, from, to, terms, max(budget-used, minExcerptTokens)))
	c := to
	return &Packet{Version: Version, Step: st.String(), Chapter: &c, Volume: vol,
		Agent:           Agent{Name: st.Agent(), Kind: KindAgent, Mode: stepid.Audit},
		Manifest:        Manifest{Inline: in, Paths: ps},
		ExpectedOutputs: []Output{{Path: layout.StagingAuditReview(to), Required: true, Via: "file"}},
		Warnings:        []string{}, Next: []string{}}, nil
}

// BuildAudit is the packet of audit:NNN as novel instructions and the
// pipeline make it: the window of the continuity report the commit of
// chapter n wrote (every 5th chapter and a volume's last), with the review
// budget. vol is the current volume (its storyline schedule).
func BuildAudit(root *project.Root, vol int, set settings.Settings, n int) (*Packet, error) {
	rel := layout.ContinuityReport(n)
	if !root.IsFile(rel) {
		return nil, errs.Newf(errs.MissingFile, "没有第 %d 章的连续性报告 %s：audit:%s 复核的是该章提交时的连续性检查",
			"there is no continuity report for chapter %d (%s): audit:%s reviews the continuity audit of that chapter's commit",
			n, rel, layout.Pad(n)).With("file", rel).
			Hint("连续性检查在第 5、10、15… 章和卷末章提交时运行；用 novel next 查看要复核的章", "the continuity audit runs at the commits of chapters 5, 10, 15… and of a volume's last chapter; novel next names the one to review")
	}
	var det audit.Report
	if err := root.ReadJSON(rel, &det); err != nil {
		return nil, err
	}
	if det.ChapterRange[1] != n || det.ChapterRange[0] < 1 || det.ChapterRange[0] > n {
		return nil, errs.Newf(errs.Schema, "%s 的 chapter_range 应以第 %d 章结束", "%s: chapter_range must end at chapter %d", rel, n).With("file", rel).
			Hint("用 novel-audit continuity --to N 重新生成该报告", "regenerate the report with novel-audit continuity --to N")
	}
	return AuditPacket(root, &det, max(vol, 1), set.Budget("logic-review"))
}

// AuditRule is one hard rule as the auditor gets it, with its keywords.
type AuditRule struct {
	ID         string   `json:"id"`
	Category   string   `json:"category,omitempty"`
	Rule       string   `json:"rule"`
	Exceptions []string `json:"exceptions,omitempty"`
	Keywords   []string `json:"keywords,omitempty"`
}

// Excerpt bounds: room kept for the role prompt, and the least the chapters
// get however full the rest of the packet is.
const (
	auditPromptReserve = 2500
	minExcerptTokens   = 3000
)

// timeWords mark a paragraph that places events in time (SPEC §25: the
// auditor checks them against the story clock).
var timeWords = []string{"昨夜", "昨晚", "昨天", "昨日", "前天", "前夜", "前日", "今早", "今晨", "今夜", "今晚", "明天", "明日", "明早",
	"后天", "次日", "翌日", "当夜", "当晚", "那夜", "天后", "日后", "天前", "日前", "年前", "月前", "上个月", "下个月", "那天"}

var dayNumberRE = lazyre.New(`第[0-9一二三四五六七八九十百]+[天日]`)

// ChapterExcerpt is one chapter of the auditor's window, cut to the
// paragraphs that matter; Cut is true when relevant paragraphs were left
// out to stay within the budget.
type ChapterExcerpt struct {
	Chapter    int      `json:"chapter"`
	Paragraphs []string `json:"paragraphs"`
	Cut        bool     `json:"cut,omitempty"`
}

// excerpts keeps, per chapter in order, the paragraphs naming a term or a
// day number, each chapter given an equal share of budget tokens.
func excerpts(texts map[int]string, from, to int, terms []string, budget int) []ChapterExcerpt {
	out := []ChapterExcerpt{}
	n := 0
	for c := from; c <= to; c++ {
		if _, ok := texts[c]; ok {
			n++
		}
	}
	if n == 0 {
		return out
	}
	share := budget / n
	for c := from; c <= to; c++ {
		t, ok := texts[c]
		if !ok {
			continue
		}
		ex := ChapterExcerpt{Chapter: c, Paragraphs: []string{}}
		used := 0
		for _, p := range strings.Split(t, "\n") {
			p = strings.TrimSpace(p)
			if p == "" || strings.HasPrefix(p, "#") || !(containsAny(p, terms) || dayNumberRE().MatchString(p)) {
				continue
			}
			cost := EstimateText(p).Tokens
			if used+cost > share {
				ex.Cut = true
				continue
			}
			used += cost
			ex.Paragraphs = append(ex.Paragraphs, p)
		}
		out = append(out, ex)
	}
	return out
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if w != "" && strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// auditState reads, from the state, the names of its items and the knows
// lists of the cast.
func auditState(root *project.Root, cast map[string]bool) ([]string, *OMap, error) {
	knows := &OMap{}
	if !root.Exists(layout.CurrentState) {
		return nil, knows, nil
	}
	data, err := root.MapFile(layout.CurrentState)
	if err != nil {
		return nil, nil, err
	}
	top, err := stateMembers(data)
	if err != nil {
		return nil, nil, err
	}
	var items []string
	jsonio.SplitObject(top["items"], func(k string, v json.RawMessage) {
		jsonio.SplitObjectBytes(v, func(key []byte, val json.RawMessage) {
			if k := string(key); k == "name" || k == "display_name" {
				if s, ok := jsonio.String(val); ok && s != "" {
					items = append(items, s)
				}
			}
		})
	})
	knows = stateKnows(top, cast)
	return items, knows, nil
}
