package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stepid"
)

// position orders the work of one round by the stage order of
// stepid.Stages (ten apart); the secondary judge follows the primary
// inside the judge stage.
func position(stage, role string) int {
	p := max(slices.Index(stepid.Stages, stage), 0) * 10
	if role == stepid.RoleSecondary {
		p += 5
	}
	return p
}

// currentRound is the revision round the checkpoint is in for chapter c.
func currentRound(cp *checkpoint.Checkpoint, c int) int {
	if cp.Inflight == c {
		return cp.RevisionCount
	}
	return 0
}

// Outcome reports what a helper did.
type Outcome struct {
	Step    string `json:"step"`
	Action  string `json:"action"` // ran, done, skipped
	Reason  string `json:"reason,omitempty"`
	Round   int    `json:"round"`
	Runs    int    `json:"agent_runs"`
	Seconds string `json:"seconds"`
}

// pending is the marker of an agent attempt in flight.
type pending struct {
	Step    string `json:"step"`
	Role    string `json:"role,omitempty"`
	Mode    string `json:"mode"`
	Round   int    `json:"round"`
	Attempt int    `json:"attempt"`
	Started string `json:"started"`
}

// packetInfo is the written packet, read as the executor reads it (one
// packet type: manifest.Packet, wrapped by agent.Packet).
type packetInfo = agent.Packet

// Step runs the agent stage st of revision round `round` with the executor
// command agentCmd. A stage that `novel-step next` shows as already done
// is only confirmed (advance is idempotent); a stage of a finished round
// or a committed chapter is skipped without a stamp.
func (e *Env) Step(st stepid.Step, round int, agentCmd string) (*Outcome, error) {
	if st.Volume || !st.IsAgent() || st.Stage == stepid.Gate || st.Stage == stepid.Commit {
		return nil, errs.Newf(errs.Usage, "%s 不是章节的代理步骤", "%s is not an agent step of a chapter", st.String()).With("step", st.String())
	}
	start := time.Now()
	c := st.Chapter
	out := &Outcome{Step: st.String(), Round: round}
	if skip, why, err := e.skip(c, round); err != nil || skip {
		out.Action, out.Reason = "skipped", why
		return out, err
	}
	for guard := 0; ; guard++ {
		n, err := e.next()
		if err != nil {
			return nil, err
		}
		if n.Chapter != c {
			out.Action, out.Reason = "skipped", "chapter_committed"
			return out, nil
		}
		pos, mine := position(n.Stage, n.Role), position(st.Stage, "")
		end := mine
		if st.Stage == stepid.Judge {
			end = position(stepid.Judge, stepid.RoleSecondary)
		}
		if pos < mine {
			return nil, e.orderErr(st, n)
		}
		if pos > end || guard >= 4 {
			break
		}
		if st.Stage == stepid.Draft {
			if err := e.redraft(c); err != nil {
				return nil, err
			}
		}
		if err := e.runAgent(st, n.Role, round, agentCmd); err != nil {
			return nil, err
		}
		out.Runs++
		// Only the primary judge can be followed by more work in the same
		// stage (the secondary judge); next cannot see a stage as done
		// before its advance (refine, polish).
		if st.Stage != stepid.Judge || n.Role != "" {
			break
		}
	}
	recovered, err := e.recoverPending(st)
	if err != nil {
		return nil, err
	}
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return nil, err
	}
	// Advance what ran; a stage found done is advanced only when the
	// checkpoint has not recorded it (a kill between validate and advance).
	// A polish that was not needed is never advanced (the gate said pass).
	if out.Runs > 0 || recovered || (st.Stage != stepid.Polish && !recorded(cp, c, st.Stage)) {
		if _, err := e.must("novel-step", "advance", st.String()); err != nil {
			return nil, err
		}
	}
	if err := e.Root.WriteFile(layout.Stamp(c, st.Stage, round), nil); err != nil {
		return nil, err
	}
	out.Action = "done"
	if out.Runs > 0 {
		out.Action = "ran"
	}
	if st.Stage != stepid.Polish || out.Runs > 0 || recovered {
		out.Seconds = e.progress(c, st.Stage, start)
	}
	return out, nil
}

// skip reports whether the chapter is committed or the round is over.
func (e *Env) skip(c, round int) (bool, string, error) {
	cp, err := checkpoint.Load(e.Root)
	if err != nil {
		return false, "", err
	}
	// Once the commit has moved the checkpoint past c every agent stage and
	// the gate are done, even while its journal still exists (a kill after
	// the checkpoint step): only the commit target has work left, and
	// confirming a stage would be refused (E_STAGE_ORDER).
	if cp.LastCompleted >= c {
		return true, "chapter_committed", nil
	}
	if currentRound(cp, c) != round {
		return true, "round_over", nil
	}
	return false, "", nil
}

func (e *Env) orderErr(st stepid.Step, n *nextStep) error {
	return errs.Newf(errs.StageOrder, "%s 还不能运行：下一步是 %s", "%s cannot run yet: the next step is %s", st.String(), n.Step).
		With("step", st.String()).With("next", n.Step).
		Hint("用 novel-step next 查看进度，然后重新运行 make -f pipeline.mk chapter", "check novel-step next, then re-run make -f pipeline.mk chapter")
}

// runAgent performs one agent run of st (role) with one retry.
func (e *Env) runAgent(st stepid.Step, role string, round int, agentCmd string) error {
	c := st.Chapter
	args := []string{"packet", st.String(), "--write-manifest"}
	if role != "" {
		args = append(args, "--role", role)
	}
	raw, err := e.must("novel-manifest", args...)
	if err != nil {
		return err
	}
	var written struct {
		Path string `json:"written_manifest_path"`
	}
	if err := jsonio.Decode(raw, "novel-manifest packet", &written); err != nil {
		return err
	}
	packetPath := written.Path
	if packetPath == "" {
		packetPath = layout.Packet(c, st.Stage)
	}
	pk, err := agent.ParsePacket(raw, packetPath)
	if err != nil {
		return err
	}
	pre := ""
	if st.Stage == stepid.Refine || st.Stage == stepid.Polish || (st.Stage == stepid.Draft && (pk.Agent.Mode == stepid.ModeRevision || pk.Agent.Mode == stepid.ModeFix)) {
		stage := st.Stage
		if st.Stage == stepid.Draft {
			stage = stepid.ModeRevision
		}
		pre = layout.StagingPreCopy(c, stage)
	}
	// A marker left by a killed attempt of the other judge of this chapter
	// (next moved on to this role, so its output validated): record its
	// run-log line as an uninterrupted run would have.
	var mark pending
	if e.Root.IsFile(layout.RunPending(c)) && e.Root.ReadJSON(layout.RunPending(c), &mark) == nil && mark.Step == st.String() && mark.Role != role {
		if _, err := e.recoverPending(st); err != nil {
			return err
		}
	}
	// A marker left by a killed attempt: its outputs are not trusted.
	if e.Root.Exists(layout.RunPending(c)) {
		if pre != "" && e.Root.IsFile(pre) {
			if err := e.copyFile(pre, layout.StagingChapter(c)); err != nil {
				return err
			}
		}
		e.remove(layout.RunPending(c), layout.RunUsage(c))
	}
	var lastErr *errs.Error
	for attempt := 1; attempt <= 2; attempt++ {
		if pre != "" {
			switch {
			case e.Root.IsFile(pre):
				err = e.copyFile(pre, layout.StagingChapter(c))
			case e.Root.IsFile(layout.StagingChapter(c)):
				err = e.copyFile(layout.StagingChapter(c), pre)
			}
			if err != nil {
				return err
			}
		}
		failure, err := e.attempt(st, role, round, attempt, pk, packetPath, agentCmd)
		if err != nil {
			return err
		}
		if failure == nil {
			if pre != "" {
				e.remove(pre)
			}
			return nil
		}
		lastErr = failure
		e.cleanup(pk, pre)
		fmt.Fprintf(e.Stderr, "[第%s章] %s ✗ 第 %d 次尝试失败 / attempt %d failed: %s\n", layout.Pad(c), label(st.Stage, role), attempt, attempt, failure.Message("zh"))
		if failure.Details["content_filter"] == true {
			// A content-filter refusal answers the content, not chance:
			// the same packet would be refused again (SPEC §26).
			break
		}
	}
	if pre != "" {
		e.remove(pre)
	}
	return e.giveUp(st, role, lastErr)
}

// attempt runs the executor once and validates its outputs. A returned
// *errs.Error is a failed attempt (retryable); error is fatal.
func (e *Env) attempt(st stepid.Step, role string, round, attempt int, pk *packetInfo, packetPath, agentCmd string) (*errs.Error, error) {
	c := st.Chapter
	mark := pending{Step: st.String(), Role: role, Mode: pk.Agent.Mode, Round: round, Attempt: attempt, Started: e.Clock.Stamp()}
	if err := e.Root.WriteJSON(layout.RunPending(c), mark); err != nil {
		return nil, err
	}
	// Executors may assume the directories of their outputs exist.
	for _, o := range pk.ExpectedOutputs {
		if abs, err := e.Root.Abs(o.Path); err == nil {
			os.MkdirAll(filepath.Dir(abs), 0o755)
		}
	}
	e.remove(layout.RunUsage(c))
	exit, stdout, stderrTail, waits, err := e.executeWaiting(st, role, agentCmd, packetPath)
	if err != nil {
		return nil, err
	}
	var failure *errs.Error
	if exit == agent.ExitTransient {
		failure = errs.Newf(errs.Agent, "执行器暂时失败（退出码 75），等待 %d 次后仍未恢复", "the executor failed transiently (exit 75) and had not recovered after %d waits", waits).
			With("exit", exit).With("transient_waits", waits).With("cause", executorFailure(exit, stderrTail).Body("zh"))
	} else if exit != 0 {
		failure = executorFailure(exit, stderrTail)
	} else if o, ok := pk.Output(agent.ViaStdout, nil); ok {
		if len(bytes.TrimSpace(stdout)) == 0 {
			failure = errs.Newf(errs.Agent, "执行器没有在 stdout 打印 %s 的 JSON", "the executor printed no JSON for %s on stdout", o.Path).With("file", o.Path)
		} else if err := e.Root.WriteFile(o.Path, stdout); err != nil {
			return nil, err
		}
	}
	if failure == nil {
		failure, err = e.validate(st, role, pk)
		if err != nil {
			return nil, err
		}
	}
	line := runlog.Line{Step: st.String(), Mode: pk.Agent.Mode, Round: round, Attempt: attempt, Started: mark.Started,
		Ended: e.Clock.Stamp(), Exit: exit, Waits: waits}
	if failure != nil {
		line.Error = failure.Code
		if line.Exit == 0 {
			line.Exit = 1
		}
	}
	e.usage(c, &line)
	if err := runlog.Append(e.Root, c, line); err != nil {
		return nil, err
	}
	e.remove(layout.RunPending(c), layout.RunUsage(c))
	return failure, nil
}

// validate runs novel-step validate for the role just written. A judge is
// validated alone (--role primary|secondary): its own eval and its own
// write-boundary window, so the secondary judge that runs next (or ran in
// an earlier pass, before the checkpoint moved on) is not part of it.
func (e *Env) validate(st stepid.Step, role string, pk *packetInfo) (*errs.Error, error) {
	args := []string{"validate", st.String()}
	if st.Stage == stepid.Judge && role == "" {
		role = stepid.RolePrimary
	}
	if role != "" {
		args = append(args, "--role", role)
	}
	res, err := e.tool("novel-step", args...)
	if err != nil {
		return nil, err
	}
	if res.Exit == 0 {
		return nil, nil
	}
	return res.Err, nil
}

// executorFailure is a failed executor run: its own error line (the last
// stderr line in the SPEC §1 envelope, as novel-agent prints it) is kept
// whole — code, message, hint, details such as server_message — with the
// exit status added; otherwise the exit status and the last stderr line.
func executorFailure(exit int, stderrTail []byte) *errs.Error {
	_, last := splitLastLine(stderrTail)
	if pe := errs.ParseLine(last); pe != nil {
		return pe.With("exit", exit)
	}
	failure := errs.Newf(errs.Agent, "执行器退出码 %d", "the executor exited with status %d", exit).With("exit", exit)
	if line := strings.TrimSpace(string(last)); line != "" && utf8.ValidString(line) {
		if r := []rune(line); len(r) > 300 {
			line = string(r[len(r)-300:])
		}
		failure = errs.Newf(errs.Agent, "执行器退出码 %d：%s", "the executor exited with status %d: %s", exit, line).
			With("exit", exit).With("stderr", line)
	}
	return failure
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// execute runs `$(AGENT) PACKET` with cwd = project root; usage ("" for
// none) is the file exported as NOVEL_RUN_LOG. Its stderr goes to the user
// as it comes; the tail is kept for the failure's cause.
func (e *Env) execute(agentCmd, packetPath, usage string) (int, []byte, []byte, error) {
	cmd := exec.Command("bash", "-c", agentCmd+` "$1"`, "novel-executor", packetPath)
	cmd.Dir = e.Root.Dir
	cmd.Env = append(os.Environ(), "NOVEL_PROJECT="+e.Root.Dir)
	if usage != "" {
		usageAbs, err := e.Root.Abs(usage)
		if err != nil {
			return 0, nil, nil, err
		}
		cmd.Env = append(cmd.Env, "NOVEL_RUN_LOG="+usageAbs)
	}
	var out bytes.Buffer
	tail := &tailBuffer{max: 64 << 10}
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(e.Stderr, tail)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.Bytes(), tail.buf, nil
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if code < 0 {
			code = 137
		}
		return code, out.Bytes(), tail.buf, nil
	}
	return 0, nil, nil, errs.Newf(errs.Agent, "无法启动执行器 %q：%v", "cannot start the executor %q: %v", agentCmd, err).With("agent", agentCmd)
}

// usage folds chapter c's NOVEL_RUN_LOG records into its run line
// (runlog.Line.AddUsage, the fold the steps run log uses too).
func (e *Env) usage(c int, line *runlog.Line) { e.foldUsage(layout.RunUsage(c), line) }

// foldUsage folds the usage records in rel (if any) into line.
func (e *Env) foldUsage(rel string, line *runlog.Line) {
	if data, err := e.Root.ReadFile(rel); err == nil {
		line.AddUsage(data)
	}
}

// recoverPending finishes the record of an attempt that was killed after
// its executor wrote outputs that now validate (next moved past them).
func (e *Env) recoverPending(st stepid.Step) (bool, error) {
	c := st.Chapter
	if !e.Root.IsFile(layout.RunPending(c)) {
		return false, nil
	}
	var mark pending
	if err := e.Root.ReadJSON(layout.RunPending(c), &mark); err != nil || mark.Step != st.String() {
		return false, nil
	}
	line := runlog.Line{Step: mark.Step, Mode: mark.Mode, Round: mark.Round, Attempt: mark.Attempt, Started: mark.Started, Ended: e.Clock.Stamp()}
	e.usage(c, &line)
	if err := runlog.Append(e.Root, c, line); err != nil {
		return false, err
	}
	e.remove(layout.RunPending(c), layout.RunUsage(c))
	return true, nil
}

// cleanup undoes a failed attempt: the chapter comes back from its
// pre-stage copy, every other declared output is deleted.
func (e *Env) cleanup(pk *packetInfo, pre string) {
	c := pk.Chapter
	if pre != "" && e.Root.IsFile(pre) {
		e.copyFile(pre, layout.StagingChapter(c))
	}
	var del []string
	if pk.Agent.Name == stepid.Summarizer {
		var d struct {
			StorylineID string `json:"storyline_id"`
		}
		if e.Root.ReadJSON(layout.StagingDelta(c), &d) == nil && d.StorylineID != "" && agent.CheckOutputPath(layout.StagingMemory(d.StorylineID)) == nil {
			del = append(del, layout.StagingMemory(d.StorylineID))
		}
	}
	for _, o := range pk.ExpectedOutputs {
		if o.Path == layout.StagingChapter(c) && pre != "" {
			continue
		}
		del = append(del, o.Path)
	}
	e.remove(del...)
}

// giveUp records the second failure (ERROR_RETRY) with its cause — code,
// message, hint and details — and names the way back, the cause's own
// advice first (a write-boundary violation's files must be restored
// before the retry re-snapshots the tree).
func (e *Env) giveUp(st stepid.Step, role string, cause *errs.Error) error {
	msg := cause.Message("zh")
	args := []string{"fail", "--step", st.String(), "--error", msg, "--code", cause.Code}
	if h := cause.HintText("zh"); h != "" {
		args = append(args, "--hint", h)
	}
	if len(cause.Details) > 0 {
		d, err := json.Marshal(cause.Details)
		if err == nil {
			args = append(args, "--details", string(d))
		}
	}
	if _, err := e.must("novel-step", args...); err != nil {
		return err
	}
	c := strconv.Itoa(st.Chapter)
	zhHint := "修复问题后运行 novel-step retry，再运行 make -f pipeline.mk chapter C=" + c + "（放弃本章：novel-step abandon --chapter " + c + "）"
	enHint := "fix the problem, run novel-step retry, then make -f pipeline.mk chapter C=" + c + " (to give up the chapter: novel-step abandon --chapter " + c + ")"
	if h := cause.HintText("zh"); h != "" {
		zhHint = h + "；然后运行 novel-step retry，再运行 make -f pipeline.mk chapter C=" + c + "（放弃本章：novel-step abandon --chapter " + c + "）"
		enHint = cause.HintText("en") + "; then run novel-step retry and make -f pipeline.mk chapter C=" + c + " (to give up the chapter: novel-step abandon --chapter " + c + ")"
	}
	zhMsg := fmt.Sprintf("第 %d 章的 %s 步骤重试后仍失败：%s", st.Chapter, label(st.Stage, role), msg)
	enMsg := fmt.Sprintf("step %s of chapter %d failed again after a retry: %s", label(st.Stage, role), st.Chapter, cause.Message("en"))
	if cause.Details["content_filter"] == true {
		zhMsg = fmt.Sprintf("第 %d 章的 %s 步骤被内容审核拦截（不重试）：%s", st.Chapter, label(st.Stage, role), msg)
		enMsg = fmt.Sprintf("step %s of chapter %d was refused by the content filter (not retried): %s", label(st.Stage, role), st.Chapter, cause.Message("en"))
	}
	out := errs.New(cause.Code, zhMsg, enMsg).
		Hint(zhHint, enHint).
		With("step", st.String()).With("cause", cause.Body("zh")).WithExit(errs.ExitFailed)
	if role != "" {
		out.With("role", role)
	}
	return out
}

func label(stage, role string) string {
	if role != "" {
		return stage + "(" + role + ")"
	}
	return stage
}

func (e *Env) copyFile(from, to string) error {
	data, err := e.Root.ReadFile(from)
	if err != nil {
		return err
	}
	return e.Root.WriteFile(to, data)
}

// remove deletes project files, ignoring ones that are gone.
func (e *Env) remove(rels ...string) {
	for _, rel := range rels {
		if abs, err := e.Root.Abs(rel); err == nil {
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(e.Stderr, "warning: cannot remove %s: %v\n", rel, err)
			}
		}
	}
}

// recorded reports whether the checkpoint already holds stage's advance
// for chapter c (polishing implies everything up to judged).
func recorded(cp *checkpoint.Checkpoint, c int, stage string) bool {
	if cp.Inflight != c {
		return false
	}
	if cp.Stage == checkpoint.Polishing {
		return true
	}
	target := map[string]string{stepid.Draft: checkpoint.Drafting, stepid.Summarize: checkpoint.Drafted,
		stepid.Refine: checkpoint.Refined, stepid.Judge: checkpoint.Judged, stepid.LogicReview: checkpoint.Judged}[stage]
	return checkpoint.Order(cp.Stage) >= checkpoint.Order(target) && target != ""
}

// DefaultWaitMax bounds how long one attempt waits out transient executor
// failures (exit 75: rate limit, outage) before it counts as failed.
const DefaultWaitMax = 30 * time.Minute

// waitMax reads NOVEL_WAIT_MAX: a Go duration ("30m", "2s") or seconds.
func (e *Env) waitMax() (time.Duration, error) {
	v := e.Getenv("NOVEL_WAIT_MAX")
	if v == "" {
		return DefaultWaitMax, nil
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, errs.Newf(errs.Config, "NOVEL_WAIT_MAX=%q 必须是秒数或时长（如 30m）", "NOVEL_WAIT_MAX=%q must be seconds or a duration such as 30m", v).
			With("key", "NOVEL_WAIT_MAX").With("source", "env NOVEL_WAIT_MAX").
			Hint("例如 NOVEL_WAIT_MAX=30m；0 表示不等待", "for example NOVEL_WAIT_MAX=30m; 0 means no waiting")
	}
	return d, nil
}

// executeWaiting runs the executor; while it exits 75 (a transient
// failure) it waits with doubling backoff (a quarter of the budget at
// most to start, 5 minutes at most per wait) and runs it again, until
// NOVEL_WAIT_MAX is spent. The usage lines of every run stay in the
// attempt's record.
func (e *Env) executeWaiting(st stepid.Step, role, agentCmd, packetPath string) (exit int, stdout, stderrTail []byte, waits int, err error) {
	return e.executeTransient(agentCmd, packetPath, layout.RunUsage(st.Chapter), "[第"+layout.Pad(st.Chapter)+"章] "+label(st.Stage, role))
}

// executeTransient runs the executor and waits out its transient failures
// (exit 75: rate limit, outage) with backoff for up to NOVEL_WAIT_MAX, so an
// unattended run survives a provider hiccup (SPEC §18); every agent run of
// the pipeline — chapter stages, setup, volume plans and reviews, amend and
// backfill — goes through it. label starts the waiting line.
func (e *Env) executeTransient(agentCmd, packetPath, usage, label string) (exit int, stdout, stderrTail []byte, waits int, err error) {
	budget, err := e.waitMax()
	if err != nil {
		return 0, nil, nil, 0, err
	}
	wait := min(30*time.Second, budget/4)
	var spent time.Duration
	for ; ; waits++ {
		exit, stdout, stderrTail, err = e.execute(agentCmd, packetPath, usage)
		if err != nil || exit != agent.ExitTransient || spent >= budget || wait <= 0 {
			return exit, stdout, stderrTail, waits, err
		}
		d := min(wait, budget-spent)
		fmt.Fprintf(e.Stderr, "%s ⏸ 执行器暂时失败（退出码 75），%s 后重试 / transient executor failure, retrying in %s\n", label, d, d)
		time.Sleep(d)
		spent += d
		wait = min(wait*2, 5*time.Minute)
	}
}
