package gate

import (
	"errors"
	"os"
	"strconv"

	"github.com/novelsuite/novel/internal/abandon"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/stepid"
)

// Resolve actions (SPEC §7.5).
const (
	ActAccept  = "accept"
	ActRevise  = "revise"
	ActRejudge = "rejudge"
	ActRegen   = "regen"
)

// ResolveResult is what resolve prints.
type ResolveResult struct {
	Chapter            int                `json:"chapter"`
	Action             string             `json:"action"`
	Status             string             `json:"status"`
	RevisionStatusFile string             `json:"revision_status_file"`
	DecisionAt         string             `json:"decision_at"`
	Files              []string           `json:"files"` // archived, removed or set aside
	Checkpoint         checkpoint.Summary `json:"checkpoint"`
	NextStep           *string            `json:"next_step"`
}

func step(c int, stage string) *string {
	s := "chapter:" + layout.Pad(c) + ":" + stage
	return &s
}

// Resolve settles chapter c's pending revision with action. It checks
// before the lock (a refusal writes nothing) and again, from the fresh
// checkpoint, under it (checkpoint.Update) when another writer moved it.
func Resolve(env Env, c int, action, note string) (*ResolveResult, error) {
	cp, snap, err := checkpoint.LoadSnapshot(env.Root)
	if err != nil {
		return nil, err
	}
	in, err := checkResolve(env, cp, c, action)
	if err != nil {
		return nil, err
	}
	var res *ResolveResult
	w := checkpoint.Writer{Root: env.Root, Getenv: env.Getenv, Chapter: c, StaleMinutes: env.Settings.LockStaleMinutes, Now: env.Now,
		BeforeLock: checkpoint.RaceHook(env.Root, env.Getenv)}
	cp, err = checkpoint.Update(w, snap, func(fresh *checkpoint.Checkpoint, moved bool) (save bool, err error) {
		if moved {
			if in, err = checkResolve(env, fresh, c, action); err != nil {
				return false, err
			}
		}
		res, save, err = in.write(env, fresh, note)
		return save, err
	})
	if err != nil {
		return nil, err
	}
	res.Status, res.RevisionStatusFile, res.DecisionAt, res.Checkpoint = in.st.Status, in.st.File, in.st.DecisionAt, cp.Summarize()
	return res, nil
}

// resolveIn is what checkResolve read and decided.
type resolveIn struct {
	c        int
	action   string
	st       *revision.Status
	g        *GateFile
	inflight bool
	fixes    []eval.Fix
}

// checkResolve checks resolve's preconditions against cp, writing nothing.
func checkResolve(env Env, cp *checkpoint.Checkpoint, c int, action string) (*resolveIn, error) {
	root := env.Root
	n := strconv.Itoa(c)
	st, err := revision.Load(root, c)
	if err != nil {
		return nil, err
	}
	g, err := LoadGateFile(root, c)
	if err != nil {
		return nil, err
	}
	inflight := revision.IsInflight(cp, c)
	if st == nil && inflight && g != nil && IsPause(g.Decision) {
		// The gate paused the chapter but its revision file is missing:
		// resolve it as the pending quality-gate revision it should be.
		st = revision.New(c, revision.QualityGate, "门控结论为 "+g.Decision, env.Now)
		st.GateFile = layout.StagingGate(c)
	}
	if st == nil {
		return nil, errs.Newf(errs.State, "第 %d 章没有待处理的修订（%s 不存在）", "chapter %d has no revision to resolve (%s does not exist)", c, layout.Revision(c)).
			With("chapter", c).With("file", layout.Revision(c)).Hint("用 novel-gate pending 列出待处理的修订", "list pending revisions with novel-gate pending")
	}
	if st.Status != revision.StatusPending {
		return nil, errs.Newf(errs.State, "第 %d 章的修订状态已是 %s，不是 pending", "chapter %d's revision is already %s, not pending", c, st.Status).
			With("chapter", c).With("file", st.File).With("status", st.Status).
			Hint("无需再处理；用 novel-step next 查看下一步", "nothing to resolve; run novel-step next for the next step")
	}
	if action != ActAccept && !inflight {
		e := errs.Newf(errs.State, "第 %d 章不在制作中，只能 --accept", "chapter %d is not in flight; only --accept is possible", c).
			With("chapter", c).With("action", action)
		// Rollback only undoes committed chapters: never offer it for one
		// that was not committed.
		if revision.StandingOf(cp, c) == revision.Committed {
			return nil, e.Hint("接受修订：novel-gate resolve --chapter "+n+" --accept；或回滚：novel-commit rollback --to "+n,
				"accept it (novel-gate resolve --chapter "+n+" --accept) or roll back with novel-commit rollback --to "+n)
		}
		return nil, e.Hint("接受修订：novel-gate resolve --chapter "+n+" --accept（第 "+n+" 章尚未提交，没有可回滚的内容）",
			"accept it: novel-gate resolve --chapter "+n+" --accept (chapter "+n+" is not committed, so there is nothing to roll back)")
	}
	switch action {
	case ActRevise, ActRejudge:
		if !cp.Writable() {
			return nil, stateErr(cp)
		}
		if err := journal.BlockedExit(errs.ExitBlocked, root, journal.Commit); err != nil {
			return nil, err
		}
	case ActRegen:
		if err := abandon.Check(root, cp, c); err != nil {
			return nil, err
		}
	}
	var fixes []eval.Fix
	if action == ActRevise {
		if fixes, err = revisionFixes(root, c, g); err != nil {
			return nil, err
		}
	}

	return &resolveIn{c: c, action: action, st: st, g: g, inflight: inflight, fixes: fixes}, nil
}

// write settles the revision under the lock and edits cp; save says
// whether cp changed (checkpoint.Update then saves it).
func (in *resolveIn) write(env Env, cp *checkpoint.Checkpoint, note string) (res *ResolveResult, save bool, err error) {
	root, c, g := env.Root, in.c, in.g
	res = &ResolveResult{Chapter: c, Action: in.action, Files: []string{}}
	status := revision.StatusRejected
	if in.action == ActAccept {
		status = revision.StatusAccepted
	}
	in.st.Decide(status, note, env.Now)
	if err := revision.Save(root, in.st); err != nil {
		return nil, false, err
	}
	switch in.action {
	case ActAccept:
		if g != nil && in.inflight && g.Decision != Accepted {
			g.OriginalDecision, g.Decision = g.Decision, Accepted
			g.NextStep = nextStep(c, Accepted)
			g.ResolvedAt, g.ResolveNote = env.Now, note
			if err := saveGateFile(root, g); err != nil {
				return nil, false, err
			}
		}
		if in.inflight {
			res.NextStep = step(c, stepid.Commit)
		}
	case ActRevise:
		if g != nil {
			g.RequiredFixes = in.fixes
			g.ResolvedAt, g.ResolveNote = env.Now, note
			if err := saveGateFile(root, g); err != nil {
				return nil, false, err
			}
		}
		if res.Files, err = archiveRound(root, c, cp.RevisionCount); err != nil {
			return nil, false, err
		}
		startRevision(cp)
		save = true
		res.NextStep = step(c, stepid.Draft)
	case ActRejudge:
		if res.Files, err = removeJudgedProducts(root, c); err != nil {
			return nil, false, err
		}
		cp.Stage = checkpoint.Drafting
		save = true
		res.NextStep = step(c, stepid.Summarize)
	case ActRegen:
		ab, err := abandon.Chapter(root, cp, c, env.Now)
		if err != nil {
			return nil, false, err
		}
		res.Files = ab.Moved
		save = true
		res.NextStep = step(c, stepid.Draft)
	}
	return res, save, root.Remove(layout.Blocked)
}

// revisionFixes: the report's high/medium fix instructions, else the
// gate's own required fixes.
func revisionFixes(root *project.Root, c int, g *GateFile) ([]eval.Fix, error) {
	if root.Exists(layout.StagingLogicReview(c)) {
		lr, err := products.LogicReviewReport(root, c)
		if err != nil {
			return nil, err
		}
		if f := reviewFixes(lr); len(f) > 0 {
			return f, nil
		}
	}
	if g != nil {
		return g.RequiredFixes, nil
	}
	return []eval.Fix{}, nil
}

// removeJudgedProducts deletes everything after the draft (rejudge): the
// summary, delta, crossref, memory, evals, report and gate file.
func removeJudgedProducts(root *project.Root, c int) ([]string, error) {
	rels := products.AfterDraft(root, c)
	var out []string
	for _, rel := range rels {
		abs, err := root.Abs(rel)
		if err != nil {
			return nil, err
		}
		if err := os.Remove(abs); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, errs.Newf(errs.IO, "无法删除 %s：%v", "cannot remove %s: %v", rel, err).With("file", rel)
		}
		out = append(out, rel)
	}
	return out, nil
}
