package report

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
)

// collectChapters reads every committed chapter's eval and log once. The
// reads run on a few goroutines (a 2,000-chapter project has 4,000 small
// files); results land by index, so the output order never depends on
// scheduling, and the error reported is the one of the lowest chapter.
func (r *Report) collectChapters(root *project.Root, last int, vols []volInfo) error {
	if last <= 0 {
		return nil
	}
	chs := make([]Chapter, last)
	errsAt := make([]error, last)
	missing := make([][]string, last)
	workers := min(runtime.GOMAXPROCS(0), 8, last)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				chs[i], missing[i], errsAt[i] = readChapter(root, i+1)
			}
		}()
	}
	for i := 0; i < last; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	var noEval, noLog, noText []int
	for i := range chs {
		if errsAt[i] != nil {
			return errsAt[i]
		}
		c := &chs[i]
		for _, m := range missing[i] {
			switch m {
			case "eval":
				noEval = append(noEval, c.Chapter)
			case "log":
				noLog = append(noLog, c.Chapter)
			case "text":
				noText = append(noText, c.Chapter)
			}
		}
		if vi := volumeOf(vols, c.Chapter); vi != nil {
			c.Volume = intp(vi.volume)
			if vi.outline != nil {
				// The outline is the fallback for the title and, for a
				// chapter without a log, the storyline; a block that does
				// not validate only loses those cosmetic fields.
				if b, err := vi.outline.Block(c.Chapter); err == nil {
					c.Title = b.Title
					if c.StorylineID == "" {
						c.StorylineID = b.StorylineID
					}
				}
			}
		}
	}
	r.Chapters = chs
	r.warnMissing(noEval, "章缺少已提交的评估文件 evaluations/chapter-NNN-eval.json", "chapters have no committed eval")
	r.warnMissing(noLog, "章缺少章节日志 logs/chapter-NNN-log.json", "chapters have no chapter log")
	r.warnMissing(noText, "章既无章节日志也无正文，字数计为 0", "chapters have neither a log nor a text; word count 0")
	return nil
}

// warnMissing adds one warning for a list of chapters (first 10 named).
func (r *Report) warnMissing(list []int, zh, en string) {
	if len(list) == 0 {
		return
	}
	names := ""
	for i, c := range list {
		if i == 10 {
			names += ", …"
			break
		}
		if i > 0 {
			names += ", "
		}
		names += strconv.Itoa(c)
	}
	r.Warnings = append(r.Warnings, strconv.Itoa(len(list))+" "+zh+"（"+names+"） / "+en)
}

// readChapter reads chapter c's committed eval and log. missing names the
// absent inputs ("eval", "log", "text").
func readChapter(root *project.Root, c int) (Chapter, []string, error) {
	ch := Chapter{Chapter: c}
	var missing []string
	evalRel, logRel := layout.Eval(c), layout.ChapterLog(c)
	var lg chapterLog
	hasLog := false
	if data, ok, err := readIfExists(root, logRel); err != nil {
		return ch, nil, err
	} else if ok {
		if err := parseLog(data, logRel, &lg); err != nil {
			return ch, nil, err
		}
		hasLog = true
	} else {
		missing = append(missing, "log")
	}
	var ev committedEval
	hasEval := false
	if data, ok, err := readIfExists(root, evalRel); err != nil {
		return ch, nil, err
	} else if ok {
		if err := parseCommittedEval(data, evalRel, c, &ev); err != nil {
			return ch, nil, err
		}
		hasEval = true
	} else {
		missing = append(missing, "eval")
	}
	if hasEval {
		ch.Overall = floatp(ev.overall)
		ch.SecondaryOverall = ev.secondary
		ch.OverallFinal = ev.overallFinal
		if ch.OverallFinal == nil {
			ch.OverallFinal = floatp(ev.overall)
		}
		ch.GateDecision = ev.decision
		ch.OriginalDecision = ev.original
		ch.Revisions = ev.revisions
		ch.ForcePassed = ev.forcePassed
		ch.Polished = ev.polished
	}
	if hasLog {
		ch.StorylineID = lg.storyline
		ch.WordCount = lg.words
		// The eval's gate record is the primary source; the log fills gaps.
		if ch.GateDecision == "" {
			ch.GateDecision = lg.decision
		}
		if ch.OriginalDecision == "" {
			ch.OriginalDecision = lg.original
		}
		ch.ForcePassed = ch.ForcePassed || lg.forcePassed
		ch.Polished = ch.Polished || lg.polished
		if ch.Revisions == 0 {
			ch.Revisions = lg.revisions
		}
		if ch.OverallFinal == nil && lg.overallFinal != nil {
			ch.OverallFinal = lg.overallFinal
		}
	}
	if !hasLog || !lg.hasWords {
		// Only a chapter without a logged word count is read.
		rel := layout.Chapter(c)
		if root.IsFile(rel) {
			text, err := products.ChapterText(root, rel)
			if err != nil {
				return ch, nil, err
			}
			ch.WordCount = products.WordCount(text)
		} else {
			missing = append(missing, "text")
		}
	}
	if ch.OverallFinal != nil {
		ch.OverallFinal = floatp(round2(*ch.OverallFinal))
	}
	ch.Marker = marker(ch, hasEval || hasLog)
	return ch, missing, nil
}

func marker(ch Chapter, known bool) string {
	switch {
	case ch.ForcePassed:
		return MarkForcePassed
	case ch.GateDecision == "accepted":
		return MarkAccepted
	case ch.Revisions > 0:
		return MarkRevise
	case ch.Polished || ch.OriginalDecision == "polish" || ch.GateDecision == "polish":
		return MarkPolish
	case ch.GateDecision == "pass":
		return MarkPass
	case !known || ch.GateDecision == "":
		return MarkUnknown
	}
	return MarkUnknown
}

func readIfExists(root *project.Root, rel string) ([]byte, bool, error) {
	abs, err := root.Abs(rel)
	if err != nil {
		return nil, false, err
	}
	if _, err := os.Lstat(abs); err != nil {
		if os.IsNotExist(err) {
			return nil, false, nil
		}
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// committedEval is what the report takes from evaluations/chapter-NNN-eval.json:
// the primary eval plus metadata {gate, secondary, judges} (SPEC §8.1).
type committedEval struct {
	overall      float64
	secondary    *float64
	overallFinal *float64
	decision     string
	original     string
	revisions    int
	forcePassed  bool
	polished     bool
}

func evalSchemaErr(rel, zh, en string) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, rel).With("file", rel).
		Hint("修正该评估文件（格式见 SPEC §2、§8.1），或用 novel-commit rollback 回滚该章后重写",
			"fix the eval file (SPEC §2, §8.1), or roll the chapter back with novel-commit rollback and redo it")
}

// parseCommittedEval validates the eval with the judge's own parser (so a
// committed eval is held to the same rules) and reads the metadata
// leniently: fields of an unexpected type are ignored, since they are
// bookkeeping the suite wrote.
func parseCommittedEval(data []byte, rel string, c int, out *committedEval) error {
	ev, err := eval.Parse(data, rel, c)
	if err != nil {
		return err
	}
	out.overall = ev.Overall
	var top struct {
		Metadata json.RawMessage `json:"metadata"`
		EvalUsed json.RawMessage `json:"eval_used"`
	}
	if err := jsonio.Decode(data, rel, &top); err != nil {
		return err
	}
	md := top.Metadata
	if len(md) == 0 && len(top.EvalUsed) > 0 {
		var inner struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if json.Unmarshal(top.EvalUsed, &inner) == nil {
			md = inner.Metadata
		}
	}
	if len(md) == 0 || string(md) == "null" {
		return nil
	}
	var m struct {
		Gate      map[string]any `json:"gate"`
		Secondary map[string]any `json:"secondary"`
		Judges    map[string]any `json:"judges"`
	}
	if err := json.Unmarshal(md, &m); err != nil {
		return evalSchemaErr(rel, "metadata 必须是 {gate, secondary, judges} 对象", "metadata must be an object {gate, secondary, judges}")
	}
	g := m.Gate
	out.decision, _ = g["decision"].(string)
	out.original, _ = g["original_decision"].(string)
	out.polished, _ = g["polished"].(bool)
	out.forcePassed, _ = g["force_passed"].(bool)
	if n, ok := jsonio.Int(g["revision_count"]); ok && n > 0 {
		out.revisions = n
	} else if n, ok := jsonio.Int(g["revisions"]); ok && n > 0 {
		out.revisions = n
	}
	if j := m.Judges; j != nil {
		if f, ok := jsonio.Float(j["overall_final"]); ok {
			out.overallFinal = floatp(f)
		}
		if sec, ok := j["secondary"].(map[string]any); ok {
			if f, ok := jsonio.Float(sec["overall"]); ok {
				out.secondary = floatp(f)
			}
		}
	}
	if out.overallFinal == nil {
		if f, ok := jsonio.Float(g["overall_final"]); ok {
			out.overallFinal = floatp(f)
		}
	}
	if out.secondary == nil && m.Secondary != nil {
		if f, ok := jsonio.Float(m.Secondary["overall"]); ok {
			out.secondary = floatp(f)
		}
	}
	return nil
}

// chapterLog is what the report takes from logs/chapter-NNN-log.json.
type chapterLog struct {
	storyline    string
	words        int
	hasWords     bool
	decision     string
	original     string
	forcePassed  bool
	polished     bool
	revisions    int
	overallFinal *float64
}

// parseLog reads a chapter log: it must be a JSON object; its fields are
// read leniently (storyline_id or storyline; revisions as a count or a
// list of rounds).
func parseLog(data []byte, rel string, out *chapterLog) error {
	var m map[string]any
	if err := jsonio.Decode(data, rel, &m); err != nil {
		if errs.Is(err, errs.Schema) {
			return logSchemaErr(rel)
		}
		return err
	}
	if m == nil {
		return logSchemaErr(rel)
	}
	if s, ok := m["storyline_id"].(string); ok {
		out.storyline = s
	} else if s, ok := m["storyline"].(string); ok {
		out.storyline = s
	}
	if n, ok := jsonio.Int(m["word_count"]); ok && n >= 0 {
		out.words, out.hasWords = n, true
	}
	out.decision, _ = m["gate_decision"].(string)
	out.original, _ = m["original_decision"].(string)
	out.forcePassed, _ = m["force_passed"].(bool)
	out.polished, _ = m["polished"].(bool)
	switch v := m["revisions"].(type) {
	case []any:
		out.revisions = len(v)
	default:
		if n, ok := jsonio.Int(v); ok && n > 0 {
			out.revisions = n
		} else if n, ok := jsonio.Int(m["revision_count"]); ok && n > 0 {
			out.revisions = n
		}
	}
	if f, ok := jsonio.Float(m["overall_final"]); ok {
		out.overallFinal = floatp(f)
	}
	return nil
}

func logSchemaErr(rel string) error {
	return errs.Newf(errs.Schema, "%s：章节日志必须是 JSON 对象", "%s: a chapter log must be a JSON object", rel).With("file", rel).
		Hint("修正或删除该日志文件（报告会改为读取正文统计字数）", "fix or delete the log file (the report then counts the chapter text)")
}

var reviewRE = regexp.MustCompile(`^chapter-([0-9]{3,})-logic-review\.json$`)

// collectLogicReviews reads the latest MaxLogicReviews reports of
// reviews/ (one directory listing; only those few files are parsed).
func (r *Report) collectLogicReviews(root *project.Root, minScore int) error {
	abs, err := root.Abs("reviews")
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return errs.Newf(errs.IO, "无法列出 reviews：%v", "cannot list reviews: %v", err).With("file", "reviews")
	}
	var chs []int
	for _, e := range entries {
		m := reviewRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || layout.LogicReview(n) != "reviews/"+e.Name() {
			continue // a non-canonical padding would name another file
		}
		chs = append(chs, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(chs)))
	if len(chs) > MaxLogicReviews {
		chs = chs[:MaxLogicReviews]
	}
	for _, c := range chs {
		rel := layout.LogicReview(c)
		data, err := root.ReadFile(rel)
		if err != nil {
			return err
		}
		lr, err := eval.ParseLogicReview(data, rel, c)
		if err != nil {
			return err
		}
		v := LogicReview{Chapter: c, OverallScore: lr.OverallScore, Issues: len(lr.Issues), High: lr.HighCount(),
			Summary: lr.Summary, File: rel, Blocking: lr.Blocks(minScore)}
		for _, is := range lr.Issues {
			switch is.Severity {
			case "medium":
				v.Medium++
			case "low":
				v.Low++
			}
		}
		r.LogicReviews = append(r.LogicReviews, v)
	}
	return nil
}

func floatp(f float64) *float64 { return &f }

func itoa(n int) string { return strconv.Itoa(n) }
