package report

import (
	"strings"
)

// Markdown renders the same facts as the HTML page as Markdown tables.
// The per-chapter table uses the same buckets as the charts, and the
// foreshadowing table the same rows.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	title := "小说健康报告"
	if r.Title != "" {
		title = r.Title + " · 健康报告"
	}
	b.WriteString("# " + mdCell(title) + "\n\n")
	h := r.Headline
	b.WriteString("## 概览 / Headline\n\n")
	mean := "—"
	if h.MeanScore != nil {
		mean = fmtScore(*h.MeanScore)
	}
	inflight := "—"
	if h.InflightChapter != nil {
		inflight = itoa(*h.InflightChapter)
		if h.PipelineStage != nil {
			inflight += "（" + *h.PipelineStage + "）"
		}
	}
	mdTable(&b, []string{"指标", "值"}, [][]string{
		{"已提交章节 chapters", itoa(h.ChaptersCommitted)},
		{"总字数 words", itoa(h.TotalWords)},
		{"平均分 mean score", mean},
		{"状态版本 state version", itoa(h.StateVersion)},
		{"当前卷 volume", itoa(h.CurrentVolume)},
		{"编排状态 state", h.OrchestratorState},
		{"进行中 inflight", inflight},
		{"修订轮次 revisions", itoa(h.RevisionsTotal)},
		{"门控 gate", gateSummary(h.Gate)},
		{"未回收伏笔 open foreshadowing", itoa(h.ForeshadowingOpen)},
		{"逾期短线 overdue short", itoa(h.ForeshadowingOverdue)},
		{"待处理修订 pending revisions", itoa(h.PendingRevisions)},
		{"模型请求 requests", itoa(h.Requests)},
		{"tokens", tokensText(h.Tokens)},
		{"费用 cost", h.headlineCost()},
	})
	if note := r.usageNote(); note != "" {
		b.WriteString(note + "。\n\n")
	}

	cols, size := r.columns()
	b.WriteString("## 各章 / Chapters\n\n")
	if len(cols) == 0 {
		b.WriteString("尚无已提交章节。\n\n")
	} else if size == 1 {
		var rows [][]string
		for _, c := range r.Chapters {
			rows = append(rows, append([]string{itoa(c.Chapter), c.Title, c.StorylineID, itoa(c.WordCount), optScore(c.OverallFinal), c.Marker, itoa(c.Revisions)},
				usageCells(&cols[len(rows)])...))
		}
		mdTable(&b, []string{"章", "标题", "故事线", "字数", "评分", "门控", "修订", "tokens", "费用"}, rows)
	} else {
		b.WriteString("每 " + itoa(size) + " 章一行；评分为均值与最低分，字数为每章均值。\n\n")
		var rows [][]string
		for i := range cols {
			c := &cols[i]
			m, lo := "—", "—"
			if v, ok := c.mean(); ok {
				m, lo = fmtScore(v), fmtScore(c.minScore)
			}
			rows = append(rows, append([]string{c.label(), itoa(c.meanWords()), m, lo, gateSummary(c.gate), itoa(c.revisions)}, usageCells(c)...))
		}
		mdTable(&b, []string{"章", "字数", "评分", "最低", "门控", "修订", "tokens", "费用"}, rows)
	}

	if r.OtherRuns != nil {
		b.WriteString("## " + otherRunsTitle + "\n\n" + otherRunsNote + "。\n\n")
		mdTable(&b, otherRunsHead, r.otherRunsRows())
	}

	b.WriteString("## 伏笔 / Foreshadowing\n\n")
	f := r.Foreshadowing
	b.WriteString("共 " + itoa(f.Total) + " 条，未回收 " + itoa(f.Open) + "，已回收 " + itoa(f.Resolved) + "，逾期短线 " + itoa(f.OverdueShort) + "。")
	rows := r.spanRows()
	if len(rows) < len(f.Items) {
		b.WriteString("仅列出 " + itoa(len(rows)) + " 条（逾期、最近埋设的未回收与最近回收的优先）。")
	}
	b.WriteString("\n\n")
	if len(rows) > 0 {
		var tr [][]string
		for _, s := range rows {
			target := "—"
			if len(s.TargetResolveRange) == 2 {
				target = itoa(s.TargetResolveRange[0]) + "–" + itoa(s.TargetResolveRange[1])
			}
			tr = append(tr, []string{s.ID, s.Description, s.Scope, s.Status, optInt(s.PlantedChapter), optInt(s.ResolvedChapter), target, yesNo(s.Overdue)})
		}
		mdTable(&b, []string{"ID", "描述", "范围", "状态", "埋设", "回收", "计划回收", "逾期"}, tr)
	}

	b.WriteString("## 故事线 / Storylines\n\n")
	mdTableOr(&b, storylineHead, r.storylineRows(), "尚无故事线。")
	b.WriteString("## 分卷 / Volumes\n\n")
	mdTableOr(&b, volumeHead, r.volumeRows(), "尚无分卷计划。")
	b.WriteString("## 待处理修订 / Pending revisions\n\n")
	mdTableOr(&b, pendingHead, r.pendingRows(), "没有待处理的修订。")
	b.WriteString("## 最近的逻辑审查 / Latest logic reviews\n\n")
	mdTableOr(&b, reviewHead, r.reviewRows(), "没有逻辑审查报告。")
	if len(r.Warnings) > 0 {
		b.WriteString("## 提示 / Warnings\n\n")
		for _, w := range r.Warnings {
			b.WriteString("- " + mdCell(w) + "\n")
		}
		b.WriteString("\n")
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

func mdTableOr(b *strings.Builder, head []string, rows [][]string, emptyMsg string) {
	if len(rows) == 0 {
		b.WriteString(emptyMsg + "\n\n")
		return
	}
	mdTable(b, head, rows)
}

func mdTable(b *strings.Builder, head []string, rows [][]string) {
	b.WriteString("|")
	for _, h := range head {
		b.WriteString(" " + mdCell(h) + " |")
	}
	b.WriteString("\n|")
	for range head {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// mdCell keeps a value inside one table cell: pipes escaped, line breaks
// flattened.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.TrimSpace(s)
}
