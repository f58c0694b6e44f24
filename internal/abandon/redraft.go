package abandon

import (
	"strconv"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Redraft is what `novel-step redraft` does, or would do, to a chapter
// whose staging chapter is gone: the products its round made from the old
// text are set aside and the stage goes back to where the round's draft
// starts (DECISIONS "Redraft invalidates later products").
type Redraft struct {
	Chapter int      `json:"chapter"`
	Changed bool     `json:"changed"`
	MovedTo *string  `json:"moved_to"`
	Moved   []string `json:"moved"`

	files []string // to set aside, in order
	stage string   // the stage after; "" leaves it
}

// PlanRedraft lists (read-only) what a redraft of chapter c would change:
// the round's later products that exist — summary, delta, crossref,
// memory, evals, logic review, gate file, and the pre-refine and
// pre-polish copies of the old text — and the stage to return to:
// revising in a revision round (the new draft is a revision again),
// drafting otherwise; an idle chapter keeps its (null) stage.
func PlanRedraft(root *project.Root, cp *checkpoint.Checkpoint, c int) (*Redraft, error) {
	r := &Redraft{Chapter: c, Moved: []string{}}
	rels := append(products.AfterDraft(root, c), layout.StagingPreCopy(c, stepid.Refine), layout.StagingPreCopy(c, stepid.Polish))
	for _, rel := range rels {
		there, err := root.Lexists(rel)
		if err != nil {
			return nil, err
		}
		if there {
			r.files = append(r.files, rel)
		}
	}
	if !cp.Idle() && cp.Inflight == c {
		want := checkpoint.Drafting
		if cp.RevisionCount > 0 {
			want = checkpoint.Revising
		}
		if cp.Stage != want {
			r.stage = want
		}
	}
	r.Changed = len(r.files) > 0 || r.stage != ""
	return r, nil
}

// CheckRedraft is the legality of a redraft of chapter c: WRITING or
// CHAPTER_REWRITE, c in flight (or, when idle, the next chapter), no
// commit of it under way, and no staging chapter — a redraft never sets
// aside products of a text that is still there (an edited chapter is
// judged again with novel-gate resolve --rejudge).
func CheckRedraft(root *project.Root, cp *checkpoint.Checkpoint, c int) error {
	n := strconv.Itoa(c)
	if !cp.Writable() {
		hint, hintEn := "运行 novel-step status 查看项目状态", "run novel-step status to see the project state"
		if cp.State == checkpoint.ErrorRetry {
			hint, hintEn = "先运行 novel-step retry，再运行 novel-step redraft --chapter "+n, "run novel-step retry first, then novel-step redraft --chapter "+n
		}
		return errs.Newf(errs.State, "当前编排状态 %s 不允许重新起草（需 WRITING 或 CHAPTER_REWRITE）",
			"orchestrator state %s does not allow a redraft (needs WRITING or CHAPTER_REWRITE)", cp.State).
			With("orchestrator_state", cp.State).Hint(hint, hintEn)
	}
	if err := checkInFlight(root, cp, c, "重新起草", "drafted again"); err != nil {
		return err
	}
	rel := layout.StagingChapter(c)
	there, err := root.Lexists(rel)
	if err != nil {
		return err
	}
	if there {
		return errs.Newf(errs.State, "第 %d 章的暂存稿 %s 还在，重新起草会把由它得出的产物移走", "chapter %d's staging chapter %s is still there; a redraft would set aside what was made from it", c, rel).
			With("file", rel).With("chapter", c).
			Hint("要重写本章，先把 "+rel+" 移走或删除再运行本命令；修改过的暂存稿要重新评审，用 novel-gate resolve --chapter "+n+" --rejudge",
				"to draft the chapter again, move or delete "+rel+" first and run this again; to have an edited staging chapter judged again, use novel-gate resolve --chapter "+n+" --rejudge")
	}
	return nil
}

// RedraftChapter sets aside what PlanRedraft lists into
// staging/abandoned/chapter-NNN-{n}/ (same layout below staging/, like
// abandon) and edits cp's stage; the caller saves cp after
// (checkpoint.Update), so files move before the checkpoint changes and a
// redraft cut short is finished by running it again. The caller holds
// the lock and has run CheckRedraft.
func RedraftChapter(root *project.Root, cp *checkpoint.Checkpoint, c int) (*Redraft, error) {
	r, err := PlanRedraft(root, cp, c)
	if err != nil {
		return nil, err
	}
	if len(r.files) > 0 {
		dest, moved, err := setAside(root, c, r.files)
		if err != nil {
			return nil, err
		}
		r.MovedTo, r.Moved = &dest, moved
	}
	if r.stage != "" {
		cp.Stage = r.stage
	}
	return r, nil
}
