package pipeline

import (
	"fmt"
	"strconv"

	"github.com/novelsuite/novel/internal/abandon"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
)

// redraft runs before the writer drafts chapter c. When the staging
// chapter is gone but its round still holds products made from the old
// text (summary, delta, evals, gate file…) or a stage past the draft, they
// no longer describe the chapter that is about to be written: novel-step
// redraft sets them aside and returns the stage to the round's draft, so
// summarize, refine, judge and the gate run again on the new text. It runs
// before the writer, so a kill in between leaves a project whose next
// step is still the draft (DECISIONS "Redraft invalidates later products").
func (e *Env) redraft(c int) error {
	if there, err := e.Root.Lexists(layout.StagingChapter(c)); err != nil || there {
		return err
	}
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return err
	}
	plan, err := abandon.PlanRedraft(e.Root, cp, c)
	if err != nil || !plan.Changed {
		return err
	}
	raw, err := e.must("novel-step", "redraft", "--chapter", strconv.Itoa(c))
	if err != nil {
		return err
	}
	var r abandon.Redraft
	if err := jsonio.Decode(raw, "novel-step redraft", &r); err != nil {
		return err
	}
	zh, en := "", ""
	if r.MovedTo != nil {
		zh = fmt.Sprintf("；本轮由旧稿得出的 %d 个产物已移至 %s/", len(r.Moved), *r.MovedTo)
		en = fmt.Sprintf("; %d products the round made from the old text were set aside in %s/", len(r.Moved), *r.MovedTo)
	}
	fmt.Fprintf(e.Stderr, "[第%s章] 暂存稿已不在，重新起草%s / the staging chapter is gone and is drafted again%s\n", layout.Pad(c), zh, en)
	return nil
}
