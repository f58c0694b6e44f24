package audit

import (
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Periodic is what a chapter commit adds to its periodic briefs (SPEC §21):
// every 5th chapter and at a volume's last chapter the continuity audit of
// the window ending at c (written to logs/continuity/), every 10th the
// three inventories. It runs inside the commit's maintenance step, after
// the chapter, state, changelog and foreshadowing are in place; its
// failures become warnings and never block the commit. now is the commit's
// timestamp, so a resumed commit writes the same reports. items, when not
// nil, is the foreshadowing file as the commit wrote it (already parsed
// for its 5th-chapter brief), read instead of the file.
func Periodic(root *project.Root, c, vol int, volEnd bool, now string, items []foreshadow.Item) (briefs Briefs, warnings []string) {
	audit, inventories := c%5 == 0 || volEnd, c%10 == 0
	if !audit && !inventories {
		return briefs, nil
	}
	// One window serves both: the state, changelog and foreshadowing are
	// read once (the state is trusted: the commit has just written it).
	w, err := load(root, max(1, c-DefaultWindow+1), c, true, items, false)
	if audit {
		if err == nil {
			r := w.Run(now)
			if err = Write(root, r); err == nil {
				briefs.Continuity = &ContinuityBrief{ChapterRange: r.ChapterRange, High: r.Stats.High, Medium: r.Stats.Medium,
					Low: r.Stats.Low, Report: layout.ContinuityReport(c), Top: Top(r.Issues, 3)}
			}
		}
		if err != nil {
			warnings = append(warnings, "连续性检查未完成 / the continuity audit did not run: "+err.Error())
		}
	}
	if inventories {
		var inv *Inventories
		if w != nil {
			inv, err = w.Inventories(root, vol, now)
		}
		if err == nil {
			if err = WriteInventories(root, inv); err == nil {
				briefs.Inventories = &InventoryBrief{PlannedNotPlanted: len(inv.Foreshadow.PlannedNotPlanted),
					Overdue: len(inv.Foreshadow.Overdue), Dormant: len(inv.Foreshadow.Dormant),
					ResolvedInWindow: len(inv.Foreshadow.ResolvedInWindow), BrokenBridges: len(inv.Bridges.Broken),
					RhythmWarnings: inv.Rhythm.Warnings, Files: []string{layout.ForeshadowInventory, layout.RhythmInventory, layout.BridgesInventory}}
			}
		}
		if err != nil {
			warnings = append(warnings, "10 章盘点未完成 / the 10-chapter inventories did not run: "+err.Error())
		}
	}
	return briefs, warnings
}

// Briefs are what Periodic adds to the commit's periodic output (nil:
// not due this chapter, or failed with a warning).
type Briefs struct {
	Continuity  *ContinuityBrief
	Inventories *InventoryBrief
}

// ContinuityBrief is periodic.continuity in the commit's output.
type ContinuityBrief struct {
	ChapterRange [2]int  `json:"chapter_range"`
	High         int     `json:"high"`
	Medium       int     `json:"medium"`
	Low          int     `json:"low"`
	Report       string  `json:"report"`
	Top          []Issue `json:"top"`
}

// InventoryBrief is periodic.inventories in the commit's output.
type InventoryBrief struct {
	PlannedNotPlanted int      `json:"planned_not_planted"`
	Overdue           int      `json:"overdue"`
	Dormant           int      `json:"dormant"`
	ResolvedInWindow  int      `json:"resolved_in_window"`
	BrokenBridges     int      `json:"broken_bridges"`
	RhythmWarnings    []string `json:"rhythm_warnings"`
	Files             []string `json:"files"`
}

// Top is the first n issues, high severity first (issues are already in
// check order, which puts the high ones first).
func Top(issues []Issue, n int) []Issue {
	out := []Issue{}
	for _, sev := range []string{"high", "medium", "low"} {
		for _, is := range issues {
			if is.Severity == sev && len(out) < n {
				out = append(out, is)
			}
		}
	}
	return out
}
