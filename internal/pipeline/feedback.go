package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/stepid"
)

// The visible feedback of SPEC §21: what the gate decided and why, and
// after each commit what the commit computed (warnings, the 5-chapter
// brief, the continuity audit, the 10-chapter reminders). All of it goes
// to stderr, in the progress lines' language (Chinese, numbers and ids as
// the tools print them).

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// GateReason says why the gate decided as it did (`1 个高置信违规`,
// `≥ 通过线 4`, …), with both judges of a key chapter.
func GateReason(r *gate.Result) string {
	t := r.Config.GateThresholds
	var why []string
	switch {
	case r.BlockedBy == "logic_review" && r.LogicReview != nil:
		why = append(why, fmt.Sprintf("逻辑审查阻断：%d 分 < %d", r.LogicReview.OverallScore, r.LogicReview.MinScore))
	case r.ForcePassed:
		why = append(why, fmt.Sprintf("已达修订上限 %d，分数可接受，强制通过", r.MaxRevisions))
	case r.Lint != nil:
		why = append(why, fmt.Sprintf("%d 个 lint 错误", len(r.Lint.Errors)))
	case r.HasHighConfidenceViolation:
		why = append(why, fmt.Sprintf("%d 个高置信违规", len(r.Violations.High)))
	default:
		switch x := r.OverallFinal; {
		case x >= t.Pass:
			why = append(why, "≥ 通过线 "+num(t.Pass))
		case x >= t.Polish:
			why = append(why, "≥ 润色线 "+num(t.Polish))
		case x >= t.Revise:
			why = append(why, "< 润色线 "+num(t.Polish))
		case x >= t.Review:
			why = append(why, "< 修订线 "+num(t.Revise))
		default:
			why = append(why, "< 审阅线 "+num(t.Review))
		}
	}
	if gate.IsPause(r.Decision) && r.BlockedBy == "" && r.RevisionCount >= r.MaxRevisions && (r.Lint != nil || r.HasHighConfidenceViolation || r.OverallFinal >= t.Revise) {
		why = append(why, fmt.Sprintf("已达修订上限 %d", r.MaxRevisions))
	}
	if s := r.Scoring; s != nil && s.Secondary != nil {
		used := "主评"
		if r.EvalUsed == stepid.RoleSecondary {
			used = "副评"
		}
		why = append(why, fmt.Sprintf("主评 %.1f / 副评 %.1f，取%s", s.Primary.Overall, s.Secondary.Overall, used))
	}
	return strings.Join(why, "；")
}

// GateLine is the gate's progress line body: `gate → revise 3.2（1 个高置信违规）`.
func GateLine(r *gate.Result) string {
	return fmt.Sprintf("gate → %s %.1f（%s）", r.Decision, r.OverallFinal, GateReason(r))
}

// ChapterLine is seed 003's per-chapter line:
// `第 2 章已生成（1275 字），评分 4.1/5.0，门控 pass，修订 1 次`.
func ChapterLine(r *commit.Output) string {
	return fmt.Sprintf("第 %d 章已生成（%d 字），评分 %s/5.0，门控 %s，修订 %d 次", r.Chapter, r.WordCount,
		strconv.FormatFloat(r.OverallFinal, 'f', 1, 64), r.GateDecision, r.RevisionCount)
}

// maxListed bounds each list the feedback prints.
const maxListed = 3

// Feedback is what the pipeline prints after a commit: the chapter line,
// then the warnings (dropped ops, the commit's warnings — among them the
// unknown entities once there are 3 — and the text's lint warnings), the
// 5-chapter brief, the continuity result and the 10-chapter reminders.
func Feedback(r *commit.Output, lintWarnings []lint.Check) []string {
	out := []string{ChapterLine(r)}
	if n := len(r.DroppedOps); n > 0 {
		out = append(out, fmt.Sprintf("  ⚠ 丢弃了 %d 个状态操作（见 state/changelog.jsonl 的 dropped）：", n))
		for i, d := range r.DroppedOps {
			if i == maxListed {
				out = append(out, fmt.Sprintf("    … 另 %d 个", n-maxListed))
				break
			}
			op, _ := json.Marshal(d.Op)
			out = append(out, "    "+compactOp(op)+" — "+d.Reason)
		}
	}
	for _, w := range r.Warnings {
		out = append(out, "  ⚠ "+w)
	}
	for _, c := range lintWarnings {
		out = append(out, fmt.Sprintf("  ⚠ lint %s ×%d：%s", c.ID, c.Count, c.Detail))
	}
	return append(out, periodicLines(r.Periodic)...)
}

func periodicLines(p commit.Periodic) []string {
	var out []string
	if q := p.QualityBrief; q != nil {
		var low []string
		for _, s := range q.Lowest {
			low = append(low, fmt.Sprintf("第 %d 章 %.1f", s.Chapter, s.Overall))
		}
		overdue := "无"
		if len(q.OpenHighRisk) > 0 {
			overdue = joinListed(q.OpenHighRisk)
		}
		out = append(out, fmt.Sprintf("  近 5 章质量：平均 %.2f，最低 %s；逾期伏笔：%s", q.MeanScore, strings.Join(low, "、"), overdue))
	}
	if c := p.Continuity; c != nil {
		out = append(out, fmt.Sprintf("  连续性检查（第 %d–%d 章）：高 %d · 中 %d · 低 %d → %s",
			c.ChapterRange[0], c.ChapterRange[1], c.High, c.Medium, c.Low, c.Report))
		for _, is := range c.Top {
			out = append(out, "    ["+is.Severity+"] "+is.Description)
		}
	}
	if v := p.Inventories; v != nil {
		out = append(out, fmt.Sprintf("  10 章盘点：计划未埋 %d · 逾期 %d · 休眠 %d · 窗口内回收 %d · 断桥 %d → %s",
			v.PlannedNotPlanted, v.Overdue, v.Dormant, v.ResolvedInWindow, v.BrokenBridges, strings.Join(v.Files, "、")))
		for _, w := range v.RhythmWarnings {
			out = append(out, "    "+w)
		}
	}
	if f := p.FullReview; f != nil && len(f.Range) == 2 {
		out = append(out, fmt.Sprintf("  提醒：已提交 %d 章，建议全面审阅第 %d–%d 章", f.Range[1], f.Range[0], f.Range[1]))
	}
	if v := p.VolumeReview; v != nil {
		out = append(out, fmt.Sprintf("  第 %d 卷已完结：请进行卷末回顾（%s）", v.Volume, v.Command))
	}
	return out
}

func joinListed(xs []string) string {
	if len(xs) > 2*maxListed {
		return strings.Join(xs[:2*maxListed], "、") + fmt.Sprintf(" 等 %d 项", len(xs))
	}
	return strings.Join(xs, "、")
}

// compactOp shows a dropped op on one line (an unparsable one as given).
func compactOp(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
