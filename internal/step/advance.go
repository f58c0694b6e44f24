package step

import (
	"fmt"

	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// stageAfter maps an advanced step to the pipeline_stage it records.
var stageAfter = map[string]string{
	stepid.Draft:       checkpoint.Drafting,
	stepid.Summarize:   checkpoint.Drafted,
	stepid.Refine:      checkpoint.Refined,
	stepid.Judge:       checkpoint.Judged,
	stepid.LogicReview: checkpoint.Judged,
	stepid.Polish:      checkpoint.Judged,
}

// Plan is what an advance would do, decided before any write.
type Plan struct {
	Step        stepid.Step
	StageBefore string
	Stage       string
	Changed     bool
	// RewriteGate: advance of polish marks the gate file pass/polished.
	RewriteGate bool
}

// legal checks advance legality against cp (orchestrator state, chapter,
// reachable stage) without reading products. It is run once before
// validation and again under the lock against a fresh checkpoint.
func legal(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step) (*Plan, error) {
	if st.Setup {
		return nil, errs.Newf(errs.Usage, "%s 不能用 advance 推进", "%s cannot be advanced", st.String()).With("step", st.String()).
			Hint("设定步骤由 novel-commit setup --step "+st.Stage+" 提交", "a setup step is committed with novel-commit setup --step "+st.Stage)
	}
	if st.Volume {
		e := errs.Newf(errs.Usage, "%s 不能用 advance 推进", "%s cannot be advanced", st.String()).With("step", st.String())
		if st.Stage == stepid.Review {
			return nil, e.Hint("卷末回顾由 novel-commit volume-review --volume "+layout.PadVol(st.Number)+" 提交",
				"a volume review is committed with novel-commit volume-review --volume "+layout.PadVol(st.Number))
		}
		return nil, e.Hint("卷规划由 novel-commit volume --volume "+layout.PadVol(st.Number)+" 提交",
			"a volume plan is committed with novel-commit volume --volume "+layout.PadVol(st.Number))
	}
	switch st.Stage {
	case stepid.Gate:
		return nil, errs.Newf(errs.Usage, "%s 是确定性步骤，不能用 advance 推进", "%s is deterministic and cannot be advanced", st.String()).
			With("step", st.String()).Hint("运行 novel-gate decide --chapter "+itoa(st.Chapter)+" --apply",
			"run novel-gate decide --chapter "+itoa(st.Chapter)+" --apply")
	case stepid.Commit:
		return nil, errs.Newf(errs.Usage, "%s 是确定性步骤，不能用 advance 推进", "%s is deterministic and cannot be advanced", st.String()).
			With("step", st.String()).Hint("运行 novel-commit --chapter "+itoa(st.Chapter), "run novel-commit --chapter "+itoa(st.Chapter))
	}
	if !cp.Writable() {
		return nil, StateError(cp, "advance")
	}
	if err := revision.Check(root, st.Chapter); err != nil {
		return nil, err
	}
	idle := cp.Idle()
	want := cp.NextChapter()
	if !idle {
		if err := inflightConsistent(cp); err != nil {
			return nil, err
		}
		want = cp.Inflight
	}
	if st.Chapter != want {
		return nil, orderErr(st, cp, fmt.Sprintf("只能推进第 %d 章", want), fmt.Sprintf("only chapter %d can be advanced", want))
	}
	p := &Plan{Step: st, StageBefore: cp.Stage, Stage: stageAfter[st.Stage]}
	cur := cp.Stage
	if idle {
		cur = ""
	}
	switch {
	case cur == checkpoint.Revising && st.Stage != stepid.Draft:
		return nil, orderErr(st, cp, "修订中（revising）只能推进 draft", "while revising only draft can be advanced")
	case cur == checkpoint.Polishing && st.Stage != stepid.Polish:
		return nil, orderErr(st, cp, "润色中（polishing）只能推进 polish", "while polishing only polish can be advanced")
	case cur == checkpoint.Polishing:
		p.Changed, p.RewriteGate = true, true
		return p, nil
	case st.Stage == stepid.Polish:
		// polish is reachable only through a gate decision of polish; once
		// done (judged, gate polished) a repeat is the idempotent no-op.
		if cur == checkpoint.Judged {
			g, err := loadGate(root, st.Chapter)
			if err != nil {
				return nil, err
			}
			if g != nil && g.Polished {
				p.Stage = cur
				return p, nil
			}
		}
		return nil, orderErr(st, cp, "polish 只能在门控结论为 polish（pipeline_stage=polishing）后推进",
			"polish can be advanced only after a gate decision of polish (pipeline_stage polishing)")
	}
	if checkpoint.Order(cur) >= checkpoint.Order(p.Stage) {
		p.Stage = cur // never lowers the stage
		return p, nil
	}
	p.Changed = true
	return p, nil
}

// orderErr wraps a refusal reason (already formatted: reasons are not
// format strings, so a stray verb in one cannot shift the arguments).
func orderErr(st stepid.Step, cp *checkpoint.Checkpoint, zh, en string) *errs.Error {
	sum := cp.Summarize()
	stage := "null"
	if sum.Stage != nil {
		stage = *sum.Stage
	}
	return errs.New(errs.StageOrder, fmt.Sprintf("无法推进 %s：%s（pipeline_stage=%s）", st.String(), zh, stage),
		fmt.Sprintf("cannot advance %s: %s (pipeline_stage %s)", st.String(), en, stage)).
		With("step", st.String()).With("inflight_chapter", sum.Inflight).With("pipeline_stage", sum.Stage).
		With("last_completed_chapter", cp.LastCompleted).
		Hint("运行 novel-step next 查看下一步", "run novel-step next to see the next step")
}

// priorStages are the stages whose products advance of a stage requires
// (SPEC §3: the products of S and of every earlier stage).
func priorStages(stage string, s settings.Settings) []string {
	switch stage {
	case stepid.Draft:
		return []string{stepid.Draft}
	case stepid.Summarize:
		return []string{stepid.Draft, stepid.Summarize}
	case stepid.Refine:
		return []string{stepid.Refine, stepid.Summarize}
	case stepid.Judge:
		return []string{stepid.Refine, stepid.Summarize, stepid.Judge}
	case stepid.LogicReview:
		return []string{stepid.Refine, stepid.Summarize, stepid.Judge, stepid.LogicReview}
	case stepid.Polish:
		out := []string{stepid.Polish, stepid.Summarize, stepid.Judge}
		if s.LogicReviewPolicy == settings.PolicyBlocking {
			out = append(out, stepid.LogicReview)
		}
		return out
	}
	return nil
}

// validateForAdvance validates the products of st and of the earlier
// stages, then the write boundary of st (only when the advance changes
// the stage: a repeated advance of an earlier step is a no-op, and later
// steps legitimately moved things since its snapshot). It returns the
// warnings and the open write-boundary windows the advance closes once it
// is applied.
func validateForAdvance(root *project.Root, cp *checkpoint.Checkpoint, p *Plan, s settings.Settings) ([]string, []*boundary.Window, error) {
	c := p.Step.Chapter
	for _, stage := range priorStages(p.Step.Stage, s) {
		validate := products.Validate
		if stage != p.Step.Stage {
			validate = products.ValidatePrior
		}
		if err := validate(root, cp, stepid.Chapter(c, stage), s); err != nil {
			return nil, nil, err
		}
	}
	if p.RewriteGate {
		g, err := loadGate(root, c)
		if err != nil {
			return nil, nil, err
		}
		if g == nil {
			return nil, nil, errs.Newf(errs.MissingFile, "缺少门控文件 %s，无法完成 polish", "missing gate file %s; polish cannot be completed", layout.StagingGate(c)).
				With("file", layout.StagingGate(c)).
				Hint("运行 novel-gate decide --chapter "+itoa(c)+" --apply 重新生成门控结果", "run novel-gate decide --chapter "+itoa(c)+" --apply")
		}
	}
	if !p.Changed {
		return []string{}, nil, nil
	}
	return checkBoundary(root, cp, p.Step, "")
}

// CheckBoundary runs the write-boundary check of st (role "" also checks
// the secondary judge's snapshot on a key chapter). A step whose advance
// closed its window is checked against the window's end (SPEC §22).
func CheckBoundary(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, role string) ([]string, error) {
	warnings, _, err := checkBoundary(root, cp, st, role)
	return warnings, err
}

func checkBoundary(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, role string) ([]string, []*boundary.Window, error) {
	warnings := []string{}
	var windows []*boundary.Window
	judgeRole := role
	if role == stepid.RolePrimary {
		judgeRole = "" // the primary judge's snapshot, without the secondary's
	}
	w, win, err := boundary.CheckWindow(root, st, judgeRole)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, w...)
	windows = append(windows, win)
	if role == "" && !st.Volume && st.Stage == stepid.Judge {
		key, err := products.KeyChapter(root, cp, st.Chapter)
		if err != nil {
			return nil, nil, err
		}
		if key {
			w, win, err := boundary.CheckWindow(root, st, stepid.RoleSecondary)
			if err != nil {
				return nil, nil, err
			}
			warnings = append(warnings, w...)
			windows = append(windows, win)
		}
	}
	return warnings, windows, nil
}

// apply performs a legal, validated plan: the gate rewrite of polish
// first, then the edit of cp, which the caller saves (checkpoint.Update).
func apply(root *project.Root, cp *checkpoint.Checkpoint, p *Plan) error {
	if p.RewriteGate {
		if err := markPolished(root, p.Step.Chapter); err != nil {
			return err
		}
	}
	cp.Inflight = p.Step.Chapter
	cp.Stage = p.Stage
	return nil
}

// AdvanceResult is the output of `novel-step advance`.
type AdvanceResult struct {
	Step        string             `json:"step"`
	Changed     bool               `json:"changed"`
	StageBefore *string            `json:"stage_before"`
	Stage       *string            `json:"pipeline_stage"`
	Checkpoint  checkpoint.Summary `json:"checkpoint"`
	Warnings    []string           `json:"warnings"`
}

// Advance runs the whole advance: legality, validation (products of st
// and earlier stages, then the write boundary), and — only when the stage
// changes — the lock, a re-check against the checkpoint as it is under
// the lock, and the writes
// (checkpoint.Update). Nothing is written on any refusal.
func Advance(root *project.Root, cp *checkpoint.Checkpoint, first checkpoint.Snapshot, st stepid.Step, s settings.Settings,
	getenv func(string) string, now func() string) (*AdvanceResult, error) {
	p, err := legal(root, cp, st)
	if err != nil {
		return nil, err
	}
	warnings, windows, err := validateForAdvance(root, cp, p, s)
	if err != nil {
		return nil, err
	}
	if p.Changed {
		w := checkpoint.Writer{Root: root, Getenv: getenv, Chapter: st.Chapter, StaleMinutes: s.LockStaleMinutes, Now: now(),
			BeforeLock: checkpoint.RaceHook(root, getenv)}
		fresh, err := checkpoint.Update(w, first, func(fresh *checkpoint.Checkpoint, _ bool) (bool, error) {
			p2, err := legal(root, fresh, st)
			if err != nil {
				return false, err
			}
			if *p2 != *p {
				// Someone moved the checkpoint meanwhile: judge again from it.
				if warnings, windows, err = validateForAdvance(root, fresh, p2, s); err != nil {
					return false, err
				}
			}
			p = p2
			if !p.Changed {
				return false, nil
			}
			return true, apply(root, fresh, p)
		})
		if err != nil {
			return nil, err
		}
		cp = fresh
		// The step is done: later writes are not its agent's. Failing to
		// record that only leaves the window open, as before any advance.
		for _, win := range windows {
			if !p.Changed {
				break // another writer advanced it meanwhile: its advance closed the window
			}
			if err := win.Close(root); err != nil {
				warnings = append(warnings, "无法记录写入边界窗口的结束："+errs.Coerce(err).Message("zh")+
					" / cannot record the end of the write-boundary window: "+errs.Coerce(err).Message("en"))
			}
		}
	}
	return &AdvanceResult{Step: st.String(), Changed: p.Changed, StageBefore: strPtr(p.StageBefore), Stage: strPtr(cp.Stage),
		Checkpoint: cp.Summarize(), Warnings: warnings}, nil
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
