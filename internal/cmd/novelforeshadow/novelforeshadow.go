// Package novelforeshadow is the command surface of novel-foreshadow:
// the per-chapter foreshadowing query, list and stats (SPEC §9).
package novelforeshadow

import (
	"fmt"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
)

type grammar struct {
	cli.Globals `embed:""`
	Query       queryCmd  `cmd:"" help:"Foreshadowing items relevant to a chapter (plan + fact layer)."`
	List        listCmd   `cmd:"" help:"List the fact layer (foreshadowing/global.json)."`
	Stats       statsCmd  `cmd:"" help:"Count the fact layer by status and scope, with overdue short items."`
	Recall      recallCmd `cmd:"" help:"What chapter C's draft packet recalls of the distant past (SPEC §25): setups of the foreshadowing it pays off, cast and places last seen long ago."`
}

type recallCmd struct {
	Chapter int `type:"chapter" required:"" help:"Chapter being written (≥ 1)." placeholder:"C"`
}

func (r *recallCmd) Run(ctx *cli.Context) error {
	root, s, _, err := ctx.Open()
	if err != nil {
		return err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	res, err := manifest.RecallFor(root, cp, s, r.Chapter)
	if err != nil {
		return err
	}
	ctx.Result(res, func() string {
		if len(res.Items) == 0 {
			return "（无）"
		}
		var b strings.Builder
		for _, it := range res.Items {
			at := it.LastSeenChapter
			if it.Kind == "foreshadowing" {
				at = max(it.PlantedChapter, it.AdvancedChapter)
			}
			fmt.Fprintf(&b, "%s %s 第 %d 章\n", it.Kind, it.ID, at)
		}
		return b.String()
	})
	return nil
}

type queryCmd struct {
	Chapter int  `type:"chapter" required:"" help:"Chapter being written (≥ 1)." placeholder:"C"`
	Volume  *int `type:"volume" help:"Volume whose plan to read (default: the checkpoint's current_volume, 1 before any volume)." placeholder:"V"`
}

func (q *queryCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	vol, src := 0, ""
	if q.Volume != nil {
		vol = *q.Volume
	} else {
		cp, err := checkpoint.Load(root)
		if err != nil {
			return err
		}
		vol, src = max(cp.CurrentVolume, 1), layout.Checkpoint
	}
	global, err := foreshadow.LoadGlobalLight(root) // only selected items are parsed in full
	if err != nil {
		return err
	}
	plan, err := foreshadow.LoadPlan(root, vol)
	if err != nil {
		return err
	}
	res := foreshadow.Query(global, plan, q.Chapter, vol)
	res.Sources = foreshadow.Sources{Checkpoint: src, Global: layout.GlobalForeshadow, VolumePlan: layout.PlanForeshadow(vol)}
	ctx.Result(res, func() string { return textItems(res.Items) })
	return nil
}

func textItems(items []foreshadow.Output) string {
	if len(items) == 0 {
		return "（无）"
	}
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s [%s/%s] %s\n", it.ID, it.Status, it.Scope, it.Description)
	}
	return b.String()
}

type filters struct {
	Status  *string `json:"status"`
	Overdue bool    `json:"overdue"`
}

type listResult struct {
	SchemaVersion int                 `json:"schema_version"`
	LastCompleted int                 `json:"last_completed_chapter"`
	Filters       filters             `json:"filters"`
	Count         int                 `json:"count"`
	Items         []foreshadow.Output `json:"items"`
	Source        string              `json:"source"`
}

type listCmd struct {
	Status  string `help:"Only items with this status." enum:",planted,advanced,resolved" default:""`
	Overdue bool   `help:"Only overdue short items (scope short, not resolved, range end before the last completed chapter)."`
}

func load(ctx *cli.Context) (*project.Root, *checkpoint.Checkpoint, []foreshadow.Item, error) {
	root, err := ctx.Root()
	if err != nil {
		return nil, nil, nil, err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, nil, nil, err
	}
	global, err := foreshadow.LoadGlobal(root)
	return root, cp, global, err
}

func (l *listCmd) Run(ctx *cli.Context) error {
	_, cp, global, err := load(ctx)
	if err != nil {
		return err
	}
	items := foreshadow.List(global, foreshadow.ListOptions{Status: l.Status, Overdue: l.Overdue, LastCompleted: cp.LastCompleted})
	res := listResult{SchemaVersion: 1, LastCompleted: cp.LastCompleted, Filters: filters{Overdue: l.Overdue},
		Count: len(items), Items: items, Source: layout.GlobalForeshadow}
	if l.Status != "" {
		s := l.Status
		res.Filters.Status = &s
	}
	ctx.Result(res, func() string { return textItems(items) })
	return nil
}

type statsResult struct {
	SchemaVersion int `json:"schema_version"`
	LastCompleted int `json:"last_completed_chapter"`
	foreshadow.Summary
	Source string `json:"source"`
}

type statsCmd struct{}

func (statsCmd) Run(ctx *cli.Context) error {
	_, cp, global, err := load(ctx)
	if err != nil {
		return err
	}
	res := statsResult{SchemaVersion: 1, LastCompleted: cp.LastCompleted, Summary: foreshadow.Stat(global, cp.LastCompleted), Source: layout.GlobalForeshadow}
	ctx.Result(res, func() string {
		return fmt.Sprintf("伏笔 %d 条：埋设 %d，推进 %d，回收 %d；逾期短线 %d", res.Total, res.ByStatus.Planted, res.ByStatus.Advanced, res.ByStatus.Resolved, res.OverdueShort)
	})
	return nil
}

// Main runs novel-foreshadow.
func Main() int {
	return cli.Main("novel-foreshadow", "Query, list and count foreshadowing items (SPEC §9).", &grammar{})
}
