package agent

import (
	"strings"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stepid"
)

// BackendApply names an answer handed in by the caller (novel-agent apply)
// in outcomes and errors.
const BackendApply = "apply"

// given is the backend of Apply: the answer a person, an agent harness or
// an MCP client wrote, taken as a live model's answer so it gets the same
// hygiene, packet-known fields, validation and lints (SPEC §27).
type given struct {
	text   []byte
	source string
}

func (given) Name() string { return BackendApply }

// Reasks is 0: the caller re-asks itself, with Reask's message.
func (given) Reasks() int { return 0 }

func (g given) Ask(*Packet, error) (*Reply, error) {
	return &Reply{Text: g.text, Source: g.source, Live: true}, nil
}

// Apply takes an answer in exactly the format the role prompt asks for
// (the text the openai backend would receive) and writes the packet's
// outputs, as Execute does for a live backend. A read-only role's report
// (judge, logic reviewer), which the pipeline takes from stdout, is written
// to the path the packet declares for it. Nothing is written unless the
// whole answer is valid. A chapter step's answer is recorded in the
// chapter's run log like a pipeline attempt (model: who wrote it, when the
// caller says; now: the suite clock's stamp), so the chapter log, the
// report and the judges' record read the same on every route.
func Apply(root *project.Root, p *Packet, answer []byte, source, model, now string, check ChapterCheck) (*Outcome, error) {
	var report *Expected
	if o, ok := p.Output(ViaStdout, nil); ok {
		if err := CheckOutputPath(o.Path); err != nil {
			return nil, err
		}
		if _, err := root.Abs(o.Path); err != nil {
			return nil, err
		}
		report = &o
	}
	out, err := ExecuteRecording(root, p, given{text: answer, source: source}, nil, check)
	if err != nil {
		return nil, err
	}
	out.Model = model
	if report != nil && out.Stdout != nil {
		if err := root.WriteFile(report.Path, out.Stdout); err != nil {
			return nil, err
		}
		out.Written = append(out.Written, report.Path)
	}
	if strings.HasPrefix(p.Step, "chapter:") && p.Chapter > 0 {
		if err := recordAttempt(root, p, model, now); err != nil {
			return nil, err
		}
	}
	if p.Agent.Name == stepid.ContinuityAuditor {
		if err := storeAudit(root, p, out, now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// storeAudit stores an applied continuity review where the pipeline
// stores its own (SPEC §25): on the agent route no pipeline follows the
// answer, so apply is where the review becomes the report the next
// chapters' packets read. The staged answer stays what the packet
// declared (an executor under the pipeline may apply, and the pipeline
// reads it there).
func storeAudit(root *project.Root, p *Packet, out *Outcome, now string) error {
	rng, err := auditRange(p)
	if err != nil {
		return err
	}
	staged := out.Written[0]
	data, err := root.ReadFile(staged)
	if err != nil {
		return err
	}
	rep, err := audit.ParseReview(data, staged, rng[0], rng[1], now)
	if err != nil {
		return err
	}
	if err := audit.StoreReview(root, rep); err != nil {
		return err
	}
	out.Written = append(out.Written, layout.AgentAuditReport(rng[1]), audit.AgentLatest)
	for _, l := range audit.ReviewLines(rep, 5) {
		out.Notes = append(out.Notes, strings.TrimSpace(l))
	}
	return nil
}

// recordAttempt appends the applied answer to the chapter's run log as
// the next attempt of its step, mode and round.
func recordAttempt(root *project.Root, p *Packet, model, now string) error {
	line := runlog.Line{Step: p.Step, Mode: p.Agent.Mode, Round: p.RevisionRound, Attempt: 1, Started: now, Ended: now, Model: model}
	lines, _ := runlog.Read(root, p.Chapter)
	for _, l := range lines {
		if l.Step == line.Step && l.Mode == line.Mode && l.Round == line.Round && l.Attempt >= line.Attempt {
			line.Attempt = l.Attempt + 1
		}
	}
	return runlog.Append(root, p.Chapter, line)
}

// Reask is the message a live backend sends after an answer failed
// validation: what Apply's caller should act on before answering again.
func Reask(feedback error) string {
	return "你上一次的输出无法通过校验：" + errs.Coerce(feedback).Message("zh") +
		"\n请修正后重新输出完整答案，只输出答案本身。"
}
