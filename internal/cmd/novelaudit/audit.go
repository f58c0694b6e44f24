// Package novelaudit is the command surface of novel-audit (SPEC §21).
package novelaudit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/project"
)

type grammar struct {
	cli.Globals `embed:""`
	Continuity  continuityCmd `cmd:"" help:"Sliding-window consistency audit of the committed chapters; writes logs/continuity/latest.json."`
	Inventory   inventoryCmd  `cmd:"" help:"Foreshadowing inventory, storyline rhythm and broken bridges of the last window; writes logs/foreshadowing/latest.json and logs/storylines/*-latest.json."`
}

type inventoryCmd struct {
	Window int `help:"Chapters in the window (default 10)." default:"10" placeholder:"N"`
}

// inventoryResult is what novel-audit inventory prints.
type inventoryResult struct {
	Foreshadowing audit.ForeshadowInventory `json:"foreshadowing"`
	Rhythm        audit.Rhythm              `json:"rhythm"`
	Bridges       audit.Bridges             `json:"broken_bridges"`
	Files         []string                  `json:"files"`
}

func (c *inventoryCmd) Run(ctx *cli.Context) error {
	if c.Window < 1 || c.Window > 200 {
		return cli.UsageError("--window 必须是 1..200", "--window must be 1..200")
	}
	return compute(ctx, func(root *project.Root, now string) (any, func() error, func() string, error) {
		inv, err := audit.Inventory(root, c.Window, now)
		if err != nil {
			return nil, nil, nil, err
		}
		res := inventoryResult{Foreshadowing: inv.Foreshadow, Rhythm: inv.Rhythm, Bridges: inv.Bridges,
			Files: []string{layout.ForeshadowInventory, layout.RhythmInventory, layout.BridgesInventory}}
		return res, func() error { return audit.WriteInventories(root, inv) }, func() string {
			f := inv.Foreshadow
			return "伏笔盘点：未按计划埋下 " + strconv.Itoa(len(f.PlannedNotPlanted)) + "，逾期 " + strconv.Itoa(len(f.Overdue)) +
				"，休眠 " + strconv.Itoa(len(f.Dormant)) + "，本窗口回收 " + strconv.Itoa(len(f.ResolvedInWindow)) +
				"；断开的过渡 " + strconv.Itoa(len(inv.Bridges.Broken)) + "；节奏提醒 " + strconv.Itoa(len(inv.Rhythm.Warnings))
		}, nil
	})
}

type continuityCmd struct {
	To     int `type:"chapter" help:"Last chapter of the window (default: the last committed chapter)." placeholder:"C"`
	Window int `help:"Chapters in the window (default 10)." default:"10" placeholder:"N"`
}

func (c *continuityCmd) Run(ctx *cli.Context) error {
	if c.Window < 1 || c.Window > 200 {
		return cli.UsageError("--window 必须是 1..200", "--window must be 1..200")
	}
	return compute(ctx, func(root *project.Root, now string) (any, func() error, func() string, error) {
		r, err := audit.Continuity(root, c.To, c.Window, now)
		if err != nil {
			return nil, nil, nil, err
		}
		return r, func() error { return audit.Write(root, r) }, func() string {
			return "连续性检查 第 " + strconv.Itoa(r.ChapterRange[0]) + "–" + strconv.Itoa(r.ChapterRange[1]) + " 章：高 " +
				strconv.Itoa(r.Stats.High) + "，中 " + strconv.Itoa(r.Stats.Medium) + "，低 " + strconv.Itoa(r.Stats.Low) +
				"（" + layout.ContinuityReport(r.ChapterRange[1]) + "）"
		}, nil
	})
}

// compute runs an audit (read-only), then writes its files under the
// project lock (the pipeline's token or a brief lock of its own) and
// prints the result.
func compute(ctx *cli.Context, run func(root *project.Root, now string) (result any, write func() error, text func() string, err error)) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	res, write, text, err := run(root, now)
	if err != nil {
		return err
	}
	release, err := lock.Guard(root, ctx.Getenv, 0, s.LockStaleMinutes)
	if err != nil {
		return err
	}
	defer release()
	if err := write(); err != nil {
		return err
	}
	ctx.Result(res, text)
	return nil
}

// Main runs novel-audit.
func Main() int {
	return cli.Main("novel-audit", "Deterministic consistency audits of the committed chapters: dead characters who act, "+
		"location jumps, items used by someone else, day markers going backwards, dormant foreshadowing.", &grammar{})
}
