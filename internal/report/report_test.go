package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/settings"
)

func TestBucketSize(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 1}, {1, 1}, {200, 1}, {201, 2}, {400, 2}, {401, 5}, {1000, 5}, {1001, 10}, {2000, 10}, {2001, 20}, {100000, 500},
	} {
		if got := bucketSize(c.n); got != c.want {
			t.Errorf("BucketSize(%d) = %d, want %d", c.n, got, c.want)
		}
		if c.n > 0 && (c.n+bucketSize(c.n)-1)/bucketSize(c.n) > maxColumns {
			t.Errorf("BucketSize(%d) leaves more than %d columns", c.n, maxColumns)
		}
	}
}

func TestMarker(t *testing.T) {
	for _, c := range []struct {
		ch    Chapter
		known bool
		want  string
	}{
		{Chapter{GateDecision: "pass"}, true, MarkPass},
		{Chapter{GateDecision: "pass", Polished: true}, true, MarkPolish},
		{Chapter{GateDecision: "pass", OriginalDecision: "polish"}, true, MarkPolish},
		{Chapter{GateDecision: "pass", Revisions: 1, Polished: true}, true, MarkRevise},
		{Chapter{GateDecision: "accepted", Revisions: 1}, true, MarkAccepted},
		{Chapter{GateDecision: "pass", Revisions: 2, ForcePassed: true}, true, MarkForcePassed},
		{Chapter{}, true, MarkUnknown},
		{Chapter{}, false, MarkUnknown},
	} {
		if got := marker(c.ch, c.known); got != c.want {
			t.Errorf("marker(%+v) = %s, want %s", c.ch, got, c.want)
		}
	}
}

func fptr(f float64) *float64 { return &f }

// bigReport builds n chapters rotating over three storylines.
func bigReport(n int) *Report {
	r := &Report{Headline: Headline{ChaptersCommitted: n}}
	r.Storylines = []Storyline{{ID: "a"}, {ID: "b"}, {ID: "c", Dormant: true}}
	for c := 1; c <= n; c++ {
		ch := Chapter{Chapter: c, StorylineID: []string{"a", "b"}[c%2], WordCount: 1000 + c%7, OverallFinal: fptr(3 + float64(c%20)/10), Marker: MarkPass}
		if c%13 == 0 {
			ch.Marker, ch.Revisions = MarkRevise, 1
		}
		if c == 2000 {
			ch.Marker = MarkForcePassed
		}
		r.Chapters = append(r.Chapters, ch)
	}
	for i := 1; i <= 2000; i++ {
		s := SpanItem{ID: fmt.Sprintf("F-%04d", i), Status: []string{"planted", "advanced", "resolved"}[i%3], Scope: []string{"short", "medium", "long"}[i%3], PlantedChapter: intp(1 + i*(n-1)/2000)}
		if s.Status == "resolved" {
			s.ResolvedChapter = intp(min(n, *s.PlantedChapter+5))
		}
		if i%50 == 0 {
			s.Overdue, s.Scope, s.Status, s.ResolvedChapter = true, "short", "planted", nil
		}
		r.Foreshadowing.Items = append(r.Foreshadowing.Items, s)
	}
	return r
}

func count(doc, re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(doc, -1)) }

// A 2,000-chapter project stays readable: every chart is capped.
func TestHTMLCapsElements(t *testing.T) {
	r := bigReport(2000)
	doc := string(r.HTML())
	if got := count(doc, `class="pt pt-`); got != 200 {
		t.Errorf("score points = %d, want 200 (buckets of 10)", got)
	}
	if got := count(doc, `class="bar"`); got != 200 {
		t.Errorf("bars = %d, want 200", got)
	}
	if got := count(doc, `class="span `); got != maxSpanRows {
		t.Errorf("spans = %d, want %d", got, maxSpanRows)
	}
	// Every overdue item (40 of them) is among the drawn rows.
	if got := count(doc, `class="span span-overdue"`); got != 40 {
		t.Errorf("overdue spans = %d, want 40", got)
	}
	// Two lines alternate inside every bucket: 2 cells per column.
	if got := count(doc, `class="cell"`); got != 400 {
		t.Errorf("cells = %d, want 400", got)
	}
	// The bucket holding chapter 2000 shows its most severe outcome.
	if !strings.Contains(doc, `class="pt pt-force_passed"`) {
		t.Error("the force-passed chapter's bucket is not marked")
	}
	if !strings.Contains(doc, "每 10 章汇总为一个数据点") {
		t.Error("the bucketing rule is not stated")
	}
	md := string(r.Markdown())
	if !strings.Contains(md, "\n| 1991–2000 |") || strings.Contains(md, "\n| 2000 |") {
		t.Error("the Markdown chapter table is not bucketed like the charts")
	}
	if got := strings.Count(md, "\n| F-"); got != maxSpanRows {
		t.Errorf("markdown foreshadowing rows = %d, want %d", got, maxSpanRows)
	}
}

func TestSpanRowsOrder(t *testing.T) {
	r := bigReport(2000)
	rows := r.spanRows()
	for i := 1; i < len(rows); i++ {
		if spanStart(rows[i]) < spanStart(rows[i-1]) {
			t.Fatalf("rows are not in planted order at %d", i)
		}
	}
	small := &Report{Foreshadowing: Foreshadowing{Items: r.Foreshadowing.Items[:5]}}
	if got := small.spanRows(); len(got) != 5 {
		t.Errorf("a small list is drawn whole, got %d", len(got))
	}
}

func TestDeterministic(t *testing.T) {
	a, b := bigReport(500), bigReport(500)
	if string(a.HTML()) != string(b.HTML()) || string(a.Markdown()) != string(b.Markdown()) {
		t.Error("the same report renders differently")
	}
}

func TestMdCell(t *testing.T) {
	if got := mdCell("a|b\nc\\d "); got != `a\|b c\\d` {
		t.Errorf("mdCell = %q", got)
	}
}

func TestHTMLEscapes(t *testing.T) {
	r := &Report{Title: `<script>x</script>`, Chapters: []Chapter{{Chapter: 1, OverallFinal: fptr(4), Marker: MarkPass, StorylineID: "a"}},
		Storylines: []Storyline{{ID: "a"}}, Headline: Headline{ChaptersCommitted: 1},
		PendingRevisions: []PendingRevision{{Chapter: 1, RevisionNotes: `<b>&"`}}}
	doc := string(r.HTML())
	if strings.Contains(doc, "<script>") || strings.Contains(doc, "<b>&") {
		t.Error("text from project files is not escaped")
	}
}

func TestHeadlineText(t *testing.T) {
	in, st := 7, "drafted"
	h := Headline{ChaptersCommitted: 6, TotalWords: 9000, MeanScore: fptr(3.8), StateVersion: 6, CurrentVolume: 1,
		OrchestratorState: "WRITING", InflightChapter: &in, PipelineStage: &st, ForeshadowingOpen: 3, ForeshadowingOverdue: 1, PendingRevisions: 0}
	want := "已提交 6 章，共 9000 字，平均分 3.8/5.0；状态版本 6；第 1 卷 WRITING，进行中第 7 章（drafted）；伏笔未回收 3（逾期 1）；待处理修订 0"
	if got := h.Text(); got != want {
		t.Errorf("Text() = %q\nwant      %q", got, want)
	}
}

// The committed-eval and log readers never panic, whatever the bytes.
func FuzzReaders(f *testing.F) {
	f.Add([]byte(`{"chapter":1,"overall":4,"metadata":{"gate":{"decision":"pass","revision_count":1},"judges":{"overall_final":3.9,"secondary":{"overall":3.9}}}}`))
	f.Add([]byte(`{"eval_used":{"chapter":1,"overall":4},"metadata":null}`))
	f.Add([]byte(`{"storyline_id":"a","word_count":12,"revisions":[1,2]}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = eval.ParseCommitted(data, "e.json", 1)
		_, _ = runlog.ParseChapterLog(data, "l.json", 1)
	})
}

// HeadlineOf (for novel-step status) agrees with the full report.
func TestHeadlineOfMatchesCollect(t *testing.T) {
	root := fixtureProject(t)
	r, err := Collect(root, settings.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	h, err := HeadlineOf(root)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(h)
	b, _ := json.Marshal(r.Headline)
	if string(a) != string(b) || h.Text() != r.Headline.Text() {
		t.Errorf("HeadlineOf = %s\nCollect   = %s", a, b)
	}
	if h.ChaptersCommitted != 5 || h.TotalWords != 3239 || h.PendingRevisions != 1 {
		t.Errorf("unexpected headline %+v", h)
	}
}

// Usage in buckets: a column sums its chapters' tokens and cost per
// currency; the chart shows the main currency, the Markdown table both.
func TestUsageBuckets(t *testing.T) {
	r := bigReport(2000)
	i64 := func(n int64) *int64 { return &n }
	for i := range r.Chapters {
		c := &r.Chapters[i]
		c.Tokens = runlog.Tokens{Prompt: i64(1000), Completion: i64(500)}
		c.Cost = runlog.Cost{"CNY": 0.01}
		if c.Chapter == 3 {
			c.Cost["USD"] = 0.5
		}
		r.Headline.Tokens.AddTokens(c.Tokens)
		if r.Headline.Cost == nil {
			r.Headline.Cost = runlog.Cost{}
		}
		for cur, v := range c.Cost {
			r.Headline.Cost.Add(cur, v)
		}
	}
	doc := string(r.HTML())
	if got := count(doc, `class="bar"`); got != 400 {
		t.Errorf("bars = %d, want 200 word + 200 cost", got)
	}
	if !strings.Contains(doc, "<title>第 1–10 章 · 0.1 CNY + 0.5 USD · 输入 10000 / 输出 5000</title>") {
		t.Error("the first bucket's usage tooltip is wrong")
	}
	if !strings.Contains(doc, "柱高为费用（CNY）") || !strings.Contains(doc, `<div class="v">20 CNY + 0.5 USD</div>`) {
		t.Error("the cost chart or card is wrong")
	}
	md := string(r.Markdown())
	if !strings.Contains(md, "| 15000 | 0.1 CNY + 0.5 USD |\n| 11–20 |") || !strings.Contains(md, "| tokens | 输入 2000000 / 输出 1000000 |") {
		t.Errorf("the Markdown usage columns are wrong:\n%s", md[:min(len(md), 3000)])
	}
	if niceCeil(0.0123) != 0.02 || niceCeil(0.05) != 0.05 || niceCeil(7) != 10 || fmtCost(0.000544) != "0.000544" {
		t.Error("axis or cost formatting")
	}
}
