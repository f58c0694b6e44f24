package report

import (
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
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
	hasEval := false
	if data, ok, err := readIfExists(root, evalRel); err != nil {
		return ch, nil, err
	} else if ok {
		hasEval = true
		ev, err := eval.ParseCommitted(data, evalRel, c)
		if err != nil {
			return ch, nil, err
		}
		ch.Overall = floatp(ev.Overall)
		ch.SecondaryOverall = ev.Secondary
		ch.OverallFinal = floatp(ev.Final())
		ch.GateDecision = ev.Decision
		ch.OriginalDecision = ev.Original
		ch.Revisions = ev.Revisions
		ch.ForcePassed = ev.ForcePassed
		ch.Polished = ev.Polished
	} else {
		missing = append(missing, "eval")
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

var reviewRE = lazyre.New(`^chapter-([0-9]{3,})-logic-review\.json$`)

// collectLogicReviews reads the latest MaxLogicReviews reports of
// reviews/ (one directory listing; only those few files are parsed).
func (r *Report) collectLogicReviews(root *project.Root, minScore int) error {
	entries, err := root.ReadDir(layout.ReviewsDir)
	if err != nil {
		return err
	}
	var chs []int
	for _, e := range entries {
		m := reviewRE().FindStringSubmatch(e.Name())
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
	if len(chs) > maxLogicReviews {
		chs = chs[:maxLogicReviews]
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
