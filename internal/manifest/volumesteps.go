package manifest

import (
	"strconv"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// BatchSize is the most chapter contracts one planner answer holds
// (SPEC §23): a volume whose target is longer is planned in batches.
const BatchSize = 10

// briefTarget reads the brief's "- **每卷章数**：N" line (novel init writes it).
var briefTarget = lazyre.New(`每卷章数\**\s*[：:]\s*\**\s*(\d{1,4})`)

// target is the volume's target length: settings.json chapters_per_volume,
// else the brief's 每卷章数 (0: unknown), and whether contracts are
// planned in batches.
func (b *builder) target() (int, bool) { return TargetChapters(b.root, b.set) }

// TargetChapters is a volume's target length (0: unknown) and whether its
// contracts are planned in batches of BatchSize.
func TargetChapters(root *project.Root, set settings.Settings) (int, bool) {
	n := set.ChaptersPerVolume
	if n == 0 && root.IsFile(layout.Brief) {
		if text, err := root.ReadText(layout.Brief); err == nil {
			if m := briefTarget().FindStringSubmatch(text); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
		}
	}
	return n, n > BatchSize
}

// VolumeTarget is what volume v's plan, starting at chapter start, must
// cover (SPEC §25): the book plan's range for v when book-plan.json has
// that volume (FromBook; its chapters before start — imported or written
// already — are not planned again), else TargetChapters' length (N 0:
// unknown, nothing enforced). Batched reports contracts in batches.
func VolumeTarget(root *project.Root, set settings.Settings, v, start int) (t Target, err error) {
	bp, err := bookplan.Load(root)
	if err != nil {
		return t, err
	}
	t.Plan = bp
	if bp != nil {
		if e, ok := bp.Of(v); ok && e.Chapters[1] >= start {
			t.Range, t.FromBook = [2]int{max(e.Chapters[0], start), e.Chapters[1]}, true
			t.N = t.Range[1] - t.Range[0] + 1
			t.Batched = t.N > BatchSize
			return t, nil
		}
	}
	t.N, t.Batched = TargetChapters(root, set)
	return t, nil
}

// Target is a volume's planned length.
type Target struct {
	N        int
	Batched  bool
	FromBook bool
	Range    [2]int         // the book plan's chapters for the volume from start on (FromBook)
	Plan     *bookplan.Plan // the project's book plan (nil: none)
}

// volumeContracts is the packet of one batch of chapter contracts
// (volume:VV:contracts): the next ≤ BatchSize chapters of the staged
// outline that have no staged contract yet, so a batch that was written
// is never asked for again (a re-run resumes with the next one).
func (b *builder) volumeContracts() error {
	start, err := b.planAllowed()
	if err != nil {
		return err
	}
	v := b.vol
	rel := layout.StagingVolumeDir(v) + "/outline.md"
	data, err := b.root.ReadFile(rel)
	if err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.MissingFile {
			e.Hint("先运行大纲步骤：novel instructions volume:"+layout.PadVol(v)+":plan", "run the outline step first: novel instructions volume:"+layout.PadVol(v)+":plan")
		}
		return err
	}
	o, err := outline.Parse(data, rel, v)
	if err != nil {
		return err
	}
	var batch []int
	for _, c := range o.Chapters {
		staged := layout.Staged(layout.Contract(v, c))
		if b.has(staged) || b.has(staged[:len(staged)-len(".json")]+".md") {
			if len(batch) > 0 {
				break
			}
			continue
		}
		if batch = append(batch, c); len(batch) == BatchSize {
			break
		}
	}
	if len(batch) == 0 {
		return errs.Newf(errs.StageOrder, "%s 的每一章都已有暂存的章节契约", "every chapter of %s already has a staged contract", rel).
			With("file", rel).With("volume", v).
			Hint("校验并提交规划：novel-commit volume --volume "+layout.PadVol(v), "validate and commit the plan: novel-commit volume --volume "+layout.PadVol(v))
	}
	first, last := batch[0], batch[len(batch)-1]
	b.p.Agent = Agent{Name: "plot-architect", Kind: KindAgent, Mode: stepid.ModeContracts}
	b.p.Next = []string{"novel instructions volume:" + layout.PadVol(v) + ":contracts", "novel-commit volume --volume " + layout.PadVol(v)}
	b.in.Set("volume", v)
	b.in.Set("plan_start_chapter", start)
	b.in.Set("batch", []int{first, last})
	t, err := VolumeTarget(b.root, b.set, v, start)
	if err != nil {
		return err
	}
	if t.N > 0 {
		b.in.Set("target_chapters", t.N)
	}
	b.direction()
	b.ps.Set("staged_outline", rel)
	b.pathIf("staged_storyline_schedule", layout.StagingVolumeDir(v)+"/storyline-schedule.json")
	b.pathIf("staged_foreshadowing", layout.StagingVolumeDir(v)+"/foreshadowing.json")
	if first > start {
		b.pathIf("previous_contract", layout.Staged(layout.Contract(v, first-1)))
	}
	if err := b.planContext(start); err != nil {
		return err
	}
	for _, c := range batch {
		b.output(layout.Staged(layout.Contract(v, c)), true, ViaFile)
	}
	return nil
}

// volumeReview is plot-architect's review of a finished volume
// (volume:VV:review, SPEC §23, §25): allowed in VOL_REVIEW for the
// current volume; it reads the volume's summaries and eval digests, the §21 inventories
// and the continuity report, and writes staging/volumes/vol-VV/review.md.
func (b *builder) volumeReview() error {
	cp, v := b.cp, b.st.Number
	b.vol, b.p.Volume = v, v
	if cp.State != checkpoint.VolReview || v != cp.CurrentVolume {
		e := errs.Newf(errs.State, "卷末回顾 %s 只能在 VOL_REVIEW（当前卷 %d）时进行，当前为 %s",
			"the volume review %s is allowed only in VOL_REVIEW for the current volume (%d); the project is in %s",
			b.st.String(), cp.CurrentVolume, cp.State).
			With("orchestrator_state", cp.State).With("current_volume", cp.CurrentVolume).With("volume", v)
		if cp.State == checkpoint.VolReview {
			e.Hint("回顾当前卷：novel instructions volume:"+layout.PadVol(cp.CurrentVolume)+":review",
				"review the current volume: novel instructions volume:"+layout.PadVol(cp.CurrentVolume)+":review")
		} else {
			e.Hint("卷末章节提交后（VOL_REVIEW）才能回顾本卷", "a volume is reviewed after its last chapter is committed (VOL_REVIEW)")
		}
		return e
	}
	first, last, err := b.reviewRange(v)
	if err != nil {
		return err
	}
	b.p.Agent = Agent{Name: "plot-architect", Kind: KindAgent, Mode: stepid.ModeReview}
	b.p.Next = []string{"novel-commit volume-review --volume " + layout.PadVol(v)}
	b.in.Set("volume", v)
	b.in.Set("chapter_range", []int{first, last})
	b.pathIf("project_brief", layout.Brief)
	b.pathIf("volume_outline", layout.Outline(v))
	var sums []string
	digests := []*eval.Digest{}
	for c := first; c <= last; c++ {
		sums = append(sums, layout.Summary(c))
		// Digests, not whole evals (SPEC §25): twenty full evals were 70 %
		// of a 67k-token review packet against its 24k budget.
		if !b.has(layout.Eval(c)) {
			continue
		}
		d, err := eval.LoadDigest(b.root, layout.Eval(c), c)
		if err != nil {
			return err
		}
		digests = append(digests, d)
	}
	b.pathsIf("volume_summaries", sums)
	b.in.Set("eval_digests", digests)
	b.pathIf("continuity_report", layout.ContinuityLatest)
	b.pathIf("foreshadowing_inventory", layout.ForeshadowInventory)
	b.pathIf("storyline_rhythm", layout.RhythmInventory)
	b.pathIf("broken_bridges", layout.BridgesInventory)
	b.pathIf("volume_foreshadowing", layout.VolumeDir(v)+"/foreshadowing.json")
	b.pathIf("storyline_schedule", layout.VolumeDir(v)+"/storyline-schedule.json")
	b.pathIf("global_foreshadowing", layout.GlobalForeshadow)
	b.pathIf("current_state", layout.CurrentState)
	b.pathIf("storyline_spec", layout.StorylineSpec)
	// A long volume's review stays within the plan budget (SPEC §25) by
	// leaving out, in this order and only while over it: the whole state
	// (the next plan's input, not the review's), the global foreshadowing
	// list (the §21 inventory lists the open and overdue items), the
	// volume outline (the summaries say what happened).
	b.sheddable = []string{"current_state", "global_foreshadowing", "volume_outline"}
	b.pathIf("book_plan", bookplan.File)
	b.output(layout.StagingVolumeReview(v), true, ViaFile)
	if b.has(bookplan.File) {
		// The review may update the book plan (SPEC §25).
		b.output(layout.StagingVolumeDir(v)+"/"+bookplan.File, false, ViaFile)
	}
	return nil
}

// reviewRange is the chapters of finished volume v: from the first chapter
// its outline heads to the last completed one. A volume without an outline
// (a plugin-era project) starts after the previous volume's outline, else
// at chapter 1, with a warning; next never proposes a review it refuses.
func (b *builder) reviewRange(v int) (int, int, error) {
	last := b.cp.LastCompleted
	if b.has(layout.Outline(v)) {
		o, err := outline.LoadFor(b.root, v, b.cp)
		if err != nil {
			return 0, 0, err
		}
		first := last
		for _, c := range o.Chapters {
			if c <= last {
				first = min(first, c)
			}
		}
		return max(first, 1), last, nil
	}
	first := 1
	if v > 1 && b.has(layout.Outline(v-1)) {
		if o, err := outline.Load(b.root, v-1); err == nil && len(o.Chapters) > 0 {
			first = min(o.Chapters[len(o.Chapters)-1]+1, last)
		}
	}
	b.warn("没有第 %d 卷大纲 %s：回顾范围按第 %d–%d 章", "volume %d has no outline %s: the review covers chapters %d–%d", v, layout.Outline(v), first, last)
	return max(first, 1), last, nil
}
