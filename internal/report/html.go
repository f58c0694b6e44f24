package report

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Chart ids and data-element classes (a browser test counts them):
//
//	svg#chart-score       .pt (one per column with a score; .pt-<marker> gives the shape), .line, .revn
//	svg#chart-words       .bar (one per column with words)
//	svg#chart-usage       .bar (one per column with a cost, or tokens when nothing is priced)
//	svg#chart-foreshadow  .span (one per drawn item; .span-resolved/.span-open/.span-overdue), .target
//	svg#chart-storylines  .cell (one per column × storyline with chapters), .dormant
const (
	ChartScore      = "chart-score"
	ChartWords      = "chart-words"
	ChartForeshadow = "chart-foreshadow"
	ChartStorylines = "chart-storylines"
)

const css = `:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--card:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.6 system-ui,-apple-system,"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC","Noto Sans SC","Source Han Sans SC","WenQuanYi Micro Hei",sans-serif}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.sub{color:var(--muted);margin:0 0 16px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.card .k{color:var(--muted);font-size:12px}.card .v{font-size:22px;font-weight:600}
figure{margin:0;overflow-x:auto}figcaption{color:var(--muted);font-size:12px;margin-top:4px}
svg{display:block;width:100%;height:auto;font-size:11px}
svg text{fill:#57606a;font-family:inherit}
.grid{stroke:#eaeef2;stroke-width:1}.axis{stroke:#8c959f;stroke-width:1}
.thr{stroke-width:1;stroke-dasharray:4 3}.thr-pass{stroke:#2e7d32}.thr-polish{stroke:#1565c0}.thr-revise{stroke:#ef6c00}
.line{fill:none;stroke:#57606a;stroke-width:1.5}
.pt-pass{fill:#2e7d32}.pt-polish{fill:#1565c0}.pt-revise{fill:#ef6c00}.pt-force_passed{fill:#c62828}
.pt-accepted{fill:#fff;stroke:#6a1b9a;stroke-width:2}.pt-unknown{fill:#8c959f}
.revn{fill:#ef6c00;font-size:10px}
.bar{fill:#5b8def}
.target{fill:#eaeef2}.span{stroke-width:0}.span-resolved{fill:#2e7d32}.span-open{fill:#5b8def}.span-overdue{fill:#c62828}
.now{stroke:#c62828;stroke-width:1;stroke-dasharray:2 2}
.dormant{fill:url(#hatch)}
.legend{display:flex;flex-wrap:wrap;gap:14px;color:var(--muted);font-size:12px;margin:4px 0 8px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.sw{display:inline-block;width:12px;height:12px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--card)}td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#c62828;font-weight:600}.empty{color:var(--muted)}
ul.warn{color:#9a6700}
`

var markerNames = map[string]string{
	MarkPass: "通过 pass", MarkPolish: "润色 polish", MarkRevise: "修订 revise",
	MarkForcePassed: "强制通过 force_passed", MarkAccepted: "人工接受 accepted", MarkUnknown: "未知 unknown",
}

var lineColors = []string{"#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#455a64"}

// HTML renders the report as one self-contained page: inline CSS and
// inline SVG, no scripts, no network. The same report gives the same bytes.
func (r *Report) HTML() []byte {
	var b strings.Builder
	e := html.EscapeString
	title := "小说健康报告"
	if r.Title != "" {
		title = r.Title + " · 健康报告"
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"zh-CN\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + e(title) + "</title>\n<style>\n" + css + "</style>\n</head>\n<body>\n<main>\n")
	b.WriteString("<h1>" + e(title) + "</h1>\n")
	h := r.Headline
	b.WriteString("<p class=\"sub\">第 " + itoa(h.CurrentVolume) + " 卷 · " + e(h.OrchestratorState) + stageText(h) + "</p>\n")
	r.htmlCards(&b)
	cols, size := r.columns()
	unit := "每章一个数据点"
	if size > 1 {
		unit = "每 " + itoa(size) + " 章汇总为一个数据点（均值；标记取该组最需关注的一章）"
	}

	b.WriteString("<h2>评分 / Score per chapter</h2>\n")
	b.WriteString(legend())
	b.WriteString("<figure>\n")
	r.svgScore(&b, cols)
	b.WriteString("<figcaption>overall_final（双评审章节取较低者）；虚线为门控阈值 pass/polish/revise；↻N 为修订轮数。" + unit + "。</figcaption>\n</figure>\n")

	b.WriteString("<h2>字数 / Word count per chapter</h2>\n<figure>\n")
	r.svgWords(&b, cols)
	b.WriteString("<figcaption>正文非空白字符数（不含 # 标题符号）。" + unit + "。</figcaption>\n</figure>\n")

	b.WriteString("<h2>用量与费用 / Tokens and cost per chapter</h2>\n<figure>\n")
	what := r.svgUsage(&b, cols)
	caption := "每章所有模型请求（含重问、续写与失败的请求）的合计"
	if what != "" {
		caption += "；柱高为" + what
	}
	if note := r.usageNote(); note != "" {
		caption += "；" + note
	}
	b.WriteString("<figcaption>" + e(caption) + "。" + unit + "。</figcaption>\n</figure>\n")
	if r.OtherRuns != nil {
		b.WriteString("<h2>" + otherRunsTitle + "</h2>\n<p>" + e(otherRunsNote) + "。</p>\n")
		table(&b, otherRunsHead, r.otherRunsRows(), map[int]bool{2: true, 3: true}, "")
	}

	b.WriteString("<h2>伏笔 / Foreshadowing spans</h2>\n")
	b.WriteString("<div class=\"legend\"><span><i class=\"sw\" style=\"background:#2e7d32\"></i>已回收 resolved</span>" +
		"<span><i class=\"sw\" style=\"background:#5b8def\"></i>未回收 open（延伸到当前章）</span>" +
		"<span><i class=\"sw\" style=\"background:#c62828\"></i>逾期短线 overdue short</span>" +
		"<span><i class=\"sw\" style=\"background:#eaeef2\"></i>计划回收区间 target range</span></div>\n")
	b.WriteString("<figure>\n")
	drawn, undrawn := r.svgForeshadow(&b)
	f := r.Foreshadowing
	note := "共 " + itoa(f.Total) + " 条，未回收 " + itoa(f.Open) + "，已回收 " + itoa(f.Resolved) + "，逾期短线 " + itoa(f.OverdueShort) + "。"
	if len(f.Items) > drawn+undrawn {
		note += "条目超过 " + itoa(maxSpanRows) + " 条：优先显示逾期、最近埋设的未回收与最近回收的条目，其余 " + itoa(len(f.Items)-drawn-undrawn) + " 条未绘制。"
	}
	if undrawn > 0 {
		note += itoa(undrawn) + " 条没有埋设章节，未绘制。"
	}
	b.WriteString("<figcaption>" + e(note) + "</figcaption>\n</figure>\n")

	b.WriteString("<h2>故事线轮换 / Storyline rotation</h2>\n<figure>\n")
	r.svgStorylines(&b, cols)
	b.WriteString("<figcaption>每格颜色深浅 = 该组章节中属于该故事线的比例；斜线底纹 = 该卷计划中的休眠线。" + unit + "。</figcaption>\n</figure>\n")
	r.htmlStorylineTable(&b)

	b.WriteString("<h2>分卷 / Volumes</h2>\n")
	r.htmlVolumes(&b)
	b.WriteString("<h2>待处理修订 / Pending revisions</h2>\n")
	r.htmlPending(&b)
	b.WriteString("<h2>最近的逻辑审查 / Latest logic reviews</h2>\n")
	r.htmlReviews(&b)
	if len(r.Warnings) > 0 {
		b.WriteString("<h2>提示 / Warnings</h2>\n<ul class=\"warn\">\n")
		for _, w := range r.Warnings {
			b.WriteString("<li>" + e(w) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	return []byte(b.String())
}

func stageText(h Headline) string {
	if h.InflightChapter == nil {
		return ""
	}
	s := " · 进行中：第 " + itoa(*h.InflightChapter) + " 章"
	if h.PipelineStage != nil {
		s += "（" + html.EscapeString(*h.PipelineStage) + "）"
	}
	return s
}

func (r *Report) htmlCards(b *strings.Builder) {
	h := r.Headline
	mean := "—"
	if h.MeanScore != nil {
		mean = fmtScore(*h.MeanScore)
	}
	card := func(k, v string, bad bool) {
		cls := "v"
		if bad {
			cls = "v bad"
		}
		b.WriteString("<div class=\"card\"><div class=\"k\">" + k + "</div><div class=\"" + cls + "\">" + html.EscapeString(v) + "</div></div>\n")
	}
	b.WriteString("<div class=\"cards\">\n")
	card("已提交章节 chapters", itoa(h.ChaptersCommitted), false)
	card("总字数 words", itoa(h.TotalWords), false)
	card("平均分 mean score", mean, false)
	card("状态版本 state version", itoa(h.StateVersion), false)
	card("当前卷 / 状态", "第 "+itoa(h.CurrentVolume)+" 卷 "+h.OrchestratorState, false)
	card("修订轮次 revisions", itoa(h.RevisionsTotal), false)
	if n, ok := tokenSum(h.Tokens); ok {
		card("tokens（输入 + 输出）", strconv.FormatInt(n, 10), false)
	}
	card("费用 cost", h.headlineCost(), h.UnpricedRequests > 0 || h.EstimatedRequests > 0)
	card("强制通过 force passed", itoa(h.Gate.ForcePassed), h.Gate.ForcePassed > 0)
	card("未回收伏笔 open", itoa(h.ForeshadowingOpen), false)
	card("逾期短线 overdue", itoa(h.ForeshadowingOverdue), h.ForeshadowingOverdue > 0)
	card("待处理修订 pending", itoa(h.PendingRevisions), h.PendingRevisions > 0)
	b.WriteString("</div>\n")
}

func legend() string {
	var b strings.Builder
	b.WriteString("<div class=\"legend\">")
	for _, m := range Markers {
		b.WriteString("<span><svg width=\"12\" height=\"12\" viewBox=\"0 0 12 12\" style=\"width:12px\">")
		b.WriteString(shape(m, 6, 6, 4.5, "lg pt-"+m, ""))
		b.WriteString("</svg>" + markerNames[m] + "</span>")
	}
	b.WriteString("</div>\n")
	return b.String()
}

// f1 formats a coordinate with one decimal (deterministic, compact).
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// fmtScore formats a score with up to two decimals.
func fmtScore(x float64) string { return strconv.FormatFloat(round2(x), 'f', -1, 64) }

// shape draws one marker centred at (x, y) with radius s.
func shape(marker string, x, y, s float64, class, title string) string {
	t := ""
	end := "/>"
	if title != "" {
		end = "><title>" + html.EscapeString(title) + "</title>"
	}
	var el string
	switch marker {
	case MarkPolish:
		el = "<rect class=\"" + class + "\" x=\"" + f1(x-s*0.85) + "\" y=\"" + f1(y-s*0.85) + "\" width=\"" + f1(s*1.7) + "\" height=\"" + f1(s*1.7) + "\"" + end
		t = "</rect>"
	case MarkRevise:
		el = "<polygon class=\"" + class + "\" points=\"" + f1(x) + "," + f1(y-s*1.15) + " " + f1(x+s*1.1) + "," + f1(y+s*0.85) + " " + f1(x-s*1.1) + "," + f1(y+s*0.85) + "\"" + end
		t = "</polygon>"
	case MarkForcePassed:
		el = "<polygon class=\"" + class + "\" points=\"" + f1(x) + "," + f1(y-s*1.2) + " " + f1(x+s*1.2) + "," + f1(y) + " " + f1(x) + "," + f1(y+s*1.2) + " " + f1(x-s*1.2) + "," + f1(y) + "\"" + end
		t = "</polygon>"
	default:
		r := s
		if marker == MarkAccepted {
			r = s * 0.8
		}
		el = "<circle class=\"" + class + "\" cx=\"" + f1(x) + "\" cy=\"" + f1(y) + "\" r=\"" + f1(r) + "\"" + end
		t = "</circle>"
	}
	if title == "" {
		return el
	}
	return el + t
}

// chart geometry shared by the per-chapter charts.
const (
	chartW = 1000.0
	padL   = 48.0
	padR   = 12.0
)

func colX(i, n int) (center, width float64) {
	w := (chartW - padL - padR) / float64(n)
	return padL + (float64(i)+0.5)*w, w
}

// xLabels writes at most ~10 chapter labels under a per-chapter chart.
func xLabels(b *strings.Builder, cols []column, y float64) {
	n := len(cols)
	step := max(1, (n+9)/10)
	for i := 0; i < n; i += step {
		x, _ := colX(i, n)
		b.WriteString("<text x=\"" + f1(x) + "\" y=\"" + f1(y) + "\" text-anchor=\"middle\">" + cols[i].label() + "</text>\n")
	}
}

func empty(b *strings.Builder, id, msg string) {
	b.WriteString("<svg id=\"" + id + "\" viewBox=\"0 0 1000 60\" role=\"img\"><text x=\"500\" y=\"34\" text-anchor=\"middle\">" + msg + "</text></svg>\n")
}

func (r *Report) svgScore(b *strings.Builder, cols []column) {
	if len(cols) == 0 {
		empty(b, ChartScore, "尚无已提交章节")
		return
	}
	const H, top, bottom = 260.0, 12.0, 28.0
	plotH := H - top - bottom
	y := func(s float64) float64 { return top + (5-s)/5*plotH }
	b.WriteString("<svg id=\"" + ChartScore + "\" viewBox=\"0 0 1000 " + f1(H) + "\" role=\"img\" aria-label=\"score per chapter\">\n")
	for s := 0; s <= 5; s++ {
		yy := f1(y(float64(s)))
		b.WriteString("<line class=\"grid\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + yy + "\" y2=\"" + yy + "\"/>")
		b.WriteString("<text x=\"" + f1(padL-6) + "\" y=\"" + f1(y(float64(s))+4) + "\" text-anchor=\"end\">" + itoa(s) + "</text>\n")
	}
	t := r.GateThresholds
	for _, th := range []struct {
		name string
		v    float64
	}{{"pass", t.Pass}, {"polish", t.Polish}, {"revise", t.Revise}} {
		if th.v <= 0 || th.v > 5 {
			continue
		}
		yy := f1(y(th.v))
		b.WriteString("<line class=\"thr thr-" + th.name + "\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + yy + "\" y2=\"" + yy + "\"><title>" + th.name + " ≥ " + fmtScore(th.v) + "</title></line>\n")
	}
	var pts []string
	for i := range cols {
		if m, ok := cols[i].mean(); ok {
			x, _ := colX(i, len(cols))
			pts = append(pts, f1(x)+","+f1(y(m)))
		}
	}
	if len(pts) > 1 {
		b.WriteString("<polyline class=\"line\" points=\"" + strings.Join(pts, " ") + "\"/>\n")
	}
	for i := range cols {
		c := &cols[i]
		m, ok := c.mean()
		if !ok {
			continue
		}
		x, w := colX(i, len(cols))
		s := min(5.0, max(2.5, w*0.35))
		title := "第 " + c.label() + " 章 · " + fmtScore(m)
		if c.chapters > 1 {
			title += "（均值，最低 " + fmtScore(c.minScore) + "）"
		}
		title += " · " + markerNames[c.marker]
		if c.revisions > 0 {
			title += " · 修订 " + itoa(c.revisions) + " 轮"
		}
		if c.chapters > 1 {
			title += " · " + gateSummary(c.gate)
		}
		b.WriteString(shape(c.marker, x, y(m), s, "pt pt-"+c.marker, title) + "\n")
		if c.revisions > 0 && w >= 14 {
			b.WriteString("<text class=\"revn\" x=\"" + f1(x) + "\" y=\"" + f1(y(m)-s-4) + "\" text-anchor=\"middle\">↻" + itoa(c.revisions) + "</text>\n")
		}
	}
	b.WriteString("<line class=\"axis\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + f1(H-bottom) + "\" y2=\"" + f1(H-bottom) + "\"/>\n")
	xLabels(b, cols, H-bottom+16)
	b.WriteString("</svg>\n")
}

func gateSummary(g GateCounts) string {
	var parts []string
	for _, p := range []struct {
		m string
		n int
	}{{MarkPass, g.Pass}, {MarkPolish, g.Polish}, {MarkRevise, g.Revise}, {MarkForcePassed, g.ForcePassed}, {MarkAccepted, g.Accepted}, {MarkUnknown, g.Unknown}} {
		if p.n > 0 {
			parts = append(parts, p.m+" "+itoa(p.n))
		}
	}
	return strings.Join(parts, "，")
}

// niceMax rounds v up to 1, 2 or 5 × 10^k.
func niceMax(v int) int {
	if v <= 0 {
		return 1
	}
	for mag := 1; ; mag *= 10 {
		for _, f := range []int{1, 2, 5} {
			if f*mag >= v {
				return f * mag
			}
		}
	}
}

func (r *Report) svgWords(b *strings.Builder, cols []column) {
	if len(cols) == 0 {
		empty(b, ChartWords, "尚无已提交章节")
		return
	}
	const H, top, bottom = 200.0, 12.0, 28.0
	plotH := H - top - bottom
	peak := 0
	for i := range cols {
		peak = max(peak, cols[i].meanWords())
	}
	top5 := niceMax(peak)
	y := func(v int) float64 { return top + (1-float64(v)/float64(top5))*plotH }
	b.WriteString("<svg id=\"" + ChartWords + "\" viewBox=\"0 0 1000 " + f1(H) + "\" role=\"img\" aria-label=\"word count per chapter\">\n")
	for k := 0; k <= 4; k++ {
		v := top5 * k / 4
		yy := f1(y(v))
		b.WriteString("<line class=\"grid\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + yy + "\" y2=\"" + yy + "\"/>")
		b.WriteString("<text x=\"" + f1(padL-6) + "\" y=\"" + f1(y(v)+4) + "\" text-anchor=\"end\">" + itoa(v) + "</text>\n")
	}
	for i := range cols {
		c := &cols[i]
		v := c.meanWords()
		if v <= 0 {
			continue
		}
		x, w := colX(i, len(cols))
		bw := max(1.0, w*0.8)
		title := "第 " + c.label() + " 章 · " + itoa(v) + " 字"
		if c.chapters > 1 {
			title += "（每章均值，合计 " + itoa(c.words) + "）"
		}
		b.WriteString("<rect class=\"bar\" x=\"" + f1(x-bw/2) + "\" y=\"" + f1(y(v)) + "\" width=\"" + f1(bw) + "\" height=\"" + f1(H-bottom-y(v)) + "\"><title>" + html.EscapeString(title) + "</title></rect>\n")
	}
	b.WriteString("<line class=\"axis\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + f1(H-bottom) + "\" y2=\"" + f1(H-bottom) + "\"/>\n")
	xLabels(b, cols, H-bottom+16)
	b.WriteString("</svg>\n")
}

// svgForeshadow draws one row per item (at most MaxSpanRows): the target
// range as a light band, the span from planted to resolved (or to the
// last committed chapter while open). It returns the rows drawn and the
// selected items left out for lack of a start chapter.
func (r *Report) svgForeshadow(b *strings.Builder) (drawn, undrawn int) {
	rows := r.spanRows()
	var list []SpanItem
	for _, s := range rows {
		if s.PlantedChapter == nil {
			undrawn++
			continue
		}
		list = append(list, s)
	}
	if len(list) == 0 {
		empty(b, ChartForeshadow, "没有可绘制的伏笔")
		return 0, undrawn
	}
	now := r.Headline.ChaptersCommitted
	domain := max(now, 1)
	for _, s := range list {
		domain = max(domain, *s.PlantedChapter)
		if s.ResolvedChapter != nil {
			domain = max(domain, *s.ResolvedChapter)
		}
	}
	const rowH, top, bottom, labelW = 18.0, 8.0, 28.0, 130.0
	H := top + rowH*float64(len(list)) + bottom
	plotW := chartW - labelW - padR
	x := func(c int) float64 { return labelW + float64(min(max(c, 0), domain))/float64(domain)*plotW }
	b.WriteString("<svg id=\"" + ChartForeshadow + "\" viewBox=\"0 0 1000 " + f1(H) + "\" role=\"img\" aria-label=\"foreshadowing spans\">\n")
	for i, s := range list {
		yy := top + rowH*float64(i)
		b.WriteString("<text x=\"" + f1(labelW-6) + "\" y=\"" + f1(yy+rowH*0.7) + "\" text-anchor=\"end\">" + html.EscapeString(clip(s.ID, 18)) + "<title>" + html.EscapeString(s.Description) + "</title></text>\n")
		if tr := s.TargetResolveRange; len(tr) == 2 && tr[0] <= domain {
			b.WriteString("<rect class=\"target\" x=\"" + f1(x(tr[0]-1)) + "\" y=\"" + f1(yy+2) + "\" width=\"" + f1(max(1.5, x(tr[1])-x(tr[0]-1))) + "\" height=\"" + f1(rowH-4) + "\"><title>计划回收 " + itoa(tr[0]) + "–" + itoa(tr[1]) + "</title></rect>\n")
		}
		start := *s.PlantedChapter
		end := now
		cls := "span-open"
		state := "未回收，已持续到第 " + itoa(now) + " 章"
		switch {
		case s.ResolvedChapter != nil:
			end, cls = *s.ResolvedChapter, "span-resolved"
			state = "第 " + itoa(end) + " 章回收"
		case s.Overdue:
			cls = "span-overdue"
			state = "逾期未回收（短线），已到第 " + itoa(now) + " 章"
		}
		end = max(end, start)
		title := s.ID + " · " + s.Description + " · " + s.Scope + " · 第 " + itoa(start) + " 章埋设 · " + state
		b.WriteString("<rect class=\"span " + cls + "\" x=\"" + f1(x(start-1)) + "\" y=\"" + f1(yy+5) + "\" width=\"" + f1(max(2.0, x(end)-x(start-1))) + "\" height=\"" + f1(rowH-10) + "\" rx=\"2\"><title>" + html.EscapeString(title) + "</title></rect>\n")
	}
	if now > 0 {
		b.WriteString("<line class=\"now\" x1=\"" + f1(x(now)) + "\" x2=\"" + f1(x(now)) + "\" y1=\"" + f1(top) + "\" y2=\"" + f1(H-bottom) + "\"><title>当前：第 " + itoa(now) + " 章</title></line>\n")
	}
	b.WriteString("<line class=\"axis\" x1=\"" + f1(labelW) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + f1(H-bottom) + "\" y2=\"" + f1(H-bottom) + "\"/>\n")
	step := max(1, niceMax((domain+9)/10))
	for c := 1; c <= domain; c += step {
		b.WriteString("<text x=\"" + f1((x(c-1)+x(c))/2) + "\" y=\"" + f1(H-bottom+16) + "\" text-anchor=\"middle\">" + itoa(c) + "</text>\n")
	}
	b.WriteString("</svg>\n")
	return len(list), undrawn
}

func clip(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

func (r *Report) svgStorylines(b *strings.Builder, cols []column) {
	if len(cols) == 0 || len(r.Storylines) == 0 {
		empty(b, ChartStorylines, "尚无故事线数据")
		return
	}
	const rowH, top, bottom, labelW = 24.0, 6.0, 28.0, 150.0
	H := top + rowH*float64(len(r.Storylines)) + bottom
	n := len(cols)
	plotW := chartW - labelW - padR
	cw := plotW / float64(n)
	b.WriteString("<svg id=\"" + ChartStorylines + "\" viewBox=\"0 0 1000 " + f1(H) + "\" role=\"img\" aria-label=\"storyline rotation\">\n")
	b.WriteString("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f6f8fa\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#afb8c1\" stroke-width=\"2\"/></pattern></defs>\n")
	// Dormant bands: the columns of each volume whose schedule puts the line to sleep.
	volDormant := r.volumeDormancy()
	for i, s := range r.Storylines {
		yy := top + rowH*float64(i)
		label := s.ID
		if s.Dormant {
			label += "（休眠）"
		}
		b.WriteString("<text x=\"" + f1(labelW-6) + "\" y=\"" + f1(yy+rowH*0.65) + "\" text-anchor=\"end\">" + html.EscapeString(clip(label, 24)) + "</text>\n")
		for _, vd := range volDormant[s.ID] {
			a, z := -1, -1
			for k := range cols {
				if cols[k].last >= vd[0] && cols[k].first <= vd[1] {
					if a < 0 {
						a = k
					}
					z = k
				}
			}
			if a < 0 {
				continue
			}
			b.WriteString("<rect class=\"dormant\" x=\"" + f1(labelW+cw*float64(a)) + "\" y=\"" + f1(yy+2) + "\" width=\"" + f1(cw*float64(z-a+1)) + "\" height=\"" + f1(rowH-4) + "\"><title>" + html.EscapeString(s.ID) + " 休眠（第 " + itoa(vd[0]) + "–" + itoa(vd[1]) + " 章所在卷）</title></rect>\n")
		}
		color := lineColors[i%len(lineColors)]
		for k := range cols {
			c := &cols[k]
			cnt := c.lines[i]
			if cnt == 0 {
				continue
			}
			share := float64(cnt) / float64(c.chapters)
			op := strconv.FormatFloat(0.25+0.75*share, 'f', 2, 64)
			title := "第 " + c.label() + " 章 · " + s.ID
			if c.chapters > 1 {
				title += " · " + itoa(cnt) + "/" + itoa(c.chapters) + " 章"
			}
			b.WriteString("<rect class=\"cell\" x=\"" + f1(labelW+cw*float64(k)+0.5) + "\" y=\"" + f1(yy+3) + "\" width=\"" + f1(max(1.0, cw-1)) + "\" height=\"" + f1(rowH-6) + "\" fill=\"" + color + "\" fill-opacity=\"" + op + "\"><title>" + html.EscapeString(title) + "</title></rect>\n")
		}
	}
	step := max(1, (n+9)/10)
	for k := 0; k < n; k += step {
		b.WriteString("<text x=\"" + f1(labelW+cw*(float64(k)+0.5)) + "\" y=\"" + f1(H-bottom+16) + "\" text-anchor=\"middle\">" + cols[k].label() + "</text>\n")
	}
	b.WriteString("</svg>\n")
}

// volumeDormancy maps a storyline to the chapter ranges of the volumes
// whose schedule lists it as dormant.
func (r *Report) volumeDormancy() map[string][][2]int {
	out := map[string][][2]int{}
	for _, v := range r.Volumes {
		if v.Start == nil {
			continue
		}
		for _, d := range v.Dormant {
			out[d] = append(out[d], [2]int{*v.Start, *v.End})
		}
	}
	return out
}

func optInt(p *int) string {
	if p == nil {
		return "—"
	}
	return itoa(*p)
}

func optScore(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmtScore(*p)
}

func table(b *strings.Builder, head []string, rows [][]string, numeric map[int]bool, emptyMsg string) {
	if len(rows) == 0 {
		b.WriteString("<p class=\"empty\">" + emptyMsg + "</p>\n")
		return
	}
	b.WriteString("<table>\n<tr>")
	for _, h := range head {
		b.WriteString("<th>" + h + "</th>")
	}
	b.WriteString("</tr>\n")
	for _, row := range rows {
		b.WriteString("<tr>")
		for i, c := range row {
			if numeric[i] {
				b.WriteString("<td class=\"n\">" + html.EscapeString(c) + "</td>")
			} else {
				b.WriteString("<td>" + html.EscapeString(c) + "</td>")
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

func (r *Report) htmlStorylineTable(b *strings.Builder) {
	table(b, storylineHead, r.storylineRows(), map[int]bool{1: true, 2: true, 3: true}, "尚无故事线")
}

func (r *Report) htmlVolumes(b *strings.Builder) {
	table(b, volumeHead, r.volumeRows(), map[int]bool{0: true, 2: true, 3: true, 4: true}, "尚无分卷计划")
}

func (r *Report) htmlPending(b *strings.Builder) {
	table(b, pendingHead, r.pendingRows(), map[int]bool{0: true}, "没有待处理的修订")
}

func (r *Report) htmlReviews(b *strings.Builder) {
	table(b, reviewHead, r.reviewRows(), map[int]bool{0: true, 1: true, 2: true}, "没有逻辑审查报告")
}

var (
	storylineHead = []string{"故事线 storyline", "章数", "首章", "末章", "休眠 dormant"}
	volumeHead    = []string{"卷", "章节范围", "已提交", "字数", "平均分", "休眠线"}
	pendingHead   = []string{"章", "触发 triggered_by", "创建时间", "说明 notes", "文件"}
	reviewHead    = []string{"章", "得分", "问题（高/中/低）", "阻断", "摘要"}
)

func yesNo(v bool) string {
	if v {
		return "是"
	}
	return ""
}

func (r *Report) storylineRows() [][]string {
	var rows [][]string
	for _, s := range r.Storylines {
		rows = append(rows, []string{s.ID, itoa(s.Chapters), optInt(s.FirstChapter), optInt(s.LastChapter), yesNo(s.Dormant)})
	}
	return rows
}

func (r *Report) volumeRows() [][]string {
	var rows [][]string
	for _, v := range r.Volumes {
		rng := "—"
		if v.Start != nil {
			rng = itoa(*v.Start) + "–" + itoa(*v.End)
		}
		rows = append(rows, []string{itoa(v.Volume), rng, itoa(v.ChaptersCommitted), itoa(v.Words), optScore(v.MeanScore), strings.Join(v.Dormant, "、")})
	}
	return rows
}

func (r *Report) pendingRows() [][]string {
	var rows [][]string
	for _, p := range r.PendingRevisions {
		notes := p.RevisionNotes
		if p.ObservedScore != nil {
			notes += fmt.Sprintf("（逻辑审查 %d 分", *p.ObservedScore)
			if p.MinScore != nil {
				notes += fmt.Sprintf(" < %d", *p.MinScore)
			}
			if p.HighIssuesCount != nil {
				notes += fmt.Sprintf("，高危问题 %d", *p.HighIssuesCount)
			}
			notes += "）"
		}
		rows = append(rows, []string{itoa(p.Chapter), p.TriggeredBy, p.CreatedAt, notes, p.File})
	}
	return rows
}

func (r *Report) reviewRows() [][]string {
	var rows [][]string
	for _, lr := range r.LogicReviews {
		blk := ""
		if lr.Blocking {
			blk = "是"
		}
		rows = append(rows, []string{itoa(lr.Chapter), itoa(lr.OverallScore), itoa(lr.High) + "/" + itoa(lr.Medium) + "/" + itoa(lr.Low), blk, lr.Summary})
	}
	return rows
}
