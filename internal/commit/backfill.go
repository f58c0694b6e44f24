package commit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manuscript"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// gateBackfill is the gate_decision of a backfill commit: the imported
// text is committed as it is, never judged or gated (SPEC §23).
const gateBackfill = "backfill"

// ImportedChapters lists the chapters logs/import.json records, in order.
func ImportedChapters(root *project.Root) ([]int, error) {
	if !root.Exists(layout.ImportLog) {
		return nil, errs.Newf(errs.MissingFile, "没有 %s：项目中没有导入的章节", "%s is missing: the project has no imported chapters", layout.ImportLog).
			With("file", layout.ImportLog).Hint("先用 novel import FILE 导入稿件", "import a manuscript first with novel import FILE")
	}
	var log manuscript.Log
	if err := root.ReadJSON(layout.ImportLog, &log); err != nil {
		return nil, err
	}
	out := make([]int, 0, len(log.Chapters))
	for _, ch := range log.Chapters {
		out = append(out, ch.Chapter)
	}
	return out, nil
}

// PrepareBackfill checks and computes the backfill commit of imported
// chapter c (SPEC §23): the chapter stays where the import wrote it; the
// summarizer's summary, crossref and memory are moved in, its ops applied
// and logged, its foreshadowing merged, exactly as a chapter commit does,
// with no eval, gate or chapter log. last_completed_chapter becomes c and
// the orchestrator state is kept.
func PrepareBackfill(env Env, c int) (*Journal, error) {
	root := env.Root
	cp, cpBytes, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	if err := integrity.Require(root, cp.LastCompleted); err != nil {
		return nil, err
	}
	if err := backfillPreconditions(root, cp, c); err != nil {
		return nil, err
	}
	if err := products.CheckSummary(root, c); err != nil {
		return nil, backfillRerun(err)
	}
	delta, err := products.ReadDelta(root, c)
	if err != nil {
		return nil, backfillRerun(err)
	}
	if err := products.CheckDeltaStoryline(root, cp, delta); err != nil {
		return nil, err
	}
	if _, err := products.ReadCrossref(root, c, false); err != nil {
		return nil, backfillRerun(err)
	}
	if err := products.CheckMemory(root, delta.StorylineID); err != nil {
		return nil, backfillRerun(err)
	}
	text, err := products.ChapterText(root, layout.Chapter(c))
	if err != nil {
		return nil, err
	}
	j := &Journal{JournalVersion: 1, Backfill: true, Chapter: c, Volume: cp.CurrentVolume, CommittedAt: env.Now, StorylineID: delta.StorylineID, cpBytes: cpBytes}
	j.Output = Output{Chapter: c, WordCount: textmeasure.WordCount(text), GateDecision: gateBackfill, Warnings: []string{},
		Maintenance: map[string]any{}}
	fsRaw, err := prepareState(root, j, delta, readState(root))
	if err != nil {
		return nil, err
	}
	if _, err := prepareForeshadow(root, j, fsRaw); err != nil {
		return nil, err
	}
	if err := unknownEntities(root, j, delta); err != nil {
		return nil, err
	}
	if err := prepareMoves(root, j); err != nil {
		return nil, err
	}
	j.Moves = j.Moves[1:] // the chapter is already in chapters/
	j.TargetState = cp.State
	j.Output.OrchestratorState = cp.State
	j.Plan = plan(j)
	if err := checkWritePaths(root, j.Plan); err != nil {
		return nil, err
	}
	if err := journal.CheckDestinations(root, moveDests(j), chapterWayOut(c)); err != nil {
		return nil, err
	}
	return j, nil
}

func backfillPreconditions(root *project.Root, cp *checkpoint.Checkpoint, c int) error {
	if !cp.Idle() {
		return errs.Newf(errs.State, "第 %d 章正在进行中，不能回填导入的章节", "chapter %d is in flight; imported chapters cannot be backfilled now", cp.Inflight).
			With("inflight_chapter", cp.Inflight).WithExit(errs.ExitBlocked).
			Hint("先完成或放弃它（novel-step abandon --chapter "+strconv.Itoa(cp.Inflight)+"）", "finish or abandon it first (novel-step abandon --chapter "+strconv.Itoa(cp.Inflight)+")")
	}
	if c != cp.LastCompleted+1 {
		return errs.Newf(errs.Checkpoint, "第 %d 章不是下一章：last_completed_chapter=%d；回填按顺序进行", "chapter %d is not the next chapter: last_completed_chapter=%d; backfill goes in order",
			c, cp.LastCompleted).With("chapter", c).With("last_completed_chapter", cp.LastCompleted).
			Hint("运行 make -f pipeline.mk backfill，它从下一章继续", "run make -f pipeline.mk backfill; it continues with the next chapter")
	}
	chapters, err := ImportedChapters(root)
	if err != nil {
		return err
	}
	for _, k := range chapters {
		if k == c {
			return nil
		}
	}
	return errs.Newf(errs.State, "第 %d 章不在 %s 中，不是导入的章节", "chapter %d is not listed in %s; it was not imported", c, layout.ImportLog).
		With("file", layout.ImportLog).With("chapter", c).WithExit(errs.ExitFailed).
		Hint("新章节用 make -f pipeline.mk chapter 写作", "write new chapters with make -f pipeline.mk chapter")
}

func backfillRerun(err error) error {
	if e := errs.As(err); e != nil && e.HintZh == "" {
		e.Hint("运行 make -f pipeline.mk backfill 重新生成摘要", "run make -f pipeline.mk backfill to summarize the chapter again")
	}
	return err
}
