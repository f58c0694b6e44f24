package volumeplan

import (
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// reviewStep is the review step of volume v (volume:VV:review).
func reviewStep(v int) stepid.Step {
	return stepid.Step{Volume: true, Number: v, Stage: stepid.Review}
}

// ReviewResult is what `novel-commit volume-review` prints.
type ReviewResult struct {
	Volume int    `json:"volume"`
	Review string `json:"review"`
	// BookPlan is the updated book plan committed with the review and
	// Archived where the one it replaced is kept (SPEC §25); empty when
	// the review left the plan alone.
	BookPlan          string   `json:"book_plan,omitempty"`
	Archived          string   `json:"archived_book_plan,omitempty"`
	Warnings          []string `json:"warnings"`
	CurrentVolume     int      `json:"current_volume"`
	OrchestratorState string   `json:"orchestrator_state"`
	NextStep          string   `json:"next_step"`
}

// ReviewJournal is staging/volume-VV-review.journal.json (SPEC §8.4
// applied to §23): written before the first change, deleted last.
type ReviewJournal struct {
	JournalVersion int                `json:"journal_version"`
	Volume         int                `json:"volume"`
	CommittedAt    string             `json:"committed_at"`
	Plan           []journal.PlanStep `json:"plan"`
	Move           journal.Move       `json:"move"`
	// Archive sets the committed book plan aside under logs/book-plan/,
	// BookPlan moves the staged one into place (both empty: no update).
	Archive  []journal.Move `json:"archive,omitempty"`
	BookPlan []journal.Move `json:"book_plan,omitempty"`
	Output   ReviewResult   `json:"output"`
}

// StepBookPlan is the review commit's step that archives the book plan
// and moves the updated one into place.
const StepBookPlan = "book_plan"

// stagedBookPlan is where a volume review stages an updated book plan.
func stagedBookPlan(v int, name string) string { return layout.StagingVolumeDir(v) + "/" + name }

// PrepareReview validates the staged review of volume v: VOL_REVIEW with
// v the current volume, a non-empty UTF-8 review.md, no write outside
// staging/ since the review packet, and a destination that holds nothing
// different (nothing committed is overwritten).
func PrepareReview(root *project.Root, v int, now string) (*ReviewJournal, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	if err := integrity.Require(root, cp.LastCompleted); err != nil {
		return nil, err
	}
	vv := layout.PadVol(v)
	if cp.State != checkpoint.VolReview || cp.CurrentVolume != v {
		return nil, errs.Newf(errs.State, "只能在 VOL_REVIEW（当前卷 %d）时提交该卷的回顾，当前为 %s，要提交的是第 %d 卷",
			"a volume review can be committed only in VOL_REVIEW for the current volume (%d); the project is in %s and the review is for volume %d",
			cp.CurrentVolume, cp.State, v).
			With("orchestrator_state", cp.State).With("current_volume", cp.CurrentVolume).With("volume", v).
			Hint("卷末章节提交后（VOL_REVIEW）再回顾该卷", "review a volume after its last chapter is committed (VOL_REVIEW)")
	}
	src, dst := layout.StagingVolumeReview(v), layout.VolumeReview(v)
	if !root.IsFile(src) {
		if _, err := root.Abs(src); err != nil {
			return nil, err
		}
		return nil, errs.Newf(errs.MissingFile, "缺少卷末回顾 %s", "the volume review %s is missing", src).With("file", src).With("volume", v).
			Hint("运行回顾代理生成它：novel instructions volume:"+vv+":review；不回顾就运行 novel-step volume --next",
				"run the reviewer to write it: novel instructions volume:"+vv+":review; to skip the review run novel-step volume --next")
	}
	text, err := root.ReadText(src)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, errs.Newf(errs.Schema, "卷末回顾 %s 是空的", "the volume review %s is empty", src).With("file", src).
			Hint("重新运行回顾，或手写回顾后再提交", "run the review again, or write it by hand, then commit")
	}
	warns, err := boundary.Check(root, reviewStep(v), "")
	if err != nil {
		return nil, err
	}
	if err := journal.CheckDestinations(root, []journal.Dest{{File: dst, From: src}}, func(file string) journal.WayOut {
		return journal.WayOut{Zh: "把 " + file + " 移走后重新运行 novel-commit volume-review --volume " + vv,
			En: "move " + file + " aside and run novel-commit volume-review --volume " + vv + " again"}
	}); err != nil {
		return nil, err
	}
	next := v + 1
	j := &ReviewJournal{JournalVersion: 1, Volume: v, CommittedAt: now, Move: journal.Move{From: src, To: dst}}
	if err := reviewBookPlan(root, v, j); err != nil {
		return nil, err
	}
	j.Output = ReviewResult{Volume: v, Review: dst, Warnings: warns, CurrentVolume: next, OrchestratorState: checkpoint.VolPlanning,
		NextStep: "volume:" + layout.PadVol(next) + ":plan"}
	var bookW []string
	for _, m := range append(append([]journal.Move{}, j.Archive...), j.BookPlan...) {
		bookW = append(bookW, m.To)
	}
	if len(j.BookPlan) > 0 {
		j.Output.BookPlan = bookplan.File
	}
	if len(j.Archive) > 0 {
		j.Output.Archived = j.Archive[0].To
	}
	if j.Output.Warnings == nil {
		j.Output.Warnings = []string{}
	}
	j.Plan = []journal.PlanStep{
		{Name: StepJournal, Writes: []string{layout.VolumeReviewJournal(v)}},
		{Name: StepMove, Writes: []string{dst}},
	}
	if len(bookW) > 0 {
		j.Plan = append(j.Plan, journal.PlanStep{Name: StepBookPlan, Writes: bookW})
	}
	j.Plan = append(j.Plan, []journal.PlanStep{
		{Name: StepCheckpoint, Writes: []string{layout.Checkpoint}},
		{Name: StepCleanup, Writes: []string{layout.VolumeStepPacket(v, stepid.Review), layout.VolumeStepSnapshot(v, stepid.Review), layout.VolumeReviewJournal(v)}},
	}...)
	return j, nil
}

// reviewBookPlan prepares the update of the book plan a review staged
// beside review.md (SPEC §25): it must validate like setup:book's, and keep
// the chapters of the volumes already outlined (1…v) where they are —
// they are written or being written. The committed plan is kept under
// logs/book-plan/book-plan-vVV.json (its .md beside it).
func reviewBookPlan(root *project.Root, v int, j *ReviewJournal) error {
	staged := stagedBookPlan(v, bookplan.File)
	if !root.IsFile(staged) {
		return nil
	}
	p, err := bookplan.Read(root, staged)
	if err != nil {
		return err
	}
	for k := 1; k <= v; k++ {
		if !root.IsFile(layout.Outline(k)) {
			continue
		}
		o, err := outline.Load(root, k)
		if err != nil {
			return err
		}
		if len(o.Chapters) == 0 {
			continue
		}
		have := [2]int{o.Chapters[0], o.Chapters[len(o.Chapters)-1]}
		if k == v {
			cp, err := checkpoint.Load(root)
			if err != nil {
				return err
			}
			have[1] = min(have[1], cp.LastCompleted) // the volume ends where it was written
		}
		if e, ok := p.Of(k); !ok || e.Chapters != have {
			return errs.Newf(errs.Outline, "更新后的全书规划 %s 把第 %d 卷定为第 %v 章，但这一卷已写成第 %d–%d 章：已写的卷不能改动",
				"the updated book plan %s gives volume %d chapters %v, but that volume was written as chapters %d–%d: written volumes cannot change",
				staged, k, e.Chapters, have[0], have[1]).
				With("file", staged).With("volume", k).With("expected_range", []int{have[0], have[1]}).
				Hint("让第 1–"+strconv.Itoa(v)+" 卷的章节范围与已写的一致，只改之后的各卷；或删掉 "+staged+" 不更新全书规划",
					"keep volumes 1–"+strconv.Itoa(v)+" as written and change only the later ones; or remove "+staged+" to leave the book plan as it is")
		}
	}
	dests := []journal.Dest{}
	if root.IsFile(bookplan.File) {
		j.Archive = append(j.Archive, journal.Move{From: bookplan.File, To: bookplan.Archived(v)})
		dests = append(dests, journal.Dest{File: bookplan.Archived(v), From: bookplan.File})
		if root.IsFile(bookplan.Doc) {
			md := strings.TrimSuffix(bookplan.Archived(v), ".json") + ".md"
			j.Archive = append(j.Archive, journal.Move{From: bookplan.Doc, To: md})
			dests = append(dests, journal.Dest{File: md, From: bookplan.Doc})
		}
	}
	j.BookPlan = append(j.BookPlan, journal.Move{From: staged, To: bookplan.File})
	if root.IsFile(stagedBookPlan(v, bookplan.Doc)) {
		j.BookPlan = append(j.BookPlan, journal.Move{From: stagedBookPlan(v, bookplan.Doc), To: bookplan.Doc})
	}
	vv := layout.PadVol(v)
	return journal.CheckDestinations(root, dests, func(file string) journal.WayOut {
		return journal.WayOut{Zh: "把 " + file + " 移走后重新运行 novel-commit volume-review --volume " + vv,
			En: "move " + file + " aside and run novel-commit volume-review --volume " + vv + " again"}
	})
}

// moveBookPlan runs the archive then the install moves; each is done once:
// an archive whose destination exists was made by an earlier run (its
// source by then holds the new plan), an install whose source is gone too.
func moveBookPlan(root *project.Root, j *ReviewJournal) error {
	for _, m := range j.Archive {
		if done, err := root.Lexists(m.To); err != nil || done {
			if err != nil {
				return err
			}
			continue
		}
		if err := root.Move(m.From, m.To); err != nil {
			return err
		}
	}
	for _, m := range j.BookPlan {
		src, err := root.Lexists(m.From)
		if err != nil {
			return err
		}
		if !src {
			if dst, _ := root.Lexists(m.To); dst {
				continue
			}
			return errs.Newf(errs.MissingFile, "回顾提交中 %s 和 %s 都不存在", "neither %s nor %s exists during the review commit", m.From, m.To).With("file", m.From)
		}
		if err := root.Move(m.From, m.To); err != nil {
			return err
		}
	}
	return nil
}

// LoadReviewJournal reads volume v's review journal.
func LoadReviewJournal(root *project.Root, v int) (*ReviewJournal, error) {
	rel := layout.VolumeReviewJournal(v)
	var j ReviewJournal
	if err := journal.Read(root, rel, "卷回顾提交日志", "volume review journal", &j); err != nil {
		return nil, err
	}
	if j.Volume != v || j.Move.From != layout.StagingVolumeReview(v) || j.Move.To != layout.VolumeReview(v) {
		return nil, errs.Newf(errs.Schema, "%s 不是第 %d 卷的回顾提交日志", "%s is not the review journal of volume %d", rel, v).With("file", rel)
	}
	// The book plan moves may only be the ones PrepareReview makes.
	allowed := map[string]bool{bookplan.File: true, bookplan.Doc: true, bookplan.Archived(v): true,
		strings.TrimSuffix(bookplan.Archived(v), ".json") + ".md": true,
		stagedBookPlan(v, bookplan.File):                          true, stagedBookPlan(v, bookplan.Doc): true}
	for _, m := range append(append([]journal.Move{}, j.Archive...), j.BookPlan...) {
		if !allowed[m.From] || !allowed[m.To] {
			return nil, errs.Newf(errs.Schema, "%s 不是第 %d 卷的回顾提交日志", "%s is not the review journal of volume %d", rel, v).With("file", rel)
		}
	}
	return &j, nil
}

// ExecuteReview runs the review journal: move the review into the volume
// directory, enter VOL_PLANNING for the next volume, clean up.
func ExecuteReview(root *project.Root, j *ReviewJournal, fresh bool, crash func(string)) (*ReviewResult, error) {
	v := j.Volume
	steps := []journal.Step{
		{Name: StepMove, Run: func() error {
			if src, err := root.Lexists(j.Move.From); err != nil || !src {
				if dst, _ := root.Lexists(j.Move.To); !dst && err == nil {
					return errs.Newf(errs.MissingFile, "回顾提交中 %s 和 %s 都不存在", "neither %s nor %s exists during the review commit", j.Move.From, j.Move.To).
						With("file", j.Move.From)
				}
				return err
			}
			return root.Move(j.Move.From, j.Move.To)
		}},
		{Name: StepBookPlan, Run: func() error { return moveBookPlan(root, j) }},
		{Name: StepCheckpoint, Run: func() error {
			return checkpoint.Edit(root, j.CommittedAt, func(cp *checkpoint.Checkpoint) (bool, error) {
				if cp.State == checkpoint.VolPlanning && cp.CurrentVolume == v+1 {
					return false, nil // done by an earlier run
				}
				cp.State, cp.CurrentVolume = checkpoint.VolPlanning, v+1
				return true, nil
			})
		}},
		{Name: StepCleanup, Run: func() error {
			for _, rel := range []string{layout.VolumeStepPacket(v, stepid.Review), layout.VolumeStepSnapshot(v, stepid.Review)} {
				if err := root.Remove(rel); err != nil {
					return err
				}
			}
			for _, rel := range []string{layout.StagingVolumeDir(v), layout.StagingVolumes} {
				if abs, err := root.Abs(rel); err == nil {
					os.Remove(abs) // only when empty
				}
			}
			return root.Remove(layout.VolumeReviewJournal(v))
		}},
	}
	tx := journal.Tx{File: layout.VolumeReviewJournal(v), Key: "commit_step", Resume: "novel-commit volume-review --volume " + layout.PadVol(v)}
	if err := tx.Run(root, j, fresh, crash, steps); err != nil {
		return nil, err
	}
	out := j.Output
	return &out, nil
}

// Text is the --text line of a review commit.
func (r *ReviewResult) Text() string {
	return "第 " + strconv.Itoa(r.Volume) + " 卷回顾已保存到 " + r.Review + "，进入第 " + strconv.Itoa(r.CurrentVolume) + " 卷规划，下一步 novel instructions " + r.NextStep
}
