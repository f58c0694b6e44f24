// Package lint runs the deterministic chapter checks of SPEC §20: the
// platform's word-count limits, the chapter heading, model artefacts,
// bookkeeping leaks, quote style, dashes, AI-prose patterns, blacklist
// density and paragraph length. It reports; the callers decide: step
// validation refuses error checks (E_LINT), the judge packet carries the
// report, the gate refuses to pass length and model_artifacts errors.
package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// Evidence is one line a check found something on.
type Evidence struct {
	Line    int    `json:"line"`
	Excerpt string `json:"excerpt"`
}

// Check is one check's result: it fired when Count > 0.
type Check struct {
	ID       string     `json:"id"`
	Severity string     `json:"severity"`
	Count    int        `json:"count"`
	Detail   string     `json:"detail"`
	Evidence []Evidence `json:"evidence"`
}

// Summary counts the checks that fired, by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Report is novel-lint's output (SPEC §20).
type Report struct {
	Chapter   int              `json:"chapter"`
	File      string           `json:"file"`
	Stage     string           `json:"stage"`
	Platform  platform.Profile `json:"platform"`
	WordCount int              `json:"word_count"`
	Checks    []Check          `json:"checks"`
	Summary   Summary          `json:"summary"`
}

// Config is what the checks need from the project.
type Config struct {
	Profile    platform.Profile
	QuoteStyle string
	Blacklist  []string
	Lang       string
	// Terms are the names and registered terms a repeated phrase may
	// contain without counting (characters' display names, the style
	// profile's preferred expressions).
	Terms []string
}

// LoadConfig reads the project's platform profile, effective blacklist
// and registered terms.
func LoadConfig(root *project.Root, s settings.Settings) (Config, error) {
	bl, err := LoadBlacklist(root)
	if err != nil {
		return Config{}, err
	}
	var words []string
	if bl != nil {
		words = bl.Words
	}
	cfg, err := NewConfig(root, s, words)
	if err != nil {
		return cfg, err
	}
	cfg.Terms, err = LoadTerms(root)
	return cfg, err
}

// NewConfig is LoadConfig with the effective blacklist already read and
// without the registered terms (validation needs neither: no error check
// uses them; LoadTerms adds them where the warnings are shown).
func NewConfig(root *project.Root, s settings.Settings, blacklist []string) (Config, error) {
	p, err := platform.Load(root, s.Platform, s.WordsPerChapter)
	return Config{Profile: p, QuoteStyle: s.QuoteStyle, Blacklist: blacklist, Lang: s.Language}, err
}

// LoadTerms are the words a repeated phrase may contain without counting
// (SPEC §24 "names and registered terms"): the characters' display names,
// the names of the state's items, locations and factions, and the style
// profile's preferred expressions (the author's own signature words),
// longest first so a longer name is masked before a shorter one in it.
func LoadTerms(root *project.Root) ([]string, error) {
	if root == nil {
		return nil, nil
	}
	// The state's names are read and scanned while the character files
	// load (a 5 MiB read beside hundreds of small ones); the characters'
	// error, if any, is still the one reported.
	type stateResult struct {
		names []string
		err   error
	}
	done := make(chan stateResult, 1)
	go func() {
		// The state is mapped (stateNames): truncated in place by another
		// program meanwhile, it faults — an error here, as cli.Main makes
		// it on the main goroutine, not a crash.
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				done <- stateResult{err: errs.ReadFailed(layout.CurrentState, fmt.Errorf("%v", r))}
			}
		}()
		names, err := stateNames(root)
		done <- stateResult{names, err}
	}()
	chars, _, err := cast.Load(root)
	st := <-done
	if err != nil {
		return nil, err
	}
	if st.err != nil {
		return nil, st.err
	}
	return termsOf(root, chars, st.names)
}

// LoadTermsOf is LoadTerms with the characters already loaded (a packet
// has read the hundreds of character files once already).
func LoadTermsOf(root *project.Root, chars []cast.Character) ([]string, error) {
	if root == nil {
		return nil, nil
	}
	names, err := stateNames(root)
	if err != nil {
		return nil, err
	}
	return termsOf(root, chars, names)
}

// stateNames are the registered items, locations and factions: their
// "name" fields (then the "display_name" ones), found in the raw bytes of
// the state (a long project's state is MBs and only the names are wanted
// here). The file is mapped, not read (jsonio.MapFile: no MBs of fresh
// memory to fault in and copy) and its values found by stringValues.
func stateNames(root *project.Root) ([]string, error) {
	if !root.IsFile(layout.CurrentState) {
		return nil, nil
	}
	abs, err := root.Abs(layout.CurrentState)
	if err != nil {
		return nil, err
	}
	data, err := jsonio.MapFile(abs, layout.CurrentState)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, values := range [][][]byte{stringValues(data, []byte(`"name"`)), stringValues(data, []byte(`"display_name"`))} {
		for _, raw := range values {
			var name string
			if json.Unmarshal(raw, &name) == nil && utf8.RuneCountInString(name) >= 2 {
				names = append(names, name)
			}
		}
	}
	return names, nil
}

// termsOf puts the terms together: the characters' names, the state's,
// the style profile's preferred expressions; longest first.
func termsOf(root *project.Root, chars []cast.Character, stateNames []string) ([]string, error) {
	var terms []string
	for _, c := range chars {
		terms = append(terms, c.DisplayName)
	}
	terms = append(terms, stateNames...)
	if root.IsFile(layout.StyleProfile) {
		var sp struct {
			Preferred []any `json:"preferred_expressions"`
		}
		if err := root.ReadJSON(layout.StyleProfile, &sp); err != nil {
			return nil, err
		}
		for _, x := range sp.Preferred {
			if t, ok := x.(string); ok {
				terms = append(terms, t)
			}
		}
	}
	sort.SliceStable(terms, func(i, j int) bool { return len(terms[i]) > len(terms[j]) })
	return terms, nil
}

// indexKey is bytes.Index(data, key) for a key that starts with a quote:
// it searches for the rest of the key and checks the quote before it. A
// quote is one byte in ten of a state file, so bytes.Index's first-byte
// scan stopped everywhere; the key's next letter is rare there.
func indexKey(data, key []byte) int {
	if len(key) < 2 || key[0] != '"' {
		return bytes.Index(data, key)
	}
	rest := key[1:]
	for from := 1; from <= len(data); {
		i := bytes.Index(data[from:], rest)
		if i < 0 {
			return -1
		}
		if data[from+i-1] == '"' {
			return from + i - 1
		}
		from += i + 1
	}
	return -1
}

// stringValues returns the raw JSON strings that follow key and a colon
// in data (a plain byte scan: a regular expression over a multi-MB state
// cost a judge packet tens of milliseconds).
func stringValues(data, key []byte) [][]byte {
	var out [][]byte
	for from := 0; ; {
		i := indexKey(data[from:], key)
		if i < 0 {
			return out
		}
		j := from + i + len(key)
		from = j
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != ':' {
			continue
		}
		j++
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != '"' {
			continue
		}
		k := j + 1
		for k < len(data) && data[k] != '"' {
			if data[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(data) {
			return out
		}
		out = append(out, data[j:k+1])
		from = k + 1
	}
}

// PreviousChapter is the committed text of chapter c−1 ("" when there is
// none), the text a repeated sentence frame is looked for in.
func PreviousChapter(root *project.Root, c int) (string, error) {
	if root == nil || c <= 1 || !root.IsFile(layout.Chapter(c-1)) {
		return "", nil
	}
	return root.ReadText(layout.Chapter(c - 1))
}

// Input is one chapter text to lint.
type Input struct {
	Chapter int
	File    string
	Stage   string
	Text    string
	// Previous is the previous chapter's text ("" when none): a sentence
	// frame it also used is a repetition (SPEC §24).
	Previous string
}

// doc is the text prepared once for every check.
type doc struct {
	in      Input
	cfg     Config
	lines   []textmeasure.Line // the whole file (a draft's hints block cut)
	heading int                // index in lines, -1 when none
	body    []textmeasure.Line // lines without the heading
	words   int
}

// Run lints one chapter text. It is pure: same input, same report.
func Run(in Input, cfg Config) *Report {
	text := in.Text
	if in.Stage == StageDraft {
		// The writer's hints for the Summarizer are part of a draft.
		text, _, _ = textmeasure.SplitHints(text)
	}
	d := &doc{in: in, cfg: cfg}
	d.lines, d.heading = textmeasure.Split(text)
	d.body = textmeasure.Body(text)
	d.words = textmeasure.WordCount(in.Text)
	r := &Report{Chapter: in.Chapter, File: in.File, Stage: in.Stage, Platform: cfg.Profile, WordCount: d.words}
	for _, f := range []func() Check{d.length, d.headingCheck, d.artifacts, d.metaLeak, d.quotes, d.dashes, d.aiPatterns, d.blacklist, d.repetition, d.summaryLines, d.paragraphs} {
		c := f()
		if c.Evidence == nil {
			c.Evidence = []Evidence{}
		}
		r.Checks = append(r.Checks, c)
		if c.Count > 0 {
			switch c.Severity {
			case Error:
				r.Summary.Errors++
			case Warning:
				r.Summary.Warnings++
			}
		}
	}
	return r
}

// Fired returns the checks of severity sev that fired, restricted to ids
// when ids is not empty.
func (r *Report) Fired(sev string, ids ...string) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Count == 0 || c.Severity != sev {
			continue
		}
		if len(ids) > 0 && !slices.Contains(ids, c.ID) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// msg picks the project's language.
func (d *doc) msg(zh, en string) string {
	if d.cfg.Lang == "en" {
		return en
	}
	return zh
}

// hit is one finding: its line and byte span in that line (end 0 when
// the span does not matter).
type hit struct {
	line    textmeasure.Line
	at, end int
}

// evidence keeps the first hit of each line, at most EvidenceMax lines.
func evidence(hits []hit) []Evidence {
	out := []Evidence{}
	last := -1
	for _, h := range hits {
		if h.line.N == last {
			continue
		}
		if len(out) == thresholds.EvidenceMax {
			break
		}
		last = h.line.N
		out = append(out, Evidence{Line: h.line.N, Excerpt: excerpt(h.line.Text, h.at)})
	}
	return out
}

// excerpt is the text around byte offset at, trimmed, with … where cut.
func excerpt(line string, at int) string {
	at = min(max(at, 0), len(line))
	start := at
	for i := 0; i < thresholds.ExcerptBefore && start > 0; i++ {
		_, n := utf8.DecodeLastRuneInString(line[:start])
		start -= n
	}
	end := at
	for i := 0; i < thresholds.ExcerptAfter && end < len(line); i++ {
		_, n := utf8.DecodeRuneInString(line[end:])
		end += n
	}
	s := strings.TrimSpace(line[start:end])
	if start > 0 && strings.TrimSpace(line[:start]) != "" {
		s = "…" + s
	}
	if end < len(line) && strings.TrimSpace(line[end:]) != "" {
		s += "…"
	}
	return s
}

// findAll returns every non-overlapping occurrence of each needle in the
// given lines, in line order.
func findAll(lines []textmeasure.Line, needles []string) []hit {
	var out []hit
	for _, l := range lines {
		var hs []hit
		for _, n := range needles {
			for from := 0; ; {
				i := strings.Index(l.Text[from:], n)
				if i < 0 {
					break
				}
				hs = append(hs, hit{l, from + i, from + i + len(n)})
				from += i + len(n)
			}
		}
		if len(hs) == 0 {
			continue
		}
		sortHits(hs)
		// Overlapping needles ("好的，以下是" and "以下是第") find one thing.
		end := -1
		for _, h := range hs {
			if h.at >= end {
				out = append(out, h)
				end = h.end
			}
		}
	}
	return out
}

func sortHits(hs []hit) {
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].at < hs[j].at })
}

// over reports whether n per 1000 words exceeds limit (n·1000 > limit·words).
func (d *doc) over(n, limit int) bool { return n*1000 > limit*d.words }

// perK formats n per 1000 words with one decimal.
func (d *doc) perK(n int) string {
	if d.words == 0 {
		return "∞"
	}
	return strconv.FormatFloat(textmeasure.Round(float64(n)*1000/float64(d.words), 1), 'f', 1, 64)
}

func itoa(n int) string { return strconv.Itoa(n) }
