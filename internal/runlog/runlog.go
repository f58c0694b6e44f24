// Package runlog owns the bookkeeping formats of the agent runs (SPEC §8.1,
// §18): the run-log line (staging/logs/chapter-NNN-run.jsonl, appended by
// the pipeline once per executor attempt of a chapter stage, and
// logs/steps-run.jsonl, the same lines for every other agent run: setup,
// volume plans and reviews, amend/backfill, the continuity auditor) and the
// chapter log (logs/chapter-NNN-log.json, written by novel-commit from a
// chapter's lines). Each format is one Go type here; the writers (pipeline,
// commit, the large-project generator) and the readers (commit, report,
// the budget) import it, so a field cannot drift between them.
package runlog

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Line is one line of staging/logs/chapter-NNN-run.jsonl or
// logs/steps-run.jsonl: one executor attempt of one stage.
type Line struct {
	Step    string          `json:"step"`
	Mode    string          `json:"mode"`
	Round   int             `json:"round"`
	Attempt int             `json:"attempt"`
	Started string          `json:"started"`
	Ended   string          `json:"ended"`
	Exit    int             `json:"exit"`
	Model   string          `json:"model,omitempty"`
	Tokens  json.RawMessage `json:"tokens,omitempty"`
	Error   string          `json:"error,omitempty"`
	// Requests are the executor's per-request usage lines as written
	// (SPEC §18: one per request, failed ones included); Cost sums their
	// cost per currency; Waits counts the transient failures (exit 75)
	// waited out inside this attempt.
	Requests []json.RawMessage `json:"requests,omitempty"`
	Cost     Cost              `json:"cost,omitempty"`
	Waits    int               `json:"transient_waits,omitempty"`
	// Run names the locked run (make continue, start, volume …) that made
	// a steps-run line: a digest of its lock token, so a budget counts
	// only what this run spent (never the token itself).
	Run string `json:"run,omitempty"`
}

// AddUsage folds an executor's NOVEL_RUN_LOG records (agent.RequestUsage,
// or the bare {"model","tokens"} of other executors) into the line: the
// last model, every request line as written, token counts summed per key
// (a bare number counts as total), cost summed per currency. Lines that do
// not parse are skipped: usage is bookkeeping, never a reason to fail.
func (l *Line) AddUsage(data []byte) {
	sums := map[string]int64{}
	for _, raw := range jsonio.Lines(data) {
		// The fields of agent.RequestUsage the line needs; tokens stay raw,
		// since other executors may write another shape there.
		var rec struct {
			Model   string          `json:"model"`
			Request *string         `json:"request"`
			Tokens  json.RawMessage `json:"tokens"`
			Cost    *struct {
				Amount   float64 `json:"amount"`
				Currency string  `json:"currency"`
			} `json:"cost"`
		}
		if json.Unmarshal([]byte(raw), &rec) != nil {
			continue
		}
		if rec.Model != "" {
			l.Model = rec.Model
		}
		if rec.Request != nil {
			l.Requests = append(l.Requests, json.RawMessage(raw))
		}
		if rec.Cost != nil {
			if l.Cost == nil {
				l.Cost = Cost{}
			}
			l.Cost.Add(rec.Cost.Currency, rec.Cost.Amount)
		}
		var t map[string]json.Number
		var bare json.Number
		if json.Unmarshal(rec.Tokens, &bare) == nil {
			t = map[string]json.Number{"total": bare} // a count not split by kind
		}
		if t != nil || json.Unmarshal(rec.Tokens, &t) == nil {
			for k, v := range t {
				if n, err := v.Int64(); err == nil {
					sums[k] += n
				}
			}
		}
	}
	if len(sums) > 0 {
		l.Tokens, _ = json.Marshal(sums) // sorted keys: deterministic
	}
}

// Cost is an amount per currency (ISO code as the price table names it).
// Amounts in different currencies are never added together or converted.
type Cost map[string]float64

// Add adds amount in currency, rounded to 1e-8 (the precision of a
// request's cost) so sums do not collect float noise.
func (c Cost) Add(currency string, amount float64) {
	c[currency] = Round(c[currency] + amount)
}

// Round rounds an amount to 1e-8.
func Round(x float64) float64 { return math.Round(x*1e8) / 1e8 }

// Tokens are token totals; a count no request reported is null (never 0,
// SPEC §18).
type Tokens struct {
	Prompt     *int64 `json:"prompt"`
	Completion *int64 `json:"completion"`
	CacheHit   *int64 `json:"cache_hit"`
	Reasoning  *int64 `json:"reasoning"`
	// Total holds counts an executor gave as one bare number ("tokens":
	// 1234), not split into prompt and completion.
	Total *int64 `json:"total,omitempty"`
}

// tokenKeys are the keys of a run line's tokens object Tokens sums.
var tokenKeys = []string{"prompt", "completion", "cache_hit", "reasoning", "total"}

func (t *Tokens) field(key string) **int64 {
	switch key {
	case "prompt":
		return &t.Prompt
	case "completion":
		return &t.Completion
	case "cache_hit":
		return &t.CacheHit
	case "reasoning":
		return &t.Reasoning
	case "total":
		return &t.Total
	}
	return nil
}

// AddKey adds n to the count named key (one of TokenKeys; others are
// ignored).
func (t *Tokens) AddKey(key string, n int64) {
	if p := t.field(key); p != nil {
		v := n
		if *p != nil {
			v += **p
		}
		*p = &v
	}
}

// AddTokens adds every known count of u.
func (t *Tokens) AddTokens(u Tokens) {
	for _, k := range tokenKeys {
		if v := *u.field(k); v != nil {
			t.AddKey(k, *v)
		}
	}
}

// Known reports whether any count is known.
func (t Tokens) Known() bool {
	return t.Prompt != nil || t.Completion != nil || t.CacheHit != nil || t.Reasoning != nil || t.Total != nil
}

// Get is the count named key (nil when unknown).
func (t Tokens) Get(key string) *int64 {
	if p := t.field(key); p != nil {
		return *p
	}
	return nil
}

// TokenCounts reads the line's tokens: an object's known counts by key;
// a bare number (older or third-party executors) counts as total.
func (l Line) TokenCounts() Tokens {
	var t Tokens
	var n json.Number
	if json.Unmarshal(l.Tokens, &n) == nil {
		if v, err := n.Int64(); err == nil {
			t.AddKey("total", v)
		}
		return t
	}
	var m map[string]json.RawMessage
	if len(l.Tokens) == 0 || json.Unmarshal(l.Tokens, &m) != nil {
		return t
	}
	for _, k := range tokenKeys {
		if json.Unmarshal(m[k], &n) == nil {
			if v, err := n.Int64(); err == nil {
				t.AddKey(k, v)
			}
		}
	}
	return t
}

// request is the part of an executor's usage line (agent.RequestUsage)
// the totals need: whether an answer came back without a price.
type request struct {
	Outcome   string           `json:"outcome"`
	Cost      *json.RawMessage `json:"cost"`
	Estimated bool             `json:"usage_estimated"`
}

// Estimated counts the requests of the line whose usage the server did
// not report and the executor estimated (SPEC §26: their cost is
// approximate, shown with "≈").
func (l Line) Estimated() int {
	n := 0
	for _, raw := range l.Requests {
		var r request
		if json.Unmarshal(raw, &r) == nil && r.Estimated {
			n++
		}
	}
	return n
}

// Unpriced counts the requests of the line that got an answer but have no
// cost (the server sent no usage, or llm.prices has no entry for the
// model): the cost totals miss them.
func (l Line) Unpriced() int {
	n := 0
	for _, raw := range l.Requests {
		var r request
		if json.Unmarshal(raw, &r) == nil && r.Outcome == "ok" && (r.Cost == nil || string(*r.Cost) == "null") {
			n++
		}
	}
	return n
}

// Duration is the attempt's wall time in seconds (0 when the stamps do
// not parse or run backwards).
func (l Line) Duration() float64 {
	a, err1 := time.Parse(time.RFC3339, l.Started)
	b, err2 := time.Parse(time.RFC3339, l.Ended)
	if err1 != nil || err2 != nil || b.Before(a) {
		return 0
	}
	return b.Sub(a).Seconds()
}

// SameAttempt reports whether two lines record the same attempt.
func (l Line) SameAttempt(o Line) bool {
	return l.Step == o.Step && l.Mode == o.Mode && l.Round == o.Round && l.Attempt == o.Attempt
}

// Read reads chapter c's run log leniently: a line that does not parse
// is skipped with a warning (the log is bookkeeping, never a reason to
// fail). A missing log is no lines.
func Read(root *project.Root, c int) ([]Line, []string) { return readLines(root, layout.RunLog(c)) }

// ReadSteps reads logs/steps-run.jsonl, the run lines of the agent runs
// that are not chapter stages, as leniently as Read.
func ReadSteps(root *project.Root) ([]Line, []string) { return readLines(root, layout.StepsRunLog) }

func readLines(root *project.Root, rel string) ([]Line, []string) {
	if !root.Exists(rel) {
		return nil, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, []string{"cannot read " + rel + ": " + err.Error()}
	}
	var out []Line
	var warns []string
	for i, ln := range jsonio.Lines(data) {
		var l Line
		if err := jsonio.Decode([]byte(ln), rel, &l); err != nil {
			warns = append(warns, rel+": line "+strconv.Itoa(i+1)+" skipped (not a run record)")
			continue
		}
		out = append(out, l)
	}
	return out, warns
}

// Append adds line to chapter c's run log unless a line for the same
// attempt is there already (a resumed finish records it once).
func Append(root *project.Root, c int, line Line) error {
	return appendLine(root, layout.RunLog(c), line, func(lines []string) bool {
		for _, l := range lines {
			var prev Line
			if json.Unmarshal([]byte(l), &prev) == nil && prev.SameAttempt(line) {
				return true
			}
		}
		return false
	})
}

// AppendStep adds line to logs/steps-run.jsonl. Every attempt is a new
// line (a volume's contract batches repeat step, mode and attempt); the
// whole file is rewritten atomically, as Append does, so a kill never
// leaves half a line.
func AppendStep(root *project.Root, line Line) error {
	return appendLine(root, layout.StepsRunLog, line, func([]string) bool { return false })
}

// appendLine rewrites rel with line added, unless recorded says the
// existing lines hold it already.
func appendLine(root *project.Root, rel string, line Line, recorded func([]string) bool) error {
	var old []byte
	if root.IsFile(rel) {
		var err error
		if old, err = root.ReadFile(rel); err != nil {
			return err
		}
	}
	if recorded(jsonio.Lines(old)) {
		return nil
	}
	b, err := jsonio.MarshalLine(line)
	if err != nil {
		return err
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	return root.WriteFile(rel, append(old, b...))
}
