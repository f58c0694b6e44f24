package report

import (
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/runlog"
)

// ChartUsage is the per-chapter usage chart: svg#chart-usage with one
// .bar per column that has a value (cost in the main currency when any
// chapter was priced, else prompt + completion tokens).
const ChartUsage = "chart-usage"

// fmtCost formats an amount with up to 6 decimals ("0.000544", "12.5").
func fmtCost(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// costText is "1.23 CNY + 0.5 USD" (currencies sorted), "—" for none.
func costText(c runlog.Cost) string {
	if len(c) == 0 {
		return "—"
	}
	var parts []string
	for _, cur := range currencies(c) {
		parts = append(parts, fmtCost(c[cur])+" "+cur)
	}
	return strings.Join(parts, " + ")
}

func currencies(c runlog.Cost) []string {
	out := make([]string, 0, len(c))
	for cur := range c {
		out = append(out, cur)
	}
	sort.Strings(out)
	return out
}

// tokenSum is prompt + completion (reasoning tokens are part of the
// completion) plus counts given unsplit; ok false when none is known.
func tokenSum(t runlog.Tokens) (int64, bool) {
	if t.Prompt == nil && t.Completion == nil && t.Total == nil {
		return 0, false
	}
	var n int64
	if t.Total != nil {
		n += *t.Total
	}
	if t.Prompt != nil {
		n += *t.Prompt
	}
	if t.Completion != nil {
		n += *t.Completion
	}
	return n, true
}

func optCount(p *int64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatInt(*p, 10)
}

// tokensText is "输入 P（缓存 H）/ 输出 C（推理 R）" with unknown parts as —.
func tokensText(t runlog.Tokens) string {
	if !t.Known() {
		return "—"
	}
	s := "输入 " + optCount(t.Prompt)
	if t.CacheHit != nil {
		s += "（缓存命中 " + optCount(t.CacheHit) + "）"
	}
	s += " / 输出 " + optCount(t.Completion)
	if t.Reasoning != nil {
		s += "（推理 " + optCount(t.Reasoning) + "）"
	}
	if t.Total != nil {
		s += " / 未分类 " + optCount(t.Total)
	}
	return s
}

// mainCurrency is the currency with the largest total (ties: first by
// name); "" when nothing was priced. The chart shows this one.
func (r *Report) mainCurrency() string {
	best := ""
	for _, cur := range currencies(r.Headline.Cost) {
		if best == "" || r.Headline.Cost[cur] > r.Headline.Cost[best] {
			best = cur
		}
	}
	return best
}

// headlineCost is the headline's cost, marked "≈" when part of it comes
// from estimated usage (SPEC §26).
func (h *Headline) headlineCost() string {
	if h.EstimatedRequests > 0 && h.Cost != nil {
		return "≈" + costText(h.Cost)
	}
	return costText(h.Cost)
}

// usageNote is the headline's cost caveat: requests the cost misses, and
// requests whose usage (so cost) is estimated.
func (r *Report) usageNote() string {
	var notes []string
	if r.Headline.UnpricedRequests > 0 {
		notes = append(notes, itoa(r.Headline.UnpricedRequests)+" 次请求没有计价（服务未返回 usage 或 llm.prices 中没有该模型），费用合计不含它们")
	}
	if r.Headline.EstimatedRequests > 0 {
		notes = append(notes, itoa(r.Headline.EstimatedRequests)+" 次请求的服务没有返回用量，token 按文本估算（usage_estimated），费用是约数（≈）")
	}
	return strings.Join(notes, "；")
}

// svgUsage draws the cost (or, with no prices, the tokens) per column.
func (r *Report) svgUsage(b *strings.Builder, cols []column) string {
	cur := r.mainCurrency()
	val := func(c *column) (float64, bool) {
		if cur != "" {
			v, ok := c.cost[cur]
			return v, ok
		}
		n, ok := tokenSum(c.tokens)
		return float64(n), ok
	}
	unit := "费用（" + cur + "）"
	if cur == "" {
		unit = "tokens（输入 + 输出）"
	}
	peak, found := 0.0, false
	for i := range cols {
		if v, ok := val(&cols[i]); ok {
			peak, found = math.Max(peak, v), true
		}
	}
	if !found {
		empty(b, ChartUsage, "章节日志中没有 token 或费用记录")
		return ""
	}
	const H, top, bottom = 200.0, 12.0, 28.0
	plotH := H - top - bottom
	ceil := niceCeil(peak)
	y := func(v float64) float64 { return top + (1-v/ceil)*plotH }
	b.WriteString("<svg id=\"" + ChartUsage + "\" viewBox=\"0 0 1000 " + f1(H) + "\" role=\"img\" aria-label=\"usage per chapter\">\n")
	for k := 0; k <= 4; k++ {
		v := ceil * float64(k) / 4
		yy := f1(y(v))
		b.WriteString("<line class=\"grid\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + yy + "\" y2=\"" + yy + "\"/>")
		b.WriteString("<text x=\"" + f1(padL-6) + "\" y=\"" + f1(y(v)+4) + "\" text-anchor=\"end\">" + fmtCost(v) + "</text>\n")
	}
	for i := range cols {
		c := &cols[i]
		v, ok := val(c)
		if !ok {
			continue
		}
		x, w := colX(i, len(cols))
		bw := max(1.0, w*0.8)
		title := "第 " + c.label() + " 章 · " + costText(c.cost) + " · " + tokensText(c.tokens)
		b.WriteString("<rect class=\"bar\" x=\"" + f1(x-bw/2) + "\" y=\"" + f1(y(v)) + "\" width=\"" + f1(bw) + "\" height=\"" + f1(H-bottom-y(v)) + "\"><title>" + html.EscapeString(title) + "</title></rect>\n")
	}
	b.WriteString("<line class=\"axis\" x1=\"" + f1(padL) + "\" x2=\"" + f1(chartW-padR) + "\" y1=\"" + f1(H-bottom) + "\" y2=\"" + f1(H-bottom) + "\"/>\n")
	xLabels(b, cols, H-bottom+16)
	b.WriteString("</svg>\n")
	return unit
}

// niceCeil rounds v up to 1, 2 or 5 × 10^k (any k, so cents work too).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= v*(1-1e-12) {
			return f * mag
		}
	}
	return 10 * mag
}

// usageCells is a column's tokens and cost cells in the Markdown table.
func usageCells(c *column) []string {
	n, ok := tokenSum(c.tokens)
	tok := "—"
	if ok {
		tok = strconv.FormatInt(n, 10)
	}
	return []string{tok, costText(c.cost)}
}

// otherRunsTitle heads the section of the agent runs outside chapters.
const otherRunsTitle = "章节以外的代理运行 / Other agent runs"

var otherRunsHead = []string{"步骤 step", "模式 mode", "尝试 attempts", "请求 requests", "tokens", "费用 cost"}

// otherRunsRows is one row per step and mode, then the total row.
func (r *Report) otherRunsRows() [][]string {
	o := r.OtherRuns
	var rows [][]string
	for _, s := range o.Steps {
		tok := "—"
		if s.Tokens != nil {
			tok = tokensText(*s.Tokens)
		}
		rows = append(rows, []string{s.Step, s.Mode, itoa(s.Attempts), itoa(s.Requests), tok, costText(s.Cost)})
	}
	return append(rows, []string{"合计 total", "", "", itoa(o.Requests), tokensText(o.Tokens), costText(o.Cost)})
}

// otherRunsNote says what the section counts.
const otherRunsNote = "设定、卷规划与契约、卷末回顾、修订/回填摘要与连续性复核的模型请求（logs/steps-run.jsonl），已计入概览的合计"
