package pipeline

import (
	"fmt"
	"os"
	"path"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// reviewPacket is where audit:NNN's packet is written for the executor.
func reviewPacket(c int) string { return layout.AuditPacket(c) }

// reviewContinuity runs the continuity-auditor step audit:NNN (settings
// continuity_audit "agent", the default for a model executor: SPEC §21,
// §25) after a commit whose
// maintenance ran the deterministic audit: the executor gets the window
// and the deterministic report, its answer is checked (audit.ParseReview)
// and stored as logs/continuity/agent-report-NNN.json. It never blocks the
// pipeline: an executor that fails twice, or answers twice with something
// that is not a valid report, becomes a warning line. It returns the lines
// to print.
func (e *Env) reviewContinuity(b *audit.ContinuityBrief, agentCmd string) []string {
	s, err := settings.Load(e.Root, e.Getenv)
	if err != nil || s.AuditFor(agentBackend(agentCmd)) != settings.AuditAgent || agentCmd == "" || b == nil {
		return nil
	}
	to := b.ChapterRange[1]
	st := stepid.AuditStep(to)
	warn := func(why string) []string {
		return []string{fmt.Sprintf("  ⚠ 连续性复核 %s（continuity-auditor）未完成，已跳过：%s", st.String(), why)}
	}
	vol := 1
	if cp, err := checkpoint.Load(e.Root); err == nil {
		vol = cp.CurrentVolume
	}
	packet, out := reviewPacket(to), layout.StagingAuditReview(to)
	defer e.remove(packet, out)
	defer e.removeEmptyDir(path.Dir(out))
	pk, err := manifest.BuildAudit(e.Root, vol, s, to)
	if err == nil {
		err = e.Root.WriteJSON(packet, pk)
	}
	if err != nil {
		return warn(errs.Coerce(err).Message("zh"))
	}
	why := ""
	for attempt := 1; attempt <= 2; attempt++ {
		e.remove(out)
		rep, failure, err := e.auditAttempt(st, attempt, agentCmd, packet, b.ChapterRange[0])
		if err != nil {
			return warn(errs.Coerce(err).Message("zh"))
		}
		if failure != nil {
			why = failure.Message("zh")
			continue
		}
		return audit.ReviewLines(rep, maxListed)
	}
	return warn(why)
}

// auditAttempt runs the continuity auditor once and stores its review; a
// failed run or a refused answer is the failure. The attempt is one line
// of the steps run log either way.
func (e *Env) auditAttempt(st stepid.Step, attempt int, agentCmd, packet string, from int) (*audit.Report, *errs.Error, error) {
	to, out := st.Number, layout.StagingAuditReview(st.Number)
	run, err := e.beginStep(st.String(), stepid.Audit, attempt)
	if err != nil {
		return nil, nil, err
	}
	exit, _, tail, err := run.execute(agentCmd, packet, "["+st.String()+"]")
	if err != nil {
		return nil, nil, err
	}
	var failure *errs.Error
	var rep *audit.Report
	if exit != 0 {
		failure = executorFailure(exit, tail)
	} else if data, rerr := e.Root.ReadFile(out); rerr != nil {
		failure = errs.Coerce(rerr)
	} else if rep, rerr = audit.ParseReview(data, out, from, to, e.Clock.Stamp()); rerr != nil {
		failure = errs.Coerce(rerr)
	}
	if failure == nil {
		err = audit.StoreReview(e.Root, rep)
	}
	return rep, failure, run.finish(failure, err)
}

// removeEmptyDir removes a staging directory left empty.
func (e *Env) removeEmptyDir(rel string) {
	if abs, err := e.Root.Abs(rel); err == nil {
		os.Remove(abs) // fails, harmlessly, when not empty
	}
}
