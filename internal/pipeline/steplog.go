package pipeline

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/runlog"
)

// interrupted is the error of a steps-run line recorded for an attempt
// whose run was killed before it could record it itself.
const interrupted = "interrupted"

// stepAttempt is one executor attempt of an agent run that is not a
// chapter stage (setup, volume plan/contracts/review, amend, backfill,
// the continuity auditor). Like a chapter stage's attempt it collects the
// executor's usage records (NOVEL_RUN_LOG) and ends as one run line, in
// logs/steps-run.jsonl (SPEC §18: every request is in a run log).
type stepAttempt struct {
	e    *Env
	line runlog.Line
	done bool
}

// beginStep starts attempt `attempt` of step (mode): an attempt a killed
// run left unrecorded is recorded first, the usage file is cleared and
// the pending marker written.
func (e *Env) beginStep(step, mode string, attempt int) (*stepAttempt, error) {
	if err := e.recoverStep(); err != nil {
		return nil, err
	}
	a := &stepAttempt{e: e, line: runlog.Line{Step: step, Mode: mode, Attempt: attempt, Started: e.Clock.Stamp(), Run: e.runID()}}
	e.remove(layout.StepsRunUsage)
	if err := e.Root.WriteJSON(layout.StepsRunPending, a.line); err != nil {
		return nil, err
	}
	return a, nil
}

// execute runs the executor with the attempt's usage file, waiting out
// transient failures (the waits are counted in the line). An executor
// that cannot be started ends the attempt with that error.
func (a *stepAttempt) execute(agentCmd, packet, label string) (exit int, stdout, stderrTail []byte, err error) {
	exit, stdout, stderrTail, a.line.Waits, err = a.e.executeTransient(agentCmd, packet, layout.StepsRunUsage, label)
	a.line.Exit = exit
	if err != nil {
		if rerr := a.end(errs.Coerce(err)); rerr != nil {
			return 0, nil, nil, rerr
		}
	}
	return exit, stdout, stderrTail, err
}

// end records the attempt once: failure is why it did not count (nil when
// its outputs were accepted); a failed attempt that exited 0 is exit 1,
// as in a chapter's run log.
func (a *stepAttempt) end(failure *errs.Error) error {
	if a.done {
		return nil
	}
	a.done = true
	l := a.line
	l.Ended = a.e.Clock.Stamp()
	if failure != nil {
		l.Error = failure.Code
		if l.Exit == 0 {
			l.Exit = 1
		}
	}
	a.e.foldUsage(layout.StepsRunUsage, &l)
	if err := runlog.AppendStep(a.e.Root, l); err != nil {
		return err
	}
	a.e.remove(layout.StepsRunPending, layout.StepsRunUsage)
	return nil
}

// finish ends the attempt after its check: with failure, or with err when
// the check itself could not run (err is returned as it is).
func (a *stepAttempt) finish(failure *errs.Error, err error) error {
	if err != nil {
		a.end(errs.Coerce(err))
		return err
	}
	return a.end(failure)
}

// recoverStep records the attempt a killed run left in flight (its marker
// and whatever usage its executor wrote) with the error "interrupted":
// its requests were made and are counted. A marker whose line is already
// the log's last (killed between the two writes) is only removed.
func (e *Env) recoverStep() error {
	if !e.Root.IsFile(layout.StepsRunPending) {
		return nil
	}
	var l runlog.Line
	if err := e.Root.ReadJSON(layout.StepsRunPending, &l); err != nil || l.Step == "" {
		e.remove(layout.StepsRunPending, layout.StepsRunUsage)
		return nil
	}
	lines, _ := runlog.ReadSteps(e.Root)
	if n := len(lines); n == 0 || !(lines[n-1].SameAttempt(l) && lines[n-1].Started == l.Started && lines[n-1].Run == l.Run) {
		l.Ended, l.Error = e.Clock.Stamp(), interrupted
		if l.Exit == 0 {
			l.Exit = 1
		}
		e.foldUsage(layout.StepsRunUsage, &l)
		if err := runlog.AppendStep(e.Root, l); err != nil {
			return err
		}
	}
	e.remove(layout.StepsRunPending, layout.StepsRunUsage)
	return nil
}

// runID names the locked run this process belongs to: a digest of its
// lock token (never the token), "" outside a lock.
func (e *Env) runID() string {
	t := e.Getenv(lock.TokenEnv)
	if t == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:6])
}
