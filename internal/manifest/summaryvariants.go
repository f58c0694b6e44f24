package manifest

import (
	"encoding/json"
	"strconv"

	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// DefaultStoryline is the storyline of an imported chapter that no
// outline or contract places on one.
const DefaultStoryline = "main"

// NormalizeMode checks --mode: "" (the step's own mode), amend or
// backfill (summarize steps only).
func NormalizeMode(st stepid.Step, mode string) (string, error) {
	switch mode {
	case "":
		return "", nil
	case stepid.ModeAmend, stepid.ModeBackfill:
		if st.Volume || st.Stage != stepid.Summarize {
			return "", errs.Newf(errs.Usage, "--mode %s 只适用于 summarize 步骤，不适用于 %s", "--mode %s applies to summarize steps only, not %s", mode, st.String()).
				Hint("改用 chapter:NNN:summarize", "use chapter:NNN:summarize")
		}
		return mode, nil
	}
	return "", errs.Newf(errs.Usage, "--mode 只能是 amend 或 backfill，收到 %q", "--mode must be amend or backfill, got %q", mode).
		Hint("修订已提交章节用 --mode amend，回填导入章节用 --mode backfill", "use --mode amend for an edited committed chapter, --mode backfill for an imported one")
}

// VariantPath is where --write-manifest puts a variant packet
// (staging/manifests/chapter-NNN-{mode}.packet.json).
func VariantPath(c int, mode string) string { return layout.Packet(c, mode) }

// summaryVariant builds the amend or backfill summarizer packet. The
// chapter is the committed (or imported) file; the orchestrator state
// does not matter, but no chapter may be in flight.
func (b *builder) summaryVariant() error {
	cp, c, mode := b.cp, b.c, b.opt.Mode
	if !cp.Idle() {
		return errs.Newf(errs.State, "第 %d 章正在进行中，先完成或放弃它", "chapter %d is in flight; finish or abandon it first", cp.Inflight).
			With("inflight_chapter", cp.Inflight).WithExit(errs.ExitBlocked).
			Hint("novel-step abandon --chapter "+strconv.Itoa(cp.Inflight)+" 或 make -f pipeline.mk chapter", "novel-step abandon --chapter "+strconv.Itoa(cp.Inflight)+" or make -f pipeline.mk chapter")
	}
	b.p.Agent = Agent{Name: b.st.Agent(), Kind: KindAgent, Mode: mode}
	n := strconv.Itoa(c)
	sid := ""
	if mode == stepid.ModeAmend {
		if c > cp.LastCompleted {
			return errs.Newf(errs.State, "第 %d 章尚未提交（last_completed_chapter=%d），不能修订", "chapter %d is not committed (last_completed_chapter=%d); it cannot be amended", c, cp.LastCompleted).
				With("chapter", c).WithExit(errs.ExitFailed).Hint("只有已提交的章节可以修订", "only committed chapters can be amended")
		}
		line, err := changelog.ChapterLine(b.root, c)
		if err != nil {
			return err
		}
		if line == nil {
			return errs.Newf(errs.State, "%s 中没有第 %d 章的提交记录，不能修订", "%s has no commit line for chapter %d; it cannot be amended", layout.Changelog, c).
				With("file", layout.Changelog).WithExit(errs.ExitFailed).Hint("导入的章节先运行 make -f pipeline.mk backfill", "for imported chapters run make -f pipeline.mk backfill first")
		}
		sid = line.StorylineID
		before, _, err := changelog.Replay(b.root, c)
		if err != nil {
			return err
		}
		b.in.Set("base_state_version", line.BaseStateVersion)
		b.in.Set("state_before_chapter", json.RawMessage(before))
		mem, err := changelog.MemoryBefore(b.root, sid, c)
		if err != nil {
			return err
		}
		if mem != "" {
			b.ps.Set("storyline_memory", mem)
		}
		b.p.Next = []string{"novel-commit amend --chapter " + n + " --dry-run", "novel-commit amend --chapter " + n}
	} else {
		if c != cp.LastCompleted+1 {
			return errs.Newf(errs.Checkpoint, "第 %d 章不是下一章：last_completed_chapter=%d；回填按顺序进行", "chapter %d is not the next chapter: last_completed_chapter=%d; backfill goes in order", c, cp.LastCompleted).
				With("chapter", c).With("last_completed_chapter", cp.LastCompleted).Hint("运行 make -f pipeline.mk backfill", "run make -f pipeline.mk backfill")
		}
		var ok bool
		if sid, _, ok = products.ChapterStoryline(b.root, b.vol, c); !ok {
			sid = DefaultStoryline
			b.warn("第 %d 章没有大纲或契约指定故事线，使用 %s", "no outline or contract places chapter %d on a storyline; using %s", c, DefaultStoryline)
		}
		b.pathIf("current_state", layout.CurrentState)
		b.pathIf("storyline_memory", layout.Memory(sid))
		b.p.Next = []string{"novel-commit backfill --chapter " + n + " --dry-run", "novel-commit backfill --chapter " + n}
	}
	b.in.Set("storyline_id", sid)
	if blk := b.optionalBlock(); blk != nil {
		b.in.Set("chapter_outline_block", blk.Text)
	}
	if err := b.entityMap(); err != nil {
		return err
	}
	if err := b.foreshadowing(false); err != nil {
		return err
	}
	text := layout.Chapter(c)
	if _, err := products.ChapterText(b.root, text); err != nil {
		return err
	}
	b.ps.Set("chapter_draft", text)
	b.output(layout.StagingSummary(c), true, ViaFile)
	b.output(layout.StagingDelta(c), true, ViaFile)
	b.output(layout.StagingCrossref(c), true, ViaFile)
	b.output(layout.StagingMemory(sid), true, ViaFile)
	return nil
}

// optionalBlock is chapter c's outline block when the current volume's
// outline has one (an imported chapter usually has none).
func (b *builder) optionalBlock() *outline.Block {
	if b.vol < 1 {
		return nil
	}
	o, err := outline.Load(b.root, b.vol)
	if err != nil {
		return nil
	}
	blk, err := o.Block(b.c)
	if err != nil {
		return nil
	}
	return blk
}

// WriteVariant records the write-boundary snapshot (role = the mode, so
// a normal summarize's check never accepts it) and writes a variant packet
// to VariantPath; novel-commit amend|backfill --dry-run validates the
// outputs.
func WriteVariant(root *project.Root, p *Packet, st stepid.Step, mode string) error {
	rel := VariantPath(st.Chapter, mode)
	if _, err := root.Abs(rel); err != nil {
		return err
	}
	p.WrittenManifestPath = rel
	if err := boundary.Record(root, st, mode); err != nil {
		return err
	}
	return root.WriteJSON(rel, p)
}
