package commit

import (
	"strconv"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// run is one line of staging/logs/chapter-NNN-run.jsonl.
type run struct {
	Step    string `json:"step"`
	Mode    string `json:"mode"`
	Round   int    `json:"round"`
	Attempt int    `json:"attempt"`
	Started string `json:"started"`
	Ended   string `json:"ended"`
	Exit    int    `json:"exit"`
	Model   string `json:"model,omitempty"`
	Tokens  any    `json:"tokens,omitempty"`
}

// readRunLog reads the run log leniently: a line that does not parse is
// skipped with a warning (the log is bookkeeping, never a reason to fail).
func readRunLog(root *project.Root, c int) ([]run, []string) {
	rel := layout.RunLog(c)
	data, err := readIfExists(root, rel)
	if err != nil {
		return nil, []string{"cannot read " + rel + ": " + errsText(err)}
	}
	var runs []run
	var warns []string
	for i, ln := range splitLines(data) {
		var r run
		if err := jsonio.Decode(ln, rel, &r); err != nil {
			warns = append(warns, rel+": line "+strconv.Itoa(i+1)+" skipped (not a run record)")
			continue
		}
		runs = append(runs, r)
	}
	return runs, warns
}

func errsText(err error) string { return err.Error() }

// stageLog is one stage of logs/chapter-NNN-log.json.
type stageLog struct {
	Step            string  `json:"step"`
	Mode            string  `json:"mode,omitempty"`
	Round           int     `json:"round"`
	Attempts        int     `json:"attempts"`
	DurationSeconds float64 `json:"duration_seconds"`
	Exit            int     `json:"exit"`
	Model           string  `json:"model,omitempty"`
	Tokens          any     `json:"tokens,omitempty"`
}

// ChapterLog is logs/chapter-NNN-log.json.
type ChapterLog struct {
	Chapter              int        `json:"chapter"`
	StorylineID          string     `json:"storyline_id"`
	WordCount            int        `json:"word_count"`
	GateDecision         string     `json:"gate_decision"`
	OriginalDecision     string     `json:"original_decision,omitempty"`
	ForcePassed          bool       `json:"force_passed"`
	Polished             bool       `json:"polished"`
	Revisions            int        `json:"revisions"`
	OverallFinal         float64    `json:"overall_final"`
	Judges               any        `json:"judges"`
	Stages               []stageLog `json:"stages"`
	TotalDurationSeconds float64    `json:"total_duration_seconds"`
	CommittedAt          string     `json:"committed_at"`
}

func duration(r run) float64 {
	a, err1 := time.Parse(time.RFC3339, r.Started)
	b, err2 := time.Parse(time.RFC3339, r.Ended)
	if err1 != nil || err2 != nil || b.Before(a) {
		return 0
	}
	return b.Sub(a).Seconds()
}

// chapterLog groups the agent runs by step, mode and round (first
// appearance order); retries of one stage add up.
func chapterLog(c int, storyline string, out *Output, g *gate.GateFile, ev map[string]any, runs []run, now string) ChapterLog {
	lf := ChapterLog{Chapter: c, StorylineID: storyline, WordCount: out.WordCount, GateDecision: g.Decision,
		OriginalDecision: g.OriginalDecision, ForcePassed: g.ForcePassed, Polished: g.Polished, Revisions: out.RevisionCount,
		OverallFinal: g.OverallFinal, Stages: []stageLog{}, CommittedAt: now}
	if md, ok := ev["metadata"].(map[string]any); ok {
		lf.Judges = md["judges"]
	}
	idx := map[string]int{}
	for _, r := range runs {
		key := r.Step + "\x00" + r.Mode + "\x00" + strconv.Itoa(r.Round)
		i, ok := idx[key]
		if !ok {
			lf.Stages = append(lf.Stages, stageLog{Step: r.Step, Mode: r.Mode, Round: r.Round})
			i = len(lf.Stages) - 1
			idx[key] = i
		}
		s := &lf.Stages[i]
		s.Attempts++
		d := duration(r)
		s.DurationSeconds += d
		lf.TotalDurationSeconds += d
		s.Exit = r.Exit
		if r.Model != "" {
			s.Model = r.Model
		}
		if r.Tokens != nil {
			s.Tokens = addTokens(s.Tokens, r.Tokens)
		}
	}
	return lf
}

// addTokens sums numeric token counts; other shapes keep the latest.
func addTokens(a, b any) any {
	x, ok1 := jsonio.Int(a)
	y, ok2 := jsonio.Int(b)
	if ok1 && ok2 {
		return x + y
	}
	return b
}

// committedEval builds evaluations/chapter-NNN-eval.json: the primary
// eval (unwrapped from {"eval_used":…}) plus metadata {gate, secondary,
// judges}.
func committedEval(root *project.Root, c int, g *gate.GateFile, runs []run) (map[string]any, error) {
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

func judge(ev map[string]any, runs []run, mode string) map[string]any {
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
