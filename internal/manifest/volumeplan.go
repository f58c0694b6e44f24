package manifest

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/stepid"
)

// PlanSummaryWindow is how many of the latest summaries the planner gets.
const PlanSummaryWindow = 10

// OpenItem is an unresolved global foreshadowing item as the planner sees
// it: overdue short items are flagged.
type OpenItem struct {
	Item    foreshadow.Output
	Overdue bool
}

// MarshalJSON writes the item's SPEC §9 fields followed by "overdue".
func (o OpenItem) MarshalJSON() ([]byte, error) {
	b, err := o.Item.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(bytes.TrimSpace(b), "}")
	if len(bytes.TrimSpace(b)) > 1 {
		b = append(b, ',')
	}
	return append(b, []byte(`"overdue":`+strconv.FormatBool(o.Overdue)+"}")...), nil
}

// volumePlan is plot-architect's packet for volume:VV:plan (SPEC §6.1,
// §23): the planner's context, the author's direction and the target
// length. A volume longer than BatchSize is planned in batches: this
// step writes the outline, schedule and foreshadowing plan, and the
// contracts come from volume:VV:contracts packets.
func (b *builder) volumePlan() error {
	start, err := b.planAllowed()
	if err != nil {
		return err
	}
	v := b.vol
	t, err := VolumeTarget(b.root, b.set, v, start)
	if err != nil {
		return err
	}
	target, batched := t.N, t.Batched
	b.p.Agent = Agent{Name: "plot-architect", Kind: KindAgent, Mode: stepid.ModePlan}
	if batched {
		b.p.Next = []string{"novel instructions volume:" + layout.PadVol(v) + ":contracts"}
	} else {
		b.p.Next = []string{"novel-commit volume --volume " + layout.PadVol(v)}
	}
	b.in.Set("volume", v)
	b.in.Set("plan_start_chapter", start)
	if target > 0 {
		b.in.Set("target_chapters", target)
	} else {
		b.warn("没有目标章数：settings.json 的 chapters_per_volume 和 brief.md 的「每卷章数」都未设置", "no target length: neither settings.json chapters_per_volume nor the brief's 每卷章数 line is set")
	}
	b.bookPosition(v, t)
	b.direction()
	b.in.Set("contracts_in_batches", batched)
	if batched {
		b.in.Set("batch_size", BatchSize)
	}
	if err := b.planContext(start); err != nil {
		return err
	}
	dir := layout.StagingVolumeDir(v)
	b.output(dir+"/"+layout.VolumeOutlineFile, true, ViaFile)
	b.output(dir+"/"+layout.VolumeScheduleFile, true, ViaFile)
	b.output(dir+"/"+layout.VolumeForeshadowFile, true, ViaFile)
	if !batched {
		b.output(dir+"/"+layout.VolumeContractsDir+"/chapter-NNN.json", false, ViaFile)
	}
	return nil
}

// bookPosition puts the book plan (DATA) and the volume's place in it
// (book_position) into the packet (SPEC §25). A project without a book
// plan is planned as before, with a warning naming the step that adds
// one; a plan that stops before this volume is a warning too.
func (b *builder) bookPosition(v int, t Target) {
	if !t.FromBook && t.Plan == nil {
		b.warn("项目没有全书规划 %s：本卷规划不知道自己在全书中的位置；用 novel instructions setup:book 生成一份（novel-commit setup --step book 提交）",
			"the project has no book plan %s: this volume is planned without its place in the book; add one with novel instructions setup:book (then novel-commit setup --step book)", bookplan.File)
		return
	}
	b.ps.Set("book_plan", bookplan.File)
	if !t.FromBook {
		b.warn("全书规划 %s（%d 卷）没有第 %d 卷还要写的章节：本卷按目标章数规划；在卷末回顾中更新全书规划",
			"the book plan %s (%d volumes) has no chapters left to write for volume %d: this volume is planned to the target length; update the book plan in a volume review", bookplan.File, len(t.Plan.Volumes), v)
		return
	}
	if pos, ok := t.Plan.PositionOf(v); ok {
		b.in.Set("book_position", pos)
	}
}

// planAllowed checks the orchestrator state of a plan or contracts step
// and returns the volume's first chapter.
func (b *builder) planAllowed() (int, error) {
	cp, v := b.cp, b.st.Number
	b.vol = v
	b.p.Volume = v
	allowed := (cp.State == checkpoint.VolPlanning && v == cp.CurrentVolume) ||
		(cp.State == checkpoint.QuickStart && v == 1)
	if !allowed {
		e := errs.Newf(errs.State, "卷规划 %s 只能在 VOL_PLANNING（当前卷 %d）或 QUICK_START（第 1 卷）时进行，当前为 %s",
			"volume planning %s is allowed only in VOL_PLANNING for the current volume (%d) or QUICK_START for volume 1; the project is in %s",
			b.st.String(), cp.CurrentVolume, cp.State).
			With("orchestrator_state", cp.State).With("current_volume", cp.CurrentVolume).With("volume", v)
		if cp.State == checkpoint.VolReview {
			e.Hint("先完成卷末回顾（novel instructions volume:"+layout.PadVol(cp.CurrentVolume)+":review），或运行 novel-step volume --next 跳过回顾",
				"finish the volume review (novel instructions volume:"+layout.PadVol(cp.CurrentVolume)+":review), or skip it with novel-step volume --next")
		} else if cp.State == checkpoint.VolPlanning || cp.State == checkpoint.QuickStart {
			e.Hint("规划当前卷：novel instructions volume:"+layout.PadVol(max(cp.CurrentVolume, 1))+":plan",
				"plan the current volume: novel instructions volume:"+layout.PadVol(max(cp.CurrentVolume, 1))+":plan")
		} else {
			e.Hint("本卷仍在写作中；卷末提交后才能规划下一卷", "the volume is still being written; plan the next one after its last chapter is committed")
		}
		return 0, e
	}
	start := cp.LastCompleted + 1
	if err := revision.Check(b.root, start); err != nil {
		return 0, err
	}
	return start, nil
}

// direction puts the author's direction inline when one was given.
func (b *builder) direction() {
	if d := strings.TrimSpace(b.opt.Direction); d != "" {
		b.in.Set("author_direction", d)
	}
}

// planContext is the deterministic context shared by the plan and
// contracts steps (SPEC §6.1).
func (b *builder) planContext(start int) error {
	cp, v := b.cp, b.vol
	if err := b.hardRules(); err != nil {
		return err
	}
	if err := b.entityMap(); err != nil {
		return err
	}
	global, err := foreshadow.LoadGlobal(b.root)
	if err != nil {
		return err
	}
	open := []OpenItem{}
	for _, it := range global {
		if it.Status == foreshadow.Resolved {
			continue
		}
		open = append(open, OpenItem{Item: foreshadow.Output{Item: it}, Overdue: foreshadow.OverdueShort(&it, start)})
	}
	b.in.Set("open_foreshadowing", open)
	if err := b.unregisteredNames(); err != nil {
		return err
	}

	b.pathIf("project_brief", layout.Brief)
	b.pathIf("world_rules", layout.WorldRules)
	if v > 1 {
		b.pathIf("previous_volume_outline", layout.Outline(v-1))
	}
	var sums []string
	for c := cp.LastCompleted; c >= max(1, cp.LastCompleted-PlanSummaryWindow+1); c-- {
		sums = append(sums, layout.Summary(c))
	}
	b.pathsIf("recent_summaries", sums)
	b.pathIf("current_state", layout.CurrentState)
	b.pathIf("storyline_spec", layout.StorylineSpec)
	b.pathIf("storylines", layout.Storylines) // setup:world's storylines (SPEC §17)
	mems, err := storylineMemories(b.root)
	if err != nil {
		return err
	}
	b.pathsIf("storyline_memories", mems)
	b.pathIf("style_profile", layout.StyleProfile)
	if v > 1 {
		b.pathIf("previous_volume_review", layout.VolumeReview(v-1))
	}
	research, err := b.root.List(layout.ResearchDir, ".md", false)
	if err != nil {
		return err
	}
	b.pathsIf("research", research)
	return nil
}

// storylineMemories lists storylines/{id}/memory.md for every slug-named
// storyline directory, sorted.
func storylineMemories(root *project.Root) ([]string, error) {
	dirs, err := root.List(layout.StorylinesDir, "", true)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		id := strings.TrimPrefix(d, layout.StorylinesDir+"/")
		if project.IsSlug(id) {
			out = append(out, layout.Memory(id))
		}
	}
	return out, nil
}
