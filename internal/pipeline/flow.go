package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/step"
	"github.com/novelsuite/novel/internal/stepid"
)

// nextStep is the part of `novel-step next` the pipeline follows.
type nextStep struct {
	Step    string `json:"step"`
	Reason  string `json:"reason"`
	Chapter int    `json:"chapter"`
	Role    string `json:"role"`
	Stage   string `json:"-"`
}

// next asks novel-step next; a blocked project (exit 3) becomes
// staging/BLOCKED.json and the blocking error.
func (e *Env) next() (*nextStep, error) {
	res, err := e.tool("novel-step", "next")
	if err != nil {
		return nil, err
	}
	if res.Exit != 0 {
		return nil, e.block(res.Err)
	}
	var n nextStep
	if err := jsonio.Decode(res.Stdout, "novel-step next", &n); err != nil {
		return nil, err
	}
	if strings.HasPrefix(n.Step, "volume:") {
		// A finished volume (VOL_REVIEW) has no chapter work: the run
		// stops for the author, as it always has.
		cp, err := checkpoint.Load(e.Root)
		if err != nil {
			return nil, err
		}
		return nil, e.block(step.StateError(cp, "next"))
	}
	st, err := stepid.Parse(n.Step)
	if err != nil {
		return nil, err
	}
	if st.Setup {
		// Chapters wait for the project's setup (SPEC §17).
		return nil, errs.Newf(errs.State, "项目还没有完成设定（下一步 %s），不能写章节", "the project is not set up yet (next: %s); chapters cannot be written", n.Step).
			With("step", n.Step).WithExit(errs.ExitBlocked).
			Hint("先运行 make -f pipeline.mk start AGENT=…", "run make -f pipeline.mk start AGENT=… first")
	}
	n.Stage, n.Chapter = st.Stage, st.Chapter
	return &n, nil
}

// block writes a blocking error (exit 3) to staging/BLOCKED.json with
// "exit":3 (Make itself can only exit 2) and prints it; other errors
// pass through.
func (e *Env) block(err *errs.Error) error {
	if err == nil || err.Exit != errs.ExitBlocked {
		return err
	}
	lang := settings.LoadLanguage(e.Root)
	obj := map[string]any{"error": err.Body(lang), "exit": errs.ExitBlocked}
	data, merr := jsonio.Marshal(obj)
	if merr != nil {
		return err
	}
	if werr := e.Root.WriteFile(layout.Blocked, data); werr != nil {
		return werr
	}
	fmt.Fprintf(e.Stderr, "流水线已暂停，需要人工处理（%s）/ the pipeline is blocked and needs a person (%s)\n", layout.Blocked, layout.Blocked)
	return err
}

// Gate runs novel-gate decide --apply for chapter c in round `round`.
func (e *Env) Gate(c, round int) (*Outcome, error) {
	start := time.Now()
	st := stepid.Chapter(c, stepid.Gate)
	out := &Outcome{Step: st.String(), Round: round}
	if skip, why, err := e.skip(c, round); err != nil || skip {
		out.Action, out.Reason = "skipped", why
		return out, err
	}
	n, err := e.next()
	if err != nil {
		return nil, err
	}
	if n.Chapter != c {
		out.Action, out.Reason = "skipped", "chapter_committed"
		return out, nil
	}
	line := "" // the progress line's body: the decision and why
	switch pos := position(n.Stage, n.Role); {
	case pos < position(stepid.Gate, ""):
		return nil, e.orderErr(st, n)
	case pos == position(stepid.Gate, ""):
		res, err := e.tool("novel-gate", "decide", "--chapter", strconv.Itoa(c), "--apply")
		if err != nil {
			return nil, err
		}
		if res.Exit != 0 {
			return nil, e.block(res.Err)
		}
		var d gate.Result
		json.Unmarshal(res.Stdout, &d)
		out.Action, out.Reason = "ran", d.Decision
		if d.Decision != "" {
			line = GateLine(&d)
		}
	default:
		out.Action = "done"
		if g, err := gate.LoadGateFile(e.Root, c); err == nil && g != nil {
			line = GateLine(&g.Result)
		}
	}
	if err := e.Root.WriteFile(layout.Stamp(c, stepid.Gate, round), nil); err != nil {
		return nil, err
	}
	out.Seconds = e.progressLine(c, stepid.Gate, start, e.polishing(c), line)
	return out, nil
}

// SummaryPart is `Ch 1: 3120字 4.2 pass` of a commit's output, with `↻N`
// for a chapter that went through N revision rounds.
func SummaryPart(r *commit.Output) string {
	return summaryPart(r, strconv.FormatFloat(r.OverallFinal, 'f', 1, 64))
}

func summaryPart(r *commit.Output, score string) string {
	s := fmt.Sprintf("Ch %d: %d字 %s %s", r.Chapter, r.WordCount, score, r.GateDecision)
	if r.RevisionCount > 0 {
		s += " ↻" + strconv.Itoa(r.RevisionCount)
	}
	return s
}

// Commit runs novel-commit when next proposes it for chapter c; in a
// round that ended in a revision it does nothing. summary (optional,
// outside the project) collects one line per commit for the run summary.
// agentCmd (optional) runs the continuity-auditor after a commit that ran
// the continuity audit, when the settings ask for it.
func (e *Env) Commit(c int, summary, agentCmd string) (*Outcome, error) {
	start := time.Now()
	st := stepid.Chapter(c, stepid.Commit)
	out := &Outcome{Step: st.String()}
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	out.Round = currentRound(cp, c)
	if cp.LastCompleted >= c && !e.Root.Exists(layout.CommitJournal(c)) {
		out.Action, out.Reason = "skipped", "chapter_committed"
		return out, nil
	}
	n, err := e.next()
	if err != nil {
		return nil, err
	}
	if n.Chapter != c || n.Stage != stepid.Commit {
		out.Action, out.Reason = "skipped", n.Reason
		return out, nil
	}
	polish := e.polishing(c) // the commit clears the gate file
	lintWarnings := e.lintWarnings(c)
	raw, err := e.must("novel-commit", "--chapter", strconv.Itoa(c))
	if err != nil {
		return nil, err
	}
	var r commit.Output
	if err := jsonio.Decode(raw, "novel-commit", &r); err != nil {
		return nil, err
	}
	if summary != "" {
		f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			var line bytes.Buffer
			if json.Compact(&line, raw) == nil {
				line.WriteByte('\n')
				f.Write(line.Bytes())
			}
			f.Close()
		}
	}
	out.Action, out.Reason = "ran", r.GateDecision
	out.Seconds = e.progressPolish(c, stepid.Commit, start, polish)
	for _, l := range Feedback(&r, lintWarnings) {
		fmt.Fprintln(e.Stderr, l)
	}
	for _, l := range e.reviewContinuity(r.Periodic.Continuity, agentCmd) {
		fmt.Fprintln(e.Stderr, l)
	}
	return out, nil
}

// Status is what the driver loop of pipeline.mk needs to know.
type Status struct {
	Status  string `json:"status"` // run, done, volume_review
	Chapter int    `json:"chapter"`
	Step    string `json:"step,omitempty"`
	Round   int    `json:"round"`
	// Progress is "STEP@rK": what the driver passes back as --prev.
	Progress string `json:"progress,omitempty"`
	// Message is what the driver prints when it stops at a volume's end,
	// in the project's language.
	Message string `json:"message,omitempty"`
}

// Next tells the driver whether chapter c (0: whatever is next) still has
// work. A blocked project writes BLOCKED.json and fails with exit 3; a
// project in VOL_REVIEW reports volume_review (continue stops there)
// unless strict, when it is the blocking E_STATE like any other. Stamps of
// the round that next shows are not done are dropped (trustStamps). prev
// is the Progress of the previous round the driver ran ("" for none): a
// round that left the chapter exactly where it was is an error, never a
// spin.
func (e *Env) Next(c int, strict bool, prev string) (*Status, error) {
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	if c > 0 && cp.LastCompleted >= c && !e.Root.Exists(layout.CommitJournal(c)) {
		return &Status{Status: "done", Chapter: c}, nil
	}
	if c == 0 && !strict && cp.State == checkpoint.VolReview && !e.Root.Exists(layout.CommitJournal(cp.LastCompleted+1)) {
		n := strconv.Itoa(cp.LastCompleted)
		return &Status{Status: "volume_review", Chapter: cp.LastCompleted, Message: errs.Text(settings.LoadLanguage(e.Root),
			"第 "+n+" 章是本卷最后一章：请进行卷末回顾（make -f pipeline.mk review）",
			"chapter "+n+" is the last chapter of its volume: review the volume (make -f pipeline.mk review)")}, nil
	}
	n, err := e.next()
	if err != nil {
		return nil, err
	}
	if c > 0 && n.Chapter != c {
		return nil, errs.Newf(errs.StageOrder, "第 %d 章现在不能写：下一章是第 %d 章", "chapter %d cannot be written now: the next chapter is %d", c, n.Chapter).
			With("chapter", c).With("next", n.Step).
			Hint(fmt.Sprintf("运行 make -f pipeline.mk chapter C=%d，或省略 C", n.Chapter), fmt.Sprintf("run make -f pipeline.mk chapter C=%d, or omit C", n.Chapter))
	}
	st := &Status{Status: "run", Chapter: n.Chapter, Step: n.Step, Round: currentRound(cp, n.Chapter)}
	st.Progress = fmt.Sprintf("%s@r%d", st.Step, st.Round)
	if prev != "" && prev == st.Progress {
		return nil, e.noProgress(cp, n, st.Round)
	}
	if e.Budget != nil {
		if err := e.checkBudget(e.Budget, st.Chapter, cp.LastCompleted); err != nil {
			return nil, err
		}
	}
	if err := e.trustStamps(cp, n); err != nil {
		return nil, err
	}
	return st, nil
}

// noProgress is the error for a round that changed nothing: the stage
// next proposes is the one it proposed before the round ran.
func (e *Env) noProgress(cp *checkpoint.Checkpoint, n *nextStep, round int) error {
	err := errs.Newf(errs.State, "第 %d 章的第 %d 轮没有任何进展：下一步仍是 %s（%s）", "round %[2]d of chapter %[1]d made no progress: the next step is still %[3]s (%[4]s)",
		n.Chapter, round, n.Step, n.Reason).With("chapter", n.Chapter).With("round", round).With("next", n.Step).With("reason", n.Reason)
	if perr := e.productError(cp, n); perr != nil {
		if pe := errs.As(perr); pe != nil {
			err.With("cause", pe.Body(settings.LoadLanguage(e.Root)))
		}
	}
	return err.Hint("用 novel-step status 和 novel validate "+n.Step+" 查看原因，修正后重新运行 make -f pipeline.mk chapter C="+strconv.Itoa(n.Chapter),
		"see novel-step status and novel validate "+n.Step+" for the cause, fix it, then re-run make -f pipeline.mk chapter C="+strconv.Itoa(n.Chapter))
}

// Plan is the parse-time view pipeline.mk builds a round's targets from.
type Plan struct {
	Chapter     int    `json:"chapter"`
	Round       int    `json:"round"`
	LogicReview bool   `json:"logic_review"`
	Stamps      string `json:"stamps"`
}

// PlanFor reads (never writes) what round chapter c is in.
func (e *Env) PlanFor(c int) (*Plan, error) {
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	s, err := settings.Load(e.Root, e.Getenv)
	if err != nil {
		return nil, err
	}
	if c == 0 {
		c = cp.LastCompleted + 1
		if cp.Inflight > 0 {
			c = cp.Inflight
		}
	}
	return &Plan{Chapter: c, Round: currentRound(cp, c), LogicReview: s.LogicReviewPolicy == settings.PolicyBlocking,
		Stamps: layout.StagingStamps}, nil
}

// progress prints `[第048章] judge ✓ 3.2s (4/6)` and returns the seconds.
func (e *Env) progress(c int, stage string, start time.Time) string {
	return e.progressPolish(c, stage, start, e.polishing(c))
}

func (e *Env) progressPolish(c int, stage string, start time.Time, polish bool) string {
	return e.progressLine(c, stage, start, polish, "")
}

// progressLine prints body (default `STAGE ✓`) with the time and the
// stage's position in the round.
func (e *Env) progressLine(c int, stage string, start time.Time, polish bool, body string) string {
	secs := time.Since(start).Seconds()
	if e.Clock.Fixed() {
		secs = 0
	}
	s := strconv.FormatFloat(secs, 'f', 1, 64)
	stages := []string{stepid.Draft, stepid.Summarize, stepid.Refine, stepid.Judge}
	if set, err := settings.Load(e.Root, e.Getenv); err == nil && set.LogicReviewPolicy == settings.PolicyBlocking {
		stages = append(stages, stepid.LogicReview)
	}
	stages = append(stages, stepid.Gate)
	if stage == stepid.Polish || polish {
		stages = append(stages, stepid.Polish)
	}
	stages = append(stages, stepid.Commit)
	i := 0
	for k, x := range stages {
		if x == stage {
			i = k + 1
		}
	}
	if body == "" {
		body = stage + " ✓"
	}
	// The agent stages of a revision round say so, so they are not read
	// as a repeat (the gate line says why the round began).
	round := ""
	agentStage := stage == stepid.Draft || stage == stepid.Summarize || stage == stepid.Refine || stage == stepid.Judge || stage == stepid.LogicReview
	if cp, err := checkpoint.Load(e.Root); err == nil && agentStage && cp.Inflight == c && cp.RevisionCount > 0 {
		round = fmt.Sprintf(" · 修订第 %d 轮", cp.RevisionCount)
	}
	fmt.Fprintf(e.Stderr, "[第%s章] %s %ss (%d/%d)%s\n", layout.Pad(c), body, s, i, len(stages), round)
	return s
}

// polishing reports whether the chapter's gate asked for (or did) a polish.
func (e *Env) polishing(c int) bool {
	var g struct {
		Decision string `json:"decision"`
		Polished bool   `json:"polished"`
	}
	if e.Root.ReadJSON(layout.StagingGate(c), &g) != nil {
		return false
	}
	return g.Decision == gate.Polish || g.Polished
}

// Summary renders the commits collected in a summary file as
// `Ch 1: 3120字 4.2 pass | Ch 2: …`.
func Summary(file string) (string, []commit.Output, error) {
	if !filepath.IsAbs(file) {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
	}
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return "", nil, errs.Newf(errs.IO, "读取 %s 失败：%v", "cannot read %s: %v", file, err).With("file", file)
	}
	var parts []string
	results := []commit.Output{}
	for _, l := range jsonio.Lines(data) {
		var r commit.Output
		var score struct {
			Overall *float64 `json:"overall_final"`
		}
		if json.Unmarshal([]byte(l), &r) != nil || json.Unmarshal([]byte(l), &score) != nil {
			continue
		}
		results = append(results, r)
		if score.Overall == nil {
			parts = append(parts, summaryPart(&r, "-")) // a line from another tool without a score
		} else {
			parts = append(parts, SummaryPart(&r))
		}
	}
	return strings.Join(parts, " | "), results, nil
}

// lintWarnings are the warnings novel-lint finds in the text chapter c
// is about to commit (its errors already stopped the gate). Feedback
// only: a chapter that cannot be linted shows none.
func (e *Env) lintWarnings(c int) []lint.Check {
	s, err := settings.Load(e.Root, e.Getenv)
	if err != nil {
		return nil
	}
	return LintWarnings(e.Root, s, c)
}

// LintWarnings are the warning-severity lints of chapter c's staging text
// as it is about to be committed (with the previous chapter and the
// registered terms, which only the warnings need): the lint lines of
// Feedback.
func LintWarnings(root *project.Root, s settings.Settings, c int) []lint.Check {
	rep, err := products.LintChapterWarnings(root, s, c)
	if err != nil || rep == nil {
		return nil
	}
	return rep.Fired(lint.Warning)
}
