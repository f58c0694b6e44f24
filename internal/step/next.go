// Package step holds the checkpoint state machine of novel-step (SPEC §3):
// the next-step rules, advance legality and transitions, and the
// fail/retry/abandon/volume commands. It reads products through the
// products package and never walks the project tree for `next`.
package step

import (
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/setupstep"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
)

// Reasons of the next step (SPEC §3 rules 0–6).
const (
	ReasonResumeCommit   = "resume_commit"
	ReasonFresh          = "fresh"
	ReasonRevising       = "revising"
	ReasonPolishing      = "polishing"
	ReasonMissingChapter = "missing_chapter"
	ReasonMissingSummary = "missing_summary"
	ReasonStaleDelta     = "stale_delta"
	ReasonReadyRefine    = "ready_refine"
	ReasonMissingEval    = "missing_eval"
	ReasonMissingSecond  = "missing_secondary_eval"
	ReasonMissingLogic   = "missing_logic_review"
	ReasonReadyGate      = "ready_gate"
	ReasonReadyCommit    = "ready_commit"
	// Setup (SPEC §17): a setup step's products are missing in
	// QUICK_START, or its commit was interrupted.
	ReasonSetupMissing = "setup_missing"
	ReasonResumeSetup  = "resume_setup_commit"
	// The continuity-auditor review of the window a commit's continuity
	// audit covered, on the agent route (SPEC §21, §25): audit:NNN.
	ReasonContinuityAudit = "continuity_audit"
	// VOL_REVIEW: the review is to be written (volume_review) or is staged
	// and waits for novel-commit volume-review (review_staged).
	ReasonVolumeReview = "volume_review"
	ReasonReviewStaged = "review_staged"
	// QUICK_START with its setup done, or VOL_PLANNING: the volume's plan
	// (SPEC §3 rule 1).
	ReasonPlanVolume = "plan_volume"
)

// volumeReview is the next step of a project in VOL_REVIEW: the volume's
// review (volume:VV:review). A staged review.md means the review was
// written; novel-commit volume-review keeps it (novel-step volume --next
// skips it).
func volumeReview(root *project.Root, cp *checkpoint.Checkpoint) *Next {
	v := max(cp.CurrentVolume, 1)
	n := &Next{Step: "volume:" + layout.PadVol(v) + ":review", Reason: ReasonVolumeReview, Chapter: cp.LastCompleted, Inflight: inflightView(cp)}
	if text, err := root.ReadText(layout.StagingVolumeReview(v)); err == nil && strings.TrimSpace(text) != "" {
		n.Reason = ReasonReviewStaged
	}
	return n
}

// Inflight is the chapter in flight as next saw it.
type Inflight struct {
	Chapter *int    `json:"chapter"`
	Stage   *string `json:"pipeline_stage"`
}

// Evidence has one boolean per staging product (true = exists and
// validates), plus the key-chapter flag and the gate decision.
type Evidence struct {
	Chapter       bool    `json:"chapter"`
	Summary       bool    `json:"summary"`
	Delta         bool    `json:"delta"`
	Crossref      bool    `json:"crossref"`
	Memory        bool    `json:"memory"`
	Eval          bool    `json:"eval"`
	EvalSecondary bool    `json:"eval_secondary"`
	LogicReview   bool    `json:"logic_review"`
	Gate          bool    `json:"gate"`
	KeyChapter    bool    `json:"key_chapter"`
	GateDecision  *string `json:"gate_decision"`
}

// Next is the result of `novel-step next`.
type Next struct {
	Step     string   `json:"step"`
	Reason   string   `json:"reason"`
	Chapter  int      `json:"chapter"`
	Role     string   `json:"role,omitempty"`
	Inflight Inflight `json:"inflight"`
	Evidence Evidence `json:"evidence"`

	stage string
}

// ComputeNext applies the next-step rules in order. It is read-only and
// reads only the target chapter's products (plus the state file's
// version when a delta exists, and the volume outline). An agent step
// whose packet would be refused for the outline is not proposed: its
// error is returned instead (SPEC §3, "next never proposes a step that
// that step's own checks would refuse"). executor is who will run the
// steps (settings.AuditFor): on the agent route ("agent", "mcp") the
// continuity-auditor step is proposed after the commits that ran the
// continuity audit; "" (the pipeline, which runs that review itself) never
// gets it.
func ComputeNext(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, executor string) (*Next, error) {
	n, err := computeNext(root, cp, s, executor)
	if err != nil {
		return nil, err
	}
	if st := stepid.Chapter(n.Chapter, n.stage); st.IsAgent() && n.Reason != ReasonResumeCommit {
		o, err := outline.LoadFor(root, cp.CurrentVolume, cp)
		if err != nil {
			return nil, err
		}
		if _, err := o.Block(n.Chapter); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// projectNext applies the rules that concern the project before any
// chapter: an interrupted rollback or commit, a checkpoint behind the
// committed tree, the setup steps, the volume review and the states that
// do not allow writing. A nil Next and nil error mean a chapter step.
//
// revisions are the revision file names of chapters/ from the integrity
// check's listing, for the revision gate (nil when no chapter step
// follows).
//
// review: the continuity-auditor review is wanted (the agent route and
// settings agree), so an idle project whose last commit ran the
// continuity audit gets audit:NNN first.
func projectNext(root *project.Root, cp *checkpoint.Checkpoint, review bool) (n *Next, revisions []string, err error) {
	// An interrupted rollback has no step id: it must be finished by
	// running it again before anything else (its journal knows the rest).
	if err := journal.BlockedExit(errs.ExitBlocked, root, journal.Rollback); err != nil {
		return nil, nil, err
	}
	// Rule 0: an interrupted commit is finished first, whatever the state.
	if c, ok := journalChapter(root, cp); ok {
		n := &Next{Step: stepid.Chapter(c, stepid.Commit).String(), Reason: ReasonResumeCommit, Chapter: c, Inflight: inflightView(cp)}
		return n, nil, nil
	}
	// The checkpoint must not lag the committed tree (SPEC §22): a step
	// proposed from it would redo, and overwrite, committed chapters (an
	// import is backfilled before anything else). Nor may it claim
	// chapters whose files are gone (SPEC §22.1): the next draft would be
	// written without them. One listing of chapters/ serves both.
	gap, high, revisions, err := integrity.Scan(root, cp.LastCompleted)
	if err != nil {
		return nil, nil, err
	}
	if err := committedAhead(root, cp, high); err != nil {
		return nil, nil, err
	}
	if gap != nil {
		return nil, nil, gap.Err()
	}
	if n, err := setupNext(root, cp); n != nil || err != nil {
		return n, nil, err
	}
	if review {
		if n := auditNext(root, cp); n != nil {
			return n, nil, nil
		}
	}
	// Rule 1: every state but ERROR_RETRY has a next step (SPEC §3), so
	// an agent loop never has to guess it.
	switch {
	case cp.State == checkpoint.VolReview:
		return volumeReview(root, cp), nil, nil
	case cp.State == checkpoint.VolPlanning,
		// A volume 1 plan already in place in QUICK_START is another
		// tool's project (novel migrate), not one to plan.
		cp.State == checkpoint.QuickStart && !root.Exists(layout.Outline(1)):
		v := max(cp.CurrentVolume, 1)
		return &Next{Step: "volume:" + layout.PadVol(v) + ":plan", Reason: ReasonPlanVolume, Chapter: cp.NextChapter(), Inflight: inflightView(cp)}, nil, nil
	}
	if !cp.Writable() {
		return nil, nil, StateError(cp, "next")
	}
	return nil, revisions, nil
}

func computeNext(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, executor string) (*Next, error) {
	n, revisions, err := projectNext(root, cp, s.AuditFor(executor) == settings.AuditAgent)
	if n != nil || err != nil {
		return n, err
	}
	idle := cp.Idle()
	target := cp.NextChapter()
	if !idle {
		target = cp.Inflight
	}
	// Rule 2.
	g, err := loadGate(root, target)
	if err != nil {
		return nil, err
	}
	if err := pendingBlock(root, target, g, revisions); err != nil {
		return nil, err
	}
	// Rule 3.
	if err := inflightConsistent(cp); err != nil {
		return nil, err
	}
	p := newProbe(root, cp, s, target)
	n = &Next{Chapter: target, Inflight: inflightView(cp)}
	stage := cp.Stage
	if idle {
		// Rule 4: a draft written before its advance is not redone.
		if !p.chapter() {
			n.Evidence = p.evidence(g)
			return n.set(stepid.Draft, ReasonFresh), nil
		}
		stage = checkpoint.Drafting
	}
	// Rule 5.
	switch stage {
	case checkpoint.Revising:
		n.Evidence = p.evidence(g)
		return n.set(stepid.Draft, ReasonRevising), nil
	case checkpoint.Polishing:
		// A polish needs the text it polishes: with the staging chapter
		// gone, rule 6 drafts the chapter again (DECISIONS "Redraft
		// invalidates later products").
		if (g == nil || !g.Polished) && root.IsFile(layout.StagingChapter(target)) {
			n.Evidence = p.evidence(g)
			return n.set(stepid.Polish, ReasonPolishing), nil
		}
		stage = checkpoint.Judged
	}
	// A revise whose decide --apply was cut short while it moved the round
	// into staging/revisions (some products already gone): re-applying the
	// gate finishes the move, redoing the draft would not.
	if gate.ReviseInterrupted(root, cp, target) {
		n.Evidence = p.evidence(g)
		return n.set(stepid.Gate, ReasonReadyGate), nil
	}
	// Rule 6.
	n.Evidence = p.evidence(g)
	ev := &n.Evidence
	switch {
	case !ev.Chapter:
		return n.set(stepid.Draft, ReasonMissingChapter), nil
	case !(ev.Summary && ev.Delta && ev.Crossref && ev.Memory):
		return n.set(stepid.Summarize, ReasonMissingSummary), nil
	}
	version, err := stateops.StateVersion(root)
	if err != nil {
		return nil, err
	}
	if p.delta.BaseStateVersion != version {
		return n.set(stepid.Summarize, ReasonStaleDelta), nil
	}
	if checkpoint.Order(stage) < checkpoint.Order(checkpoint.Refined) {
		return n.set(stepid.Refine, ReasonReadyRefine), nil
	}
	if !ev.Eval {
		return n.set(stepid.Judge, ReasonMissingEval), nil
	}
	if p.keyErr != nil {
		return nil, p.keyErr
	}
	if ev.KeyChapter && !ev.EvalSecondary {
		n.set(stepid.Judge, ReasonMissingSecond)
		n.Role = stepid.RoleSecondary
		return n, nil
	}
	if s.LogicReviewPolicy == settings.PolicyBlocking && !ev.LogicReview {
		return n.set(stepid.LogicReview, ReasonMissingLogic), nil
	}
	if g == nil {
		return n.set(stepid.Gate, ReasonReadyGate), nil
	}
	if g.Decision == "pass" || g.Decision == "accepted" {
		return n.set(stepid.Commit, ReasonReadyCommit), nil
	}
	// A gate file whose decision was not carried out (a decide --apply cut
	// short before its checkpoint write): re-applying it is idempotent and
	// finishes the move.
	return n.set(stepid.Gate, ReasonReadyGate), nil
}

// auditNext proposes audit:NNN when the project is idle after chapter
// NNN, that commit's maintenance wrote the window's continuity report
// (every 5th chapter and a volume's last) and no review of it is stored.
// The step never blocks (SPEC §21): a caller that goes on to the next
// chapter instead — its draft staged — is not asked again.
func auditNext(root *project.Root, cp *checkpoint.Checkpoint) *Next {
	c := cp.LastCompleted
	if !cp.Idle() || c < 1 || !(cp.Writable() || cp.State == checkpoint.VolReview) {
		return nil
	}
	if !root.IsFile(layout.ContinuityReport(c)) || root.Exists(layout.AgentAuditReport(c)) || root.Exists(layout.StagingChapter(c+1)) {
		return nil
	}
	return &Next{Step: stepid.AuditStep(c).String(), Reason: ReasonContinuityAudit, Chapter: c, Inflight: inflightView(cp)}
}

func (n *Next) set(stage, reason string) *Next {
	n.stage = stage
	n.Step = stepid.Chapter(n.Chapter, stage).String()
	n.Reason = reason
	return n
}

func inflightView(cp *checkpoint.Checkpoint) Inflight {
	sum := cp.Summarize()
	return Inflight{Chapter: sum.Inflight, Stage: sum.Stage}
}

// journalChapter finds a commit journal of the chapters a commit could
// be interrupted on: the inflight one, the next one, or the one the
// checkpoint already records as committed.
func journalChapter(root *project.Root, cp *checkpoint.Checkpoint) (int, bool) {
	cands := []int{cp.Inflight, cp.NextChapter(), cp.LastCompleted}
	for i, c := range cands {
		if c < 1 || (i > 0 && c == cands[0]) || (i == 2 && c == cands[1]) {
			continue
		}
		if root.IsFile(layout.CommitJournal(c)) {
			return c, true
		}
	}
	return 0, false
}

// inflightConsistent is rule 3: an inflight chapter other than
// last_completed+1 is a broken checkpoint. A committed stage naming the
// chapter just committed is consistent (it is idle).
func inflightConsistent(cp *checkpoint.Checkpoint) error {
	if cp.Inflight == 0 || cp.Inflight == cp.NextChapter() {
		return nil
	}
	if cp.Stage == checkpoint.Committed && cp.Inflight == cp.LastCompleted {
		return nil
	}
	return errs.Newf(errs.Checkpoint, "%s 的 inflight_chapter 为 %d，但 last_completed_chapter 为 %d（应为 %d）",
		"%s: inflight_chapter is %d but last_completed_chapter is %d (expected %d)",
		layout.Checkpoint, cp.Inflight, cp.LastCompleted, cp.NextChapter()).
		With("file", layout.Checkpoint).With("inflight_chapter", cp.Inflight).
		With("last_completed_chapter", cp.LastCompleted).
		Hint("修正 .checkpoint.json，或用 novel-step abandon --chapter N 放弃在制章节",
			"fix .checkpoint.json, or drop the inflight chapter with novel-step abandon --chapter N")
}

// StateError is the E_STATE refusal for an orchestrator state that does
// not allow chapter work, with the command that moves the project on.
func StateError(cp *checkpoint.Checkpoint, what string) *errs.Error {
	var cmd, zh, en string
	switch cp.State {
	case checkpoint.VolReview:
		cmd = "novel instructions volume:" + layout.PadVol(max(cp.CurrentVolume, 1)) + ":review"
		zh, en = "本卷已完成，处于卷末回顾", "the volume is finished and under review"
	case checkpoint.VolPlanning, checkpoint.QuickStart:
		v := cp.CurrentVolume
		if v < 1 {
			v = 1
		}
		cmd = "novel instructions volume:" + layout.PadVol(v) + ":plan"
		zh, en = "需要先规划第 "+itoa(v)+" 卷", "volume "+itoa(v)+" must be planned first"
	case checkpoint.ErrorRetry:
		cmd = "novel-step retry"
		zh, en = "上一步失败，处于 ERROR_RETRY", "the last step failed (ERROR_RETRY)"
	}
	e := errs.New(errs.State, "当前编排状态 "+cp.State+" 不允许 "+what+"："+zh, "orchestrator state "+cp.State+" does not allow "+what+": "+en).
		With("orchestrator_state", cp.State).With("next_command", cmd)
	if cp.State == checkpoint.ErrorRetry {
		c := cp.Inflight
		if c == 0 {
			c = cp.NextChapter()
		}
		abandon := "novel-step abandon --chapter " + itoa(c)
		e.Hint("排除故障后运行 "+cmd+" 重试，或运行 "+abandon+" 放弃该章", "fix the cause and run "+cmd+", or "+abandon+" to drop the chapter")
		if cp.LastError != nil {
			e.With("last_error", cp.LastError)
		}
	} else if cp.State == checkpoint.VolReview {
		e.Hint("运行 make -f pipeline.mk review（或 "+cmd+" 后用 novel-commit volume-review 提交）做卷末回顾；作者决定跳过回顾时才用 novel-step volume --next",
			"run make -f pipeline.mk review (or "+cmd+", then keep it with novel-commit volume-review) to review the volume; novel-step volume --next skips the review only when the author decides so")
	} else {
		e.Hint("运行 "+cmd, "run "+cmd)
	}
	return e
}

// importedNext reports whether logs/import.json lists chapter c (an
// imported chapter waiting for its backfill commit).
func importedNext(root *project.Root, c int) bool {
	var log struct {
		Chapters []struct {
			Chapter int `json:"chapter"`
		} `json:"chapters"`
	}
	if !root.Exists(layout.ImportLog) || root.ReadJSON(layout.ImportLog, &log) != nil {
		return false
	}
	for _, ch := range log.Chapters {
		if ch.Chapter == c {
			return true
		}
	}
	return false
}

// committedAhead refuses a checkpoint whose last_completed_chapter is
// below high, the highest chapter in chapters/ (a hand-edited checkpoint).
func committedAhead(root *project.Root, cp *checkpoint.Checkpoint, high int) error {
	if high <= cp.LastCompleted {
		return nil
	}
	rel, h, last := layout.Chapter(high), strconv.Itoa(high), strconv.Itoa(cp.LastCompleted)
	if importedNext(root, cp.NextChapter()) {
		return errs.New(errs.Checkpoint, rel+" 等导入的章节尚未回填（last_completed_chapter 为 "+last+"）",
			"imported chapters up to "+rel+" are not backfilled yet (last_completed_chapter is "+last+")").
			With("file", layout.ImportLog).With("highest_committed_chapter", high).With("last_completed_chapter", cp.LastCompleted).
			Hint("运行 make -f pipeline.mk backfill，为导入的章节生成摘要、状态和记忆", "run make -f pipeline.mk backfill to summarize the imported chapters and build their state and memory")
	}
	return errs.New(errs.Checkpoint, rel+" 已提交，但 "+layout.Checkpoint+" 的 last_completed_chapter 为 "+last,
		rel+" is committed but "+layout.Checkpoint+" has last_completed_chapter "+last).
		With("file", rel).With("highest_committed_chapter", high).With("last_completed_chapter", cp.LastCompleted).
		Hint("若检查点被改回：把 last_completed_chapter 改为 "+h+"；要重做这些章节，先改为 "+h+" 再用 novel-commit rollback --to "+strconv.Itoa(cp.LastCompleted+1),
			"if the checkpoint was edited back, set last_completed_chapter to "+h+"; to redo those chapters, set it to "+h+" and run novel-commit rollback --to "+strconv.Itoa(cp.LastCompleted+1))
}

// setupNext proposes a setup step (SPEC §17): one whose commit was
// interrupted (any state), else in QUICK_START the first one whose
// committed products are missing. nil when no setup step is due.
func setupNext(root *project.Root, cp *checkpoint.Checkpoint) (*Next, error) {
	for _, st := range stepid.SetupStages {
		if journal.Setup.Unfinished(root, st) {
			return &Next{Step: stepid.Setup(st).String(), Reason: ReasonResumeSetup, Inflight: inflightView(cp)}, nil
		}
	}
	if cp.State != checkpoint.QuickStart {
		return nil, nil
	}
	// A volume 1 plan already in place is a project started by another
	// tool (the plugin's quick start moves its plan into volumes/vol-01/):
	// its setup is behind it, and novel migrate is what it needs.
	if root.Exists(layout.Outline(1)) {
		return nil, nil
	}
	st, err := setupstep.Next(root)
	if err != nil || st == "" {
		return nil, err
	}
	return &Next{Step: stepid.Setup(st).String(), Reason: ReasonSetupMissing, Inflight: inflightView(cp)}, nil
}
