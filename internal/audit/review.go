package audit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// The optional continuity-auditor review (settings continuity_audit:
// "agent", SPEC §21): an agent reads the window with the deterministic
// findings and answers a report of the same shape, which is checked here
// and stored next to the deterministic one.

// AgentTypes are the issue types the auditor may add to the checks' own.
var AgentTypes = []string{"knowledge_leak", "character_drift", "ability", "broken_promise", "naming", "world_rule"}

// AgentLatest is the newest agent review: its high-severity findings are
// the continuity_notes of later draft and judge packets until a later
// review replaces it (SPEC §25).
const AgentLatest = "logs/continuity/agent-latest.json"

// ParseReview decodes and checks an auditor's answer for the window
// from..to: scope sliding_window, the same chapter_range, every issue with
// an id, a known type, a severity, a description and at least one piece of
// evidence inside the window. The result is the stored report: scope and
// range as given, confidence "agent" where none was given, and stats
// recomputed from the issues (the model's own counts are not trusted).
func ParseReview(data []byte, source string, from, to int, now string) (*Report, error) {
	var r Report
	if err := jsonio.Decode(data, source, &r); err != nil {
		return nil, err
	}
	bad := func(zh, en string, args ...any) error {
		return errs.New(errs.Schema, source+" "+fmt.Sprintf(zh, args...), source+" "+fmt.Sprintf(en, args...)).With("file", source).
			Hint("按 continuity-auditor 的输出格式（与 novel-audit continuity 的报告相同）修正后重试",
				"fix it to the continuity-auditor's format (the report of novel-audit continuity) and retry")
	}
	if r.Scope != "sliding_window" {
		return nil, bad("的 scope 必须是 sliding_window", "scope must be sliding_window")
	}
	if r.ChapterRange != [2]int{from, to} {
		return nil, bad("的 chapter_range 必须是 [%d, %d]", "chapter_range must be [%d, %d]", from, to)
	}
	if r.Issues == nil {
		return nil, bad("缺少 issues 数组", "lacks the issues array")
	}
	known := append(append([]string{}, Types...), AgentTypes...)
	r.Stats = Stats{Chapters: to - from + 1, ByType: map[string]int{}}
	for i := range r.Issues {
		is := &r.Issues[i]
		where := fmt.Sprintf("issues[%d]", i)
		switch {
		case strings.TrimSpace(is.ID) == "":
			return nil, bad("的 %s 缺少 id", "%s lacks an id", where)
		case !slices.Contains(known, is.Type):
			return nil, bad("的 %s.type %q 不是已知类型（%s）", "%s.type %q is not a known type (%s)", where, is.Type, strings.Join(known, ", "))
		case is.Severity != "high" && is.Severity != "medium" && is.Severity != "low":
			return nil, bad("的 %s.severity 必须是 high、medium 或 low", "%s.severity must be high, medium or low", where)
		case strings.TrimSpace(is.Description) == "":
			return nil, bad("的 %s 缺少 description", "%s lacks a description", where)
		case len(is.Evidence) == 0:
			return nil, bad("的 %s 没有证据（evidence）", "%s has no evidence", where)
		}
		for k, ev := range is.Evidence {
			if ev.Chapter < from || ev.Chapter > to || strings.TrimSpace(ev.Excerpt) == "" {
				return nil, bad("的 %s.evidence[%d] 必须引用第 %d–%d 章的原文", "%s.evidence[%d] must quote chapters %d–%d", where, k, from, to)
			}
		}
		if is.Confidence == "" {
			is.Confidence = "agent"
		}
		if is.Severity == "high" {
			// The text of a committed chapter is repaired by an amend
			// (SPEC §23); the finding names it, for its latest chapter.
			last := 0
			for _, ev := range is.Evidence {
				last = max(last, ev.Chapter)
			}
			is.Fix = "make -f pipeline.mk amend C=" + strconv.Itoa(last)
		}
		if is.Entities == nil {
			is.Entities = []string{}
		}
		r.Stats.count(is)
	}
	r.SchemaVersion, r.GeneratedAt = 1, now
	return &r, nil
}

// StoreReview stores a checked review (ParseReview) as
// logs/continuity/agent-report-NNN.json and as AgentLatest, whose high
// findings travel to the next chapters' packets (continuity_notes) until a
// later review replaces it. The pipeline and novel-agent apply both store
// through it.
func StoreReview(root *project.Root, rep *Report) error {
	if err := root.WriteJSON(layout.AgentAuditReport(rep.ChapterRange[1]), rep); err != nil {
		return err
	}
	return root.WriteJSON(AgentLatest, rep)
}

// ReviewLines are the lines printed after a stored review: the counts by
// severity with the report's path, then up to n findings, high first, each
// with its fix.
func ReviewLines(rep *Report, n int) []string {
	lines := []string{fmt.Sprintf("  连续性复核（continuity-auditor）：高 %d · 中 %d · 低 %d → %s",
		rep.Stats.High, rep.Stats.Medium, rep.Stats.Low, layout.AgentAuditReport(rep.ChapterRange[1]))}
	for _, is := range Top(rep.Issues, n) {
		line := "    [" + is.Severity + "] " + is.Description
		if is.Fix != "" {
			line += " → " + is.Fix
		}
		lines = append(lines, line)
	}
	return lines
}
