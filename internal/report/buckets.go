package report

import (
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/runlog"
)

// maxColumns caps the data columns of the per-chapter charts (score,
// words, storyline strip) and the rows of the per-chapter Markdown table:
// up to 200 chapters get one column each; a longer project is grouped
// into buckets of the smallest size in 1, 2, 5, 10, 20, 50, 100, … that
// keeps the count at or below it (2,000 chapters → 200 buckets of 10).
const maxColumns = 200

// maxSpanRows caps the rows of the foreshadowing chart and table.
const maxSpanRows = 200

// bucketSize is the number of chapters per column for n chapters.
func bucketSize(n int) int {
	for mag := 1; ; mag *= 10 {
		for _, f := range []int{1, 2, 5} {
			size := f * mag
			if (n+size-1)/size <= maxColumns {
				return size
			}
		}
	}
}

// column aggregates the chapters of one bucket.
type column struct {
	first, last int // chapter range covered
	chapters    int
	scored      int
	scoreSum    float64
	minScore    float64
	words       int
	revisions   int
	marker      string
	gate        GateCounts
	lines       []int // chapters per storyline, aligned with Report.Storylines
	tokens      runlog.Tokens
	cost        runlog.Cost
}

// mean is the mean overall_final of the bucket (ok false when unscored).
func (c *column) mean() (float64, bool) {
	if c.scored == 0 {
		return 0, false
	}
	return round2(c.scoreSum / float64(c.scored)), true
}

// meanWords is the mean word count per chapter of the bucket.
func (c *column) meanWords() int {
	if c.chapters == 0 {
		return 0
	}
	return (c.words + c.chapters/2) / c.chapters
}

// label names the bucket: "12" or "11–20".
func (c *column) label() string {
	if c.first == c.last {
		return strconv.Itoa(c.first)
	}
	return strconv.Itoa(c.first) + "–" + strconv.Itoa(c.last)
}

// columns groups the report's chapters into buckets.
func (r *Report) columns() ([]column, int) {
	n := len(r.Chapters)
	if n == 0 {
		return nil, 1
	}
	size := bucketSize(n)
	lineIdx := map[string]int{}
	for i, s := range r.Storylines {
		lineIdx[s.ID] = i
	}
	cols := make([]column, (n+size-1)/size)
	for i := range cols {
		cols[i] = column{first: r.Chapters[i*size].Chapter, lines: make([]int, len(r.Storylines))}
	}
	for i, ch := range r.Chapters {
		c := &cols[i/size]
		c.last = ch.Chapter
		c.chapters++
		c.words += ch.WordCount
		c.revisions += ch.Revisions
		c.gate.add(ch.Marker)
		c.tokens.AddTokens(ch.Tokens)
		for cur, amount := range ch.Cost {
			if c.cost == nil {
				c.cost = runlog.Cost{}
			}
			c.cost.Add(cur, amount)
		}
		if markerRank(ch.Marker) > markerRank(c.marker) || c.marker == "" {
			c.marker = ch.Marker
		}
		if ch.OverallFinal != nil {
			if c.scored == 0 || *ch.OverallFinal < c.minScore {
				c.minScore = *ch.OverallFinal
			}
			c.scored++
			c.scoreSum += *ch.OverallFinal
		}
		if k, ok := lineIdx[ch.StorylineID]; ok {
			c.lines[k]++
		}
	}
	return cols, size
}

// spanRows picks the foreshadowing items drawn (and tabulated in
// Markdown): every item when there are at most MaxSpanRows; otherwise
// overdue items first, then open ones planted most recently, then
// resolved ones resolved most recently — shown in planted order.
func (r *Report) spanRows() []SpanItem {
	items := r.Foreshadowing.Items
	if len(items) <= maxSpanRows {
		return items
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	class := func(s SpanItem) int {
		switch {
		case s.Overdue:
			return 0
		case s.Status != "resolved":
			return 1
		}
		return 2
	}
	recent := func(s SpanItem) int {
		if s.ResolvedChapter != nil {
			return *s.ResolvedChapter
		}
		return spanStart(s)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := items[idx[a]], items[idx[b]]
		if class(x) != class(y) {
			return class(x) < class(y)
		}
		return recent(x) > recent(y)
	})
	idx = idx[:maxSpanRows]
	sort.Ints(idx) // back to planted order
	out := make([]SpanItem, len(idx))
	for i, k := range idx {
		out[i] = items[k]
	}
	return out
}
