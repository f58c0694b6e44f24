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
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/textmeasure"
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
	lg := &runlog.ChapterLog{}
	hasLog := false
	if data, ok, err := readIfExists(root, logRel); err != nil {
		return ch, nil, err
	} else if ok {
		if lg, err = runlog.ParseChapterLog(data, logRel, c); err != nil {
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
		ch.StorylineID = lg.StorylineID
		if lg.WordCount != nil {
			ch.WordCount = *lg.WordCount
		}
		// The eval's gate record is the primary source; the log fills gaps.
		if ch.GateDecision == "" {
			ch.GateDecision = lg.GateDecision
		}
		if ch.OriginalDecision == "" {
			ch.OriginalDecision = lg.OriginalDecision
		}
		ch.ForcePassed = ch.ForcePassed || lg.ForcePassed
		ch.Polished = ch.Polished || lg.Polished
		if ch.Revisions == 0 {
			ch.Revisions = lg.Revisions
		}
		if ch.OverallFinal == nil && lg.OverallFinal != nil {
			ch.OverallFinal = lg.OverallFinal
		}
		ch.Requests, ch.Tokens, ch.Cost, ch.UnpricedRequests = lg.Requests, lg.Tokens, lg.Cost, lg.UnpricedRequests
		ch.EstimatedRequests = lg.EstimatedRequests
	}
	if !hasLog || lg.WordCount == nil {
		// Only a chapter without a logged word count is read.
		rel := layout.Chapter(c)
		if root.IsFile(rel) {
			text, err := products.ChapterText(root, rel)
			if err != nil {
				return ch, nil, err
			}
			ch.WordCount = textmeasure.WordCount(text)
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
	case ch.Polished || ch.OriginalDecision == gate.Polish || ch.GateDecision == gate.Polish:
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

// evalDoc is the part of a committed eval the report reads. Everything
// else (scores, checks, the embedded gate file and secondary eval) is only
// scanned, never decoded into maps: a 2,000-chapter project has 2,000 of
// these files.
type evalDoc struct {
	Chapter       json.RawMessage `json:"chapter"`
	ChapterNumber json.RawMessage `json:"chapter_number"`
	Overall       json.RawMessage `json:"overall"`
	Metadata      *struct {
		Gate      *gateMeta `json:"gate"`
		Secondary *struct {
			Overall any `json:"overall"`
		} `json:"secondary"`
		Judges *struct {
			OverallFinal any `json:"overall_final"`
			Secondary    *struct {
				Overall any `json:"overall"`
			} `json:"secondary"`
		} `json:"judges"`
	} `json:"metadata"`
	EvalUsed json.RawMessage `json:"eval_used"`
}

// gateMeta holds the gate file fields; they are read leniently (a value
// of another type is ignored) since they are bookkeeping the suite wrote.
type gateMeta struct {
	Decision         any `json:"decision"`
	OriginalDecision any `json:"original_decision"`
	Polished         any `json:"polished"`
	ForcePassed      any `json:"force_passed"`
	RevisionCount    any `json:"revision_count"`
	Revisions        any `json:"revisions"`
	OverallFinal     any `json:"overall_final"`
}

// parseCommittedEval reads a committed eval: syntax errors are
// E_INVALID_JSON with line and column; chapter and overall must be valid
// as in a judge's eval (SPEC §3.2). The wrapped form {"eval_used":{…}} is
// handed to the judge's own parser.
func parseCommittedEval(data []byte, rel string, c int, out *committedEval) error {
	var doc evalDoc
	if err := jsonio.Decode(data, rel, &doc); err != nil {
		if errs.Is(err, errs.Schema) {
			return evalSchemaErr(rel, "必须是 JSON 对象，metadata 必须是 {gate, secondary, judges} 对象", "must be a JSON object whose metadata is an object {gate, secondary, judges}")
		}
		return err
	}
	if len(doc.Overall) == 0 && len(doc.EvalUsed) > 0 {
		ev, err := eval.Parse(data, rel, c)
		if err != nil {
			return err
		}
		out.overall = ev.Overall
		var inner evalDoc
		if json.Unmarshal(doc.EvalUsed, &inner) == nil && doc.Metadata == nil {
			doc.Metadata = inner.Metadata
		}
	} else {
		ch := doc.Chapter
		if len(ch) == 0 || string(ch) == "null" {
			ch = doc.ChapterNumber
		}
		n, ok := jsonio.RawInt(ch)
		if !ok || n != c {
			return evalSchemaErr(rel, "chapter 必须是 "+itoa(c), "chapter must be "+itoa(c)).With("field", "chapter")
		}
		f, ok := jsonio.RawFloat(doc.Overall)
		if !ok || f < 0 || f > 5 {
			return evalSchemaErr(rel, "overall 必须是 0 到 5 之间的数", "overall must be a number in [0,5]").With("field", "overall")
		}
		out.overall = f
	}
	md := doc.Metadata
	if md == nil {
		return nil
	}
	if g := md.Gate; g != nil {
		out.decision, _ = g.Decision.(string)
		out.original, _ = g.OriginalDecision.(string)
		out.polished, _ = g.Polished.(bool)
		out.forcePassed, _ = g.ForcePassed.(bool)
		if n, ok := jsonio.Int(g.RevisionCount); ok && n > 0 {
			out.revisions = n
		} else if n, ok := jsonio.Int(g.Revisions); ok && n > 0 {
			out.revisions = n
		}
		if f, ok := jsonio.Float(g.OverallFinal); ok {
			out.overallFinal = floatp(f)
		}
	}
	if j := md.Judges; j != nil {
		// The judges record is the commit's own summary; it wins.
		if f, ok := jsonio.Float(j.OverallFinal); ok {
			out.overallFinal = floatp(f)
		}
		if j.Secondary != nil {
			if f, ok := jsonio.Float(j.Secondary.Overall); ok {
				out.secondary = floatp(f)
			}
		}
	}
	if out.secondary == nil && md.Secondary != nil {
		if f, ok := jsonio.Float(md.Secondary.Overall); ok {
			out.secondary = floatp(f)
		}
	}
	return nil
}

var reviewRE = regexp.MustCompile(`^chapter-([0-9]{3,})-logic-review\.json$`)

// collectLogicReviews reads the latest MaxLogicReviews reports of
// reviews/ (one directory listing; only those few files are parsed).
func (r *Report) collectLogicReviews(root *project.Root, minScore int) error {
	entries, err := root.ReadDir(layout.ReviewsDir)
	if err != nil {
		return err
	}
	var chs []int
	for _, e := range entries {
		m := reviewRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || layout.LogicReview(n) != layout.ReviewsDir+"/"+e.Name() {
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
