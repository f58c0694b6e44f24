package commit

import (
	"strings"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stepid"
)

// chapterLog is logs/chapter-NNN-log.json for chapter c: the gate's
// outcome plus the run log folded into stages and usage totals.
func chapterLog(c int, storyline string, out *Output, g *gate.GateFile, ev map[string]any, runs []runlog.Line, now string) runlog.ChapterLog {
	words, overall := out.WordCount, g.OverallFinal
	lf := runlog.ChapterLog{Chapter: c, StorylineID: storyline, WordCount: &words, GateDecision: g.Decision,
		OriginalDecision: g.OriginalDecision, ForcePassed: g.ForcePassed, Polished: g.Polished, Revisions: out.RevisionCount,
		OverallFinal: &overall, CommittedAt: now}
	if md, ok := ev["metadata"].(map[string]any); ok {
		lf.Judges = md["judges"]
	}
	lf.Fold(runs)
	return lf
}

// committedEval builds evaluations/chapter-NNN-eval.json: the primary
// eval (unwrapped from {"eval_used":…}) plus metadata {gate, secondary,
// judges}.
func committedEval(root *project.Root, c int, g *gate.GateFile, runs []runlog.Line) (map[string]any, error) {
	primary, err := rawEval(root, layout.StagingEval(c))
	if err != nil {
		return nil, err
	}
	var secondary map[string]any
	if root.Exists(layout.StagingEvalSecondary(c)) {
		if secondary, err = rawEval(root, layout.StagingEvalSecondary(c)); err != nil {
			return nil, err
		}
	}
	var gateRaw any
	if err := root.ReadJSON(layout.StagingGate(c), &gateRaw); err != nil {
		return nil, err
	}
	md, _ := primary["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	judges := map[string]any{
		"primary":       judge(primary, runs, stepid.RolePrimary),
		"used":          g.EvalUsed,
		"overall_final": g.OverallFinal,
	}
	md["gate"] = gateRaw
	if secondary != nil {
		md["secondary"] = secondary
		judges["secondary"] = judge(secondary, runs, stepid.RoleSecondary)
	} else {
		md["secondary"] = nil
	}
	md["judges"] = judges
	primary["metadata"] = md
	return primary, nil
}

func rawEval(root *project.Root, rel string) (map[string]any, error) {
	var m map[string]any
	if err := root.ReadJSON(rel, &m); err != nil {
		return nil, err
	}
	if u, ok := eval.Unwrap(m); ok {
		return u, nil
	}
	return m, nil
}

func judge(ev map[string]any, runs []runlog.Line, mode string) map[string]any {
	j := map[string]any{"overall": ev["overall"]}
	model, _ := ev["model"].(string)
	for _, r := range runs {
		if r.Mode == mode && r.Model != "" && isJudge(r.Step) {
			model = r.Model
		}
	}
	if model != "" {
		j["model"] = model
	}
	return j
}

func isJudge(step string) bool {
	return step == stepid.Judge || strings.HasSuffix(step, ":"+stepid.Judge)
}
