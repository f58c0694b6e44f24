package runlog

import (
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// Stage is one stage of a chapter log: the attempts of one step, mode and
// round, with the usage of every request they made.
type Stage struct {
	Step            string  `json:"step"`
	Mode            string  `json:"mode,omitempty"`
	Round           int     `json:"round"`
	Attempts        int     `json:"attempts"`
	DurationSeconds float64 `json:"duration_seconds"`
	Exit            int     `json:"exit"`
	Model           string  `json:"model,omitempty"`
	Requests        int     `json:"requests,omitempty"`
	Tokens          *Tokens `json:"tokens,omitempty"`
	Cost            Cost    `json:"cost,omitempty"`
}

// ChapterLog is logs/chapter-NNN-log.json (SPEC §8.1 step 5, §18). Tokens
// and Cost total every request of every stage; Cost is null when no
// request was priced, and UnpricedRequests counts the answered requests
// the cost misses (no usage from the server, or no price for the model).
type ChapterLog struct {
	Chapter              int      `json:"chapter"`
	StorylineID          string   `json:"storyline_id"`
	WordCount            *int     `json:"word_count"`
	GateDecision         string   `json:"gate_decision"`
	OriginalDecision     string   `json:"original_decision,omitempty"`
	ForcePassed          bool     `json:"force_passed"`
	Polished             bool     `json:"polished"`
	Revisions            int      `json:"revisions"`
	OverallFinal         *float64 `json:"overall_final"`
	Judges               any      `json:"judges"`
	Stages               []Stage  `json:"stages"`
	TotalDurationSeconds float64  `json:"total_duration_seconds"`
	Requests             int      `json:"requests"`
	Tokens               Tokens   `json:"tokens"`
	Cost                 Cost     `json:"cost"`
	UnpricedRequests     int      `json:"unpriced_requests"`
	// EstimatedRequests counts the requests whose tokens (and so cost)
	// were estimated because the server reported no usage (SPEC §26).
	EstimatedRequests int    `json:"estimated_requests,omitempty"`
	CommittedAt       string `json:"committed_at"`
}

// Fold groups the run lines into stages by step, mode and round (first
// appearance order; retries of one stage add up) and totals durations,
// requests, tokens and cost for the stages and the chapter.
func (lg *ChapterLog) Fold(lines []Line) {
	f := Fold(lines)
	lg.Stages, lg.TotalDurationSeconds = f.Stages, f.DurationSeconds
	lg.Requests, lg.Tokens, lg.Cost, lg.UnpricedRequests = f.Requests, f.Tokens, f.Cost, f.UnpricedRequests
	lg.EstimatedRequests = f.EstimatedRequests
}

// Folded is run lines grouped into stages, with the totals of them all.
type Folded struct {
	Stages           []Stage
	DurationSeconds  float64
	Requests         int
	Tokens           Tokens
	Cost             Cost
	UnpricedRequests int
	// EstimatedRequests counts requests with estimated usage.
	EstimatedRequests int
}

// Fold groups lines into stages by step, mode and round (first appearance
// order; retries and repeated runs of one stage add up) and totals them:
// the one fold of a chapter log and of the report's other runs.
func Fold(lines []Line) Folded {
	f := Folded{Stages: []Stage{}}
	idx := map[string]int{}
	for _, r := range lines {
		key := r.Step + "\x00" + r.Mode + "\x00" + strconv.Itoa(r.Round)
		i, ok := idx[key]
		if !ok {
			f.Stages = append(f.Stages, Stage{Step: r.Step, Mode: r.Mode, Round: r.Round})
			i = len(f.Stages) - 1
			idx[key] = i
		}
		s := &f.Stages[i]
		s.Attempts++
		d := r.Duration()
		s.DurationSeconds += d
		f.DurationSeconds += d
		s.Exit = r.Exit
		if r.Model != "" {
			s.Model = r.Model
		}
		s.Requests += len(r.Requests)
		f.Requests += len(r.Requests)
		f.UnpricedRequests += r.Unpriced()
		f.EstimatedRequests += r.Estimated()
		if t := r.TokenCounts(); t.Known() {
			if s.Tokens == nil {
				s.Tokens = &Tokens{}
			}
			s.Tokens.AddTokens(t)
			f.Tokens.AddTokens(t)
		}
		for cur, amount := range r.Cost {
			if s.Cost == nil {
				s.Cost = Cost{}
			}
			if f.Cost == nil {
				f.Cost = Cost{}
			}
			s.Cost.Add(cur, amount)
			f.Cost.Add(cur, amount)
		}
	}
	return f
}

// lenientLog is how ParseChapterLog reads a chapter log: every field
// typed loosely, since logs written by the plugin era or by older suite
// versions differ (storyline for storyline_id, revisions as a list of
// rounds, revision_count, no usage).
type lenientLog struct {
	StorylineID      any `json:"storyline_id"`
	Storyline        any `json:"storyline"`
	WordCount        any `json:"word_count"`
	GateDecision     any `json:"gate_decision"`
	OriginalDecision any `json:"original_decision"`
	ForcePassed      any `json:"force_passed"`
	Polished         any `json:"polished"`
	Revisions        any `json:"revisions"`
	RevisionCount    any `json:"revision_count"`
	OverallFinal     any `json:"overall_final"`
	Requests         any `json:"requests"`
	Tokens           any `json:"tokens"`
	Cost             any `json:"cost"`
	Unpriced         any `json:"unpriced_requests"`
	Estimated        any `json:"estimated_requests"`
}

// ParseChapterLog reads a committed chapter log for chapter c: it must be
// a JSON object; its fields are read leniently (a value of another type
// is ignored). The stages are not decoded (readers need the totals).
func ParseChapterLog(data []byte, rel string, c int) (*ChapterLog, error) {
	var m *lenientLog
	if err := jsonio.Decode(data, rel, &m); err != nil {
		if errs.Is(err, errs.Schema) {
			return nil, logSchemaErr(rel)
		}
		return nil, err
	}
	if m == nil {
		return nil, logSchemaErr(rel)
	}
	lg := &ChapterLog{Chapter: c}
	if s, ok := m.StorylineID.(string); ok {
		lg.StorylineID = s
	} else if s, ok := m.Storyline.(string); ok {
		lg.StorylineID = s
	}
	if n, ok := jsonio.Int(m.WordCount); ok && n >= 0 {
		lg.WordCount = &n
	}
	lg.GateDecision, _ = m.GateDecision.(string)
	lg.OriginalDecision, _ = m.OriginalDecision.(string)
	lg.ForcePassed, _ = m.ForcePassed.(bool)
	lg.Polished, _ = m.Polished.(bool)
	if list, ok := m.Revisions.([]any); ok {
		lg.Revisions = len(list)
	} else if n, ok := jsonio.Int(m.Revisions); ok && n > 0 {
		lg.Revisions = n
	} else if n, ok := jsonio.Int(m.RevisionCount); ok && n > 0 {
		lg.Revisions = n
	}
	if f, ok := jsonio.Float(m.OverallFinal); ok {
		lg.OverallFinal = &f
	}
	if n, ok := jsonio.Int(m.Requests); ok && n > 0 {
		lg.Requests = n
	}
	if n, ok := jsonio.Int(m.Unpriced); ok && n > 0 {
		lg.UnpricedRequests = n
	}
	if n, ok := jsonio.Int(m.Estimated); ok && n > 0 {
		lg.EstimatedRequests = n
	}
	if t, ok := m.Tokens.(map[string]any); ok {
		for _, k := range tokenKeys {
			if n, ok := jsonio.Int(t[k]); ok && n >= 0 {
				lg.Tokens.AddKey(k, int64(n))
			}
		}
	}
	if cm, ok := m.Cost.(map[string]any); ok {
		for cur, v := range cm {
			if f, ok := jsonio.Float(v); ok && cur != "" {
				if lg.Cost == nil {
					lg.Cost = Cost{}
				}
				lg.Cost.Add(cur, f)
			}
		}
	}
	return lg, nil
}

func logSchemaErr(rel string) error {
	return errs.Newf(errs.Schema, "%s：章节日志必须是 JSON 对象", "%s: a chapter log must be a JSON object", rel).With("file", rel).
		Hint("修正或删除该日志文件（报告会改为读取正文统计字数）", "fix or delete the log file (the report then counts the chapter text)")
}
