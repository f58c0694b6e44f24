package gate

import (
	"bytes"
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Env is what decide and resolve need from the command line.
type Env struct {
	Root     *project.Root
	Settings settings.Settings
	Getenv   func(string) string
	Now      string // RFC 3339, from the suite clock
}

// ArchivePath is where a staging product of chapter c lands in revision
// round k: staging/revisions/chapter-NNN/r{k}/ + the path below staging/.
func ArchivePath(c, k int, stagingRel string) string {
	return layout.RevisionRound(c, k) + "/" + strings.TrimPrefix(stagingRel, layout.Staging+"/")
}

// evaluate computes chapter c's gate result from its staging evals and
// logic review report. Nothing is written.
func evaluate(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, c int) (*Result, error) {
	rc := 0
	if cp.Inflight == c {
		rc = cp.RevisionCount
	}
	key, err := products.KeyChapter(root, cp, c)
	if err != nil {
		return nil, err
	}
	in := Input{Chapter: c, KeyChapter: key, Settings: s, RevisionCount: rc}
	if in.Primary, err = products.Eval(root, c, false, s.Weights()); err != nil {
		return nil, rerun(err, c, stepid.Judge, "")
	}
	if key {
		if in.Secondary, err = products.Eval(root, c, true, s.Weights()); err != nil {
			return nil, rerun(err, c, stepid.Judge, " --role "+stepid.RoleSecondary)
		}
	}
	staged := root.Exists(layout.StagingChapter(c))
	if staged {
		// The checks that block a pass use neither the blacklist, the
		// registered terms nor the previous chapter: the decision is made
		// without reading them (every character file and the whole state).
		if in.Lint, err = products.LintChapter(root, s, c, stepid.Refine); err != nil {
			return nil, err
		}
	}
	rel := layout.StagingLogicReview(c)
	if s.LogicReviewPolicy == settings.PolicyBlocking || root.Exists(rel) {
		if in.Review, err = products.LogicReviewReport(root, c); err != nil {
			return nil, rerun(err, c, stepid.LogicReview, "")
		}
	}
	r := Decide(in)
	if staged && (r.Decision == Polish || r.Decision == Revise) {
		// The warnings a polish or revise round acts on (SPEC §24) need
		// them: the same decision again, with the full lint.
		if in.Lint, err = products.LintChapterGate(root, s, c); err != nil {
			return nil, err
		}
		in.Warnings = in.Lint
		r = Decide(in)
	}
	return r, nil
}

func rerun(err error, c int, stage, extra string) error {
	e := errs.As(err)
	if e == nil {
		return err
	}
	id := "chapter:" + layout.Pad(c) + ":" + stage
	e.Hint("先完成 "+id+"：novel instructions "+id+extra+"，校验后再运行 novel-gate decide",
		"finish "+id+" first (novel instructions "+id+extra+"), validate it, then run novel-gate decide")
	return e
}

// stored returns an outcome already recorded for chapter c that a new
// decision must not overturn: an accepted or polished gate file, a polish
// in progress, or the archived gate of the revise that started the
// current revision round. nil when there is none.
func stored(root *project.Root, cp *checkpoint.Checkpoint, c int) (*GateFile, error) {
	g, err := LoadGateFile(root, c)
	if err != nil {
		return nil, err
	}
	if g != nil && g.Settled() {
		return g, nil
	}
	inflight := revision.IsInflight(cp, c)
	if inflight && cp.Stage == checkpoint.Polishing && g != nil && g.Decision == Polish {
		return g, nil
	}
	if inflight && cp.Stage == checkpoint.Revising && cp.RevisionCount > 0 {
		a, err := loadGateAt(root, ArchivePath(c, cp.RevisionCount-1, layout.StagingGate(c)), c)
		if err != nil {
			return nil, err
		}
		if a != nil && a.Decision == Revise {
			return a, nil
		}
	}
	return nil, nil
}

// Decision computes (or, when already recorded, returns) chapter c's gate
// result without writing anything: `novel-gate decide` without --apply.
func Decision(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, c int) (*Result, error) {
	g, err := stored(root, cp, c)
	if err != nil {
		return nil, err
	}
	if g != nil {
		return &g.Result, nil
	}
	return evaluate(root, cp, s, c)
}

func stateErr(cp *checkpoint.Checkpoint) *errs.Error {
	return errs.Newf(errs.State, "编排状态为 %s，不能应用门控（需要 WRITING 或 CHAPTER_REWRITE）",
		"orchestrator state is %s; the gate can be applied only in WRITING or CHAPTER_REWRITE", cp.State).
		With("orchestrator_state", cp.State).
		Hint("用 novel-step next 查看项目当前该做什么", "run novel-step next to see what the project needs")
}

func stageErr(cp *checkpoint.Checkpoint, c int, zh, en string) *errs.Error {
	return errs.New(errs.StageOrder, zh, en).
		With("chapter", c).With("inflight_chapter", nullInt(cp.Inflight)).With("pipeline_stage", jsonio.NullIfEmpty(cp.Stage)).
		Hint("用 novel-step next 查看下一步", "run novel-step next to see the next step")
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// Apply decides chapter c and performs the moves of SPEC §7.1, in order,
// idempotently. A pause returns the result with an E_GATE_PAUSE error.
// Everything is decided before the lock, so a refusal writes nothing;
// the writes go through checkpoint.Update, which decides again from the
// fresh checkpoint when another writer moved it meanwhile.
func Apply(env Env, c int) (*Result, error) {
	root := env.Root
	cp, snap, err := checkpoint.LoadSnapshot(root)
	if err != nil {
		return nil, err
	}
	p, err := planApply(env, cp, c)
	if err != nil {
		return nil, err
	}
	if p.done != nil {
		return p.done, nil
	}
	if p.writesNeeded() {
		w := checkpoint.Writer{Root: root, Getenv: env.Getenv, Chapter: c, StaleMinutes: env.Settings.LockStaleMinutes, Now: env.Now,
			BeforeLock: checkpoint.RaceHook(root, env.Getenv)}
		if _, err := checkpoint.Update(w, snap, func(fresh *checkpoint.Checkpoint, moved bool) (bool, error) {
			if moved {
				if p, err = planApply(env, fresh, c); err != nil || p.done != nil || !p.writesNeeded() {
					return false, err
				}
			}
			return p.write(env, fresh)
		}); err != nil {
			return nil, err
		}
	}
	switch {
	case p.done != nil: // recorded by the writer that moved the checkpoint
		return p.done, nil
	case p.finish != nil:
		return &p.finish.Result, nil
	}
	if p.pending != nil {
		if p.pending.File == "" {
			p.pending.File = layout.Revision(c)
		}
		return p.r, pauseErr(root, p.r, p.pending)
	}
	return p.r, nil
}

// applyPlan is what Apply decided from one reading of the checkpoint.
type applyPlan struct {
	c          int
	done       *Result   // already recorded: nothing to do
	finish     *GateFile // a revise interrupted after its first move
	r          *Result
	g          *GateFile // the gate file to write (unless unchanged)
	unchanged  bool
	pending    *revision.Status // a pause's revision (File empty: to write)
	reportCopy []byte
}

func (p *applyPlan) writesNeeded() bool {
	return p.finish != nil || !p.unchanged || p.reportCopy != nil || (p.pending != nil && p.pending.File == "") ||
		p.r.Decision == Revise || p.r.Decision == Polish
}

// planApply checks the preconditions against cp and decides, writing
// nothing.
func planApply(env Env, cp *checkpoint.Checkpoint, c int) (*applyPlan, error) {
	root := env.Root
	if !cp.Writable() {
		return nil, stateErr(cp)
	}
	if cp.Inflight != c || cp.Idle() {
		return nil, stageErr(cp, c, "第 "+strconv.Itoa(c)+" 章不是进行中的章节，不能应用门控",
			"chapter "+strconv.Itoa(c)+" is not the chapter in flight; the gate cannot be applied")
	}
	if err := revision.Check(root, c); err != nil {
		return nil, err
	}
	if g, err := stored(root, cp, c); err != nil || g != nil {
		if g == nil {
			return nil, err
		}
		return &applyPlan{done: &g.Result}, nil
	}
	if cp.Stage != checkpoint.Judged {
		e := stageErr(cp, c, "第 "+strconv.Itoa(c)+" 章的阶段是 "+cp.Stage+"，门控需要 judged",
			"chapter "+strconv.Itoa(c)+" is at stage "+cp.Stage+"; the gate needs judged")
		if checkpoint.Order(cp.Stage) < checkpoint.Order(checkpoint.Judged) {
			// novel-step next counts a valid staging eval as judged (products
			// are resume markers) and proposes the gate; only the advance is
			// missing, so name it rather than sending the user back to next.
			judge := stepid.Chapter(c, stepid.Judge).String()
			e.Hint("若评审结果已在暂存区，先运行 novel-step advance "+judge+"；否则用 novel-step next 查看下一步",
				"if the judge's eval is already in staging, run novel-step advance "+judge+" first; otherwise run novel-step next")
		}
		return nil, e
	}
	existing, err := LoadGateFile(root, c)
	if err != nil {
		return nil, err
	}
	r, err := evaluate(root, cp, env.Settings, c)
	if err != nil {
		// A revise interrupted after its first move: the recorded
		// decision stands and the move is finished.
		if g := interruptedRevise(root, cp, c, existing); g != nil && errs.Is(err, errs.MissingFile) {
			return &applyPlan{c: c, finish: g, r: &g.Result}, nil
		}
		return nil, err
	}
	p := &applyPlan{c: c, r: r, g: &GateFile{Result: *r, DecidedAt: env.Now}}
	p.unchanged = existing != nil && sameResult(&existing.Result, r)
	if p.unchanged {
		p.g = existing
	}
	if IsPause(r.Decision) {
		if p.pending, err = pauseRevision(root, r, c, env.Settings, env.Now); err != nil {
			return nil, err
		}
	}
	if p.reportCopy, err = reportToCopy(root, r); err != nil {
		return nil, err
	}
	if r.Decision == Revise {
		// Every archive path must stay inside the project before the
		// first write (a symlinked staging/revisions would otherwise be
		// found only after the gate file was written).
		if _, err := archivePlan(root, c, cp.RevisionCount); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// write makes the plan's writes under the lock and edits cp; it reports
// whether cp changed (checkpoint.Update then saves it).
func (p *applyPlan) write(env Env, cp *checkpoint.Checkpoint) (bool, error) {
	c := p.c
	root := env.Root
	if p.finish != nil {
		return true, finishRevise(env, cp, p.finish)
	}
	if p.reportCopy != nil {
		if err := root.WriteFile(layout.LogicReview(c), p.reportCopy); err != nil {
			return false, err
		}
	}
	if p.pending != nil && p.pending.File == "" {
		if err := revision.Save(root, p.pending); err != nil {
			return false, err
		}
	}
	if !p.unchanged {
		if err := saveGateFile(root, p.g); err != nil {
			return false, err
		}
	}
	switch p.r.Decision {
	case Revise:
		return true, finishRevise(env, cp, p.g)
	case Polish:
		cp.Stage = checkpoint.Polishing
		return true, nil
	}
	return false, nil
}

func sameResult(a, b *Result) bool {
	x, err1 := jsonio.Marshal(a)
	y, err2 := jsonio.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// reportToCopy returns the staging report's bytes when reviews/ does not
// already hold exactly them.
func reportToCopy(root *project.Root, r *Result) ([]byte, error) {
	if r.LogicReview == nil {
		return nil, nil
	}
	data, err := root.ReadFile(r.LogicReview.File)
	if err != nil {
		return nil, err
	}
	dst := layout.LogicReview(r.Chapter)
	if root.IsFile(dst) {
		if old, err := root.ReadFile(dst); err == nil && bytes.Equal(old, data) {
			return nil, nil
		}
	}
	return data, nil
}

// pauseRevision returns the pending revision status for a paused chapter:
// the existing one when it is already pending (File set, nothing to write),
// else a new one (File empty, to be written).
func pauseRevision(root *project.Root, r *Result, c int, s settings.Settings, now string) (*revision.Status, error) {
	old, err := revision.Load(root, c)
	if err != nil {
		return nil, err
	}
	if old != nil && old.Status == revision.StatusPending && old.File == layout.Revision(c) {
		return old, nil
	}
	trigger := revision.QualityGate
	if r.BlockedBy == "logic_review" {
		trigger = revision.LogicReview
	}
	st := revision.New(c, trigger, pauseNotes(r), now)
	st.File = ""
	st.GateFile = layout.StagingGate(c)
	if r.LogicReview != nil {
		st.LogicReviewReportFile = layout.LogicReview(c)
	}
	if trigger == revision.LogicReview {
		sc, min, hi := r.LogicReview.OverallScore, r.LogicReview.MinScore, r.LogicReview.HighIssuesCount
		st.ObservedScore, st.MinScore, st.HighIssuesCount = &sc, &min, &hi
	}
	return st, nil
}

func fmtScore(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// pauseNotes explains the pause in one sentence, naming the file to read.
func pauseNotes(r *Result) string {
	var reasons []string
	if r.BlockedBy == "logic_review" {
		lr := r.LogicReview
		if lr.OverallScore < lr.MinScore {
			reasons = append(reasons, "评分 "+strconv.Itoa(lr.OverallScore)+" < 阈值 "+strconv.Itoa(lr.MinScore))
		}
		if lr.HighIssuesCount > 0 {
			reasons = append(reasons, "存在 "+strconv.Itoa(lr.HighIssuesCount)+" 个高严重性问题")
		}
		return "逻辑审查触发阻断：" + strings.Join(reasons, ", ") + "。详见 " + layout.LogicReview(r.Chapter)
	}
	t := r.Config.GateThresholds
	switch {
	case r.RevisionCount >= r.MaxRevisions && (r.HasHighConfidenceViolation || r.OverallFinal >= t.Review):
		reasons = append(reasons, "已达修订上限 "+strconv.Itoa(r.MaxRevisions)+" 次，综合评分 "+fmtScore(r.OverallFinal))
		if r.HasHighConfidenceViolation {
			reasons = append(reasons, "仍有 "+strconv.Itoa(len(r.Violations.High))+" 个高置信违规")
		}
	case r.Decision == Rewrite:
		reasons = append(reasons, "综合评分 "+fmtScore(r.OverallFinal)+" 低于 "+fmtScore(t.Review)+"，建议重写")
	default:
		reasons = append(reasons, "综合评分 "+fmtScore(r.OverallFinal)+" 低于 "+fmtScore(t.Revise)+"，需要人工评审")
	}
	return "质量门控决定 " + r.Decision + "：" + strings.Join(reasons, "，") + "。详见 " + layout.StagingGate(r.Chapter)
}

func pauseErr(root *project.Root, r *Result, st *revision.Status) *errs.Error {
	n := strconv.Itoa(r.Chapter)
	e := errs.Newf(errs.GatePause, "第 %d 章门控暂停（%s），必须先处理第 %d 章的 pending 修订",
		"the gate paused chapter %d (%s); the pending revision of chapter %d must be handled first", r.Chapter, r.Decision, r.Chapter).
		Hint("用 novel-gate show --chapter "+n+" 查看，再选择 novel-gate resolve --chapter "+n+" --accept|--revise|--rejudge|--regen",
			"inspect with novel-gate show --chapter "+n+", then run novel-gate resolve --chapter "+n+" --accept|--revise|--rejudge|--regen")
	e.Details = revision.Payload(root, st, r.Chapter, revision.InFlight)
	e.Details["gate"] = r
	return e
}

// ReviseInterrupted reports whether a revise of chapter c was cut short:
// its gate file still says revise for the current round, or already sits
// in the round's archive, while the checkpoint has not moved to revising.
// Re-applying the gate finishes it, so next proposes the gate even when
// products are already gone (moved into the archive).
func ReviseInterrupted(root *project.Root, cp *checkpoint.Checkpoint, c int) bool {
	if cp.Stage == checkpoint.Revising || cp.Inflight != c {
		return false
	}
	staged, err := LoadGateFile(root, c)
	if err != nil {
		return false
	}
	return interruptedRevise(root, cp, c, staged) != nil
}

// interruptedRevise finds the gate file of a revise whose archive move was
// interrupted (still in staging, or already moved into the round).
func interruptedRevise(root *project.Root, cp *checkpoint.Checkpoint, c int, staged *GateFile) *GateFile {
	if staged != nil {
		if staged.Decision == Revise && staged.RevisionCount == cp.RevisionCount {
			return staged
		}
		return nil
	}
	a, err := loadGateAt(root, ArchivePath(c, cp.RevisionCount, layout.StagingGate(c)), c)
	if err == nil && a != nil && a.Decision == Revise {
		return a
	}
	return nil
}

// archiveRound moves every staging product of chapter c into revision
// round k (the gate file last, so an interrupted move is recognisable) and
// returns the archived paths. Packets, run logs, stamps and pre-stage
// copies stay where they are.
func archiveRound(root *project.Root, c, k int) ([]string, error) {
	moves, err := archivePlan(root, c, k)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range moves {
		if !root.Exists(m[0]) {
			continue // the gate file of a plan checked before it was written
		}
		if err := root.Move(m[0], m[1]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, m[1])
	}
	return out, nil
}

// archivePlan lists the (source, destination) moves of a revise archive,
// the gate file last, and checks every path stays inside the project, so
// a revise can be refused before anything is written.
func archivePlan(root *project.Root, c, k int) ([][2]string, error) {
	files, err := products.StagingFiles(root, c)
	if err != nil {
		return nil, err
	}
	gate := layout.StagingGate(c)
	var moves [][2]string
	for _, f := range files {
		if isProduct(f) && f != gate {
			moves = append(moves, [2]string{f, ArchivePath(c, k, f)})
		}
	}
	moves = append(moves, [2]string{gate, ArchivePath(c, k, gate)})
	for _, m := range moves {
		for _, rel := range m {
			if _, err := root.Abs(rel); err != nil {
				return nil, err
			}
		}
	}
	return moves, nil
}

func isProduct(rel string) bool {
	for _, d := range []string{layout.StagingManifests + "/", layout.StagingLogs + "/", layout.StagingStamps + "/", layout.StagingRevisions + "/"} {
		if strings.HasPrefix(rel, d) {
			return false
		}
	}
	return !layout.IsPreCopy(rel)
}

// finishRevise archives round K = revision_count and starts the revision:
// stage revising, revision_count+1, CHAPTER_REWRITE.
func finishRevise(env Env, cp *checkpoint.Checkpoint, g *GateFile) error {
	if _, err := archiveRound(env.Root, g.Chapter, cp.RevisionCount); err != nil {
		return err
	}
	startRevision(cp)
	return nil
}

func startRevision(cp *checkpoint.Checkpoint) {
	cp.Stage = checkpoint.Revising
	cp.RevisionCount++
	cp.State = checkpoint.ChapterRewrite
}

// reviewFixes turns a report's high and medium issues with fix
// instructions into required fixes.
func reviewFixes(lr *eval.LogicReview) []eval.Fix {
	var out []eval.Fix
	for _, is := range lr.Issues {
		if (is.Severity == "high" || is.Severity == "medium") && is.FixInstructions != "" {
			t := is.IssueType
			if t == "" {
				t = "logic"
			}
			out = append(out, eval.Fix{Target: t, Instruction: is.FixInstructions})
		}
	}
	return out
}
