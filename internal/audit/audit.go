package audit

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// DefaultWindow is how many chapters a continuity audit covers.
const DefaultWindow = 10

// Continuity audits the window of `window` chapters ending at `to` (0:
// the last committed chapter) and returns the report; it writes nothing.
func Continuity(root *project.Root, to, window int, now string) (*Report, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	if window <= 0 {
		window = DefaultWindow
	}
	if to == 0 {
		to = cp.LastCompleted
	}
	if to < 1 || to > cp.LastCompleted {
		return nil, errs.Newf(errs.Usage, "--to %d 无效：已提交的章节是 1–%d", "--to %d is invalid: the committed chapters are 1–%d", to, cp.LastCompleted).
			WithExit(errs.ExitUsage).With("to", to).With("last_completed_chapter", cp.LastCompleted).
			Hint("先提交章节，或选择已提交范围内的章节", "commit chapters first, or choose a committed chapter")
	}
	w, err := loadLight(root, max(1, to-window+1), to)
	if err != nil {
		return nil, err
	}
	return w.Run(now), nil
}

// Write stores the report as continuity-report-NNN.json and latest.json
// (the judge packet's continuity_report_summary reads latest.json).
func Write(root *project.Root, r *Report) error {
	// Encoded once: at 2,000 chapters a report can list ~1,000 dormant
	// items (½ MB), and the commit writes it inside its time budget.
	data, err := jsonio.Marshal(r)
	if err != nil {
		return errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", layout.ContinuityReport(r.ChapterRange[1]), err)
	}
	if err := root.WriteFile(layout.ContinuityReport(r.ChapterRange[1]), data); err != nil {
		return err
	}
	return root.WriteFile(layout.ContinuityLatest, data)
}

// LatestPaths are the reports rewritten in place by each audit: the
// continuity report's latest copy and the three inventories.
var LatestPaths = []string{layout.ContinuityLatest, layout.ForeshadowInventory, layout.RhythmInventory, layout.BridgesInventory}

// WindowEnd is the last chapter of the window a report at rel covers
// (its chapter_range), 0 when the file is missing or unreadable.
func WindowEnd(root *project.Root, rel string) int {
	var r struct {
		ChapterRange []int `json:"chapter_range"`
	}
	if !root.Exists(rel) || root.ReadJSON(rel, &r) != nil || len(r.ChapterRange) != 2 {
		return 0
	}
	return r.ChapterRange[1]
}
