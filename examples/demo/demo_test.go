// Package demo_test checks the bundled demo novel (examples/demo/project)
// and its replay recordings (examples/demo/replay) without running any
// binary: the data must be valid for the suite's own parsers and must
// drive the pipeline to the gate outcomes the README promises, because
// `make demo`, the end-to-end scripts and other packages' tests rely on it.
package demo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volume"
)

const (
	projectDir = "project"
	replayDir  = "replay"
	// make demo creates the novel with these novel-init flags, so every
	// recorded chapter version must meet this platform's profile.
	demoPlatform        = "fanqie"
	demoWordsPerChapter = 2500
)

// round is one pass of a chapter through draft → summarize → refine →
// judge, with the gate decision its evals must produce.
type round struct {
	k            int
	draftMode    string // "draft" (r0) or "revision"
	decision     string
	overallFinal float64
	evalUsed     string
}

// plan is what the recordings of one chapter must exercise.
type plan struct {
	chapter   int
	storyline string
	key       bool
	rounds    []round
	polish    bool              // a style-refiner.polish recording after the last round
	unknown   []string          // unknown entity names the bundles report
	foreshadw map[string]string // foreshadow id → action the committed delta records
}

var plans = []plan{
	{chapter: 1, storyline: "main-arc", key: true,
		rounds:    []round{{k: 0, draftMode: "draft", decision: gate.Pass, overallFinal: 4.2, evalUsed: stepid.RoleSecondary}},
		foreshadw: map[string]string{"F-001": "planted"}},
	{chapter: 2, storyline: "main-arc",
		rounds: []round{
			{k: 0, draftMode: "draft", decision: gate.Revise, overallFinal: 3.2, evalUsed: stepid.RolePrimary},
			{k: 1, draftMode: "revision", decision: gate.Pass, overallFinal: 4.1, evalUsed: stepid.RolePrimary},
		},
		unknown:   []string{"贺九"},
		foreshadw: map[string]string{"F-002": "planted"}},
	{chapter: 3, storyline: "main-arc",
		rounds:    []round{{k: 0, draftMode: "draft", decision: gate.Polish, overallFinal: 3.7, evalUsed: stepid.RolePrimary}},
		polish:    true,
		foreshadw: map[string]string{"F-001": "advanced", "F-002": "resolved"}},
	// Convergence event [4,5] and the volume end: key chapters, two judges.
	{chapter: 4, storyline: "sect-intrigue", key: true,
		rounds:    []round{{k: 0, draftMode: "draft", decision: gate.Pass, overallFinal: 4.1, evalUsed: stepid.RoleSecondary}},
		foreshadw: map[string]string{"F-003": "planted"}},
	{chapter: 5, storyline: "sect-intrigue", key: true,
		rounds:    []round{{k: 0, draftMode: "draft", decision: gate.Pass, overallFinal: 4.0, evalUsed: stepid.RolePrimary}},
		foreshadw: map[string]string{"F-003": "advanced"}},
	{chapter: 6, storyline: "main-arc", key: true,
		rounds:    []round{{k: 0, draftMode: "draft", decision: gate.Pass, overallFinal: 4.2, evalUsed: stepid.RoleSecondary}},
		foreshadw: map[string]string{"F-004": "planted"}},
}

// expectedFiles lists every recording name the plans require, sorted.
func expectedFiles(p plan) []string {
	var out []string
	for _, r := range p.rounds {
		sfx := fmt.Sprintf(".r%d", r.k)
		out = append(out,
			"chapter-writer."+r.draftMode+sfx+".md",
			"summarizer.summarize"+sfx+".json",
			"style-refiner.refine"+sfx+".md",
			"quality-judge.primary"+sfx+".json")
		if p.key {
			out = append(out, "quality-judge.secondary"+sfx+".json")
		}
	}
	if p.polish {
		out = append(out, fmt.Sprintf("style-refiner.polish.r%d.md", p.rounds[len(p.rounds)-1].k))
	}
	sort.Strings(out)
	return out
}

func chapterDir(c int) string { return filepath.Join(replayDir, "chapter-"+layout.Pad(c)) }

func root(t *testing.T) *project.Root {
	t.Helper()
	r, err := project.New(projectDir)
	if err != nil {
		t.Fatalf("open demo project: %v", err)
	}
	return r
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestFilesCanonical: every JSON file parses and is written canonically
// (2-space indent, trailing newline, no escaped non-ASCII), every Markdown
// file is non-empty UTF-8 without a BOM.
func TestFilesCanonical(t *testing.T) {
	n := 0
	for _, dir := range []string{projectDir, replayDir} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			b := readFile(t, path)
			if bytes.HasPrefix(b, []byte("\uFEFF")) {
				t.Errorf("%s: starts with a BOM", path)
			}
			if !utf8.Valid(b) {
				t.Errorf("%s: not valid UTF-8", path)
			}
			switch filepath.Ext(path) {
			case ".json":
				var compact bytes.Buffer
				if err := json.Compact(&compact, b); err != nil {
					t.Errorf("%s: invalid JSON: %v", path, err)
					return nil
				}
				var want bytes.Buffer
				_ = json.Indent(&want, compact.Bytes(), "", "  ")
				want.WriteByte('\n')
				if !bytes.Equal(b, want.Bytes()) {
					t.Errorf("%s: not canonical JSON (2-space indent, trailing newline)", path)
				}
				if bytes.Contains(b, []byte(`\u`)) {
					t.Errorf("%s: escaped characters; write UTF-8 as is", path)
				}
			case ".md":
				if len(bytes.TrimSpace(b)) == 0 || !bytes.HasSuffix(b, []byte("\n")) {
					t.Errorf("%s: empty or missing the trailing newline", path)
				}
			default:
				t.Errorf("%s: unexpected file type in the demo", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 40 {
		t.Fatalf("only %d files found; is the test running in examples/demo?", n)
	}
}

func TestProjectBasics(t *testing.T) {
	var cp map[string]any
	decodeJSON(t, filepath.Join(projectDir, layout.Checkpoint), &cp)
	want := map[string]any{"schema_version": 2.0, "last_completed_chapter": 0.0, "current_volume": 1.0,
		"orchestrator_state": "WRITING", "pipeline_stage": nil, "inflight_chapter": nil, "revision_count": 0.0,
		"last_checkpoint_time": "2026-11-01T08:00:00Z"}
	if fmt.Sprint(cp) != fmt.Sprint(want) {
		t.Errorf("checkpoint = %v, want %v", cp, want)
	}

	s, err := settings.Load(root(t), func(string) string { return "" })
	if err != nil {
		t.Fatalf("settings: %v", err)
	}
	if s.Language != "zh" || s.MaxRevisions != 2 || s.LogicReviewPolicy != settings.PolicyOff ||
		s.GateThresholds != settings.Defaults().GateThresholds {
		t.Errorf("settings = %+v; the demo relies on the default thresholds, 2 revisions, policy off", s)
	}

	var bl struct {
		Version   string   `json:"version"`
		Words     []string `json:"words"`
		Whitelist []string `json:"whitelist"`
		UpdateLog []any    `json:"update_log"`
	}
	decodeJSON(t, filepath.Join(projectDir, layout.AIBlacklist), &bl)
	if bl.Version != "1.0.0" || len(bl.Words) < 12 || len(bl.Whitelist) != 0 || bl.UpdateLog == nil {
		t.Errorf("ai-blacklist.json = %+v", bl)
	}

	var sp map[string]any
	decodeJSON(t, filepath.Join(projectDir, layout.StyleProfile), &sp)
	for _, k := range []string{"avg_sentence_length", "dialogue_ratio", "preferred_expressions", "platform"} {
		if _, ok := sp[k]; !ok {
			t.Errorf("style-profile.json lacks %s", k)
		}
	}

	var rf struct {
		Rules []map[string]any `json:"rules"`
	}
	decodeJSON(t, filepath.Join(projectDir, layout.WorldRules), &rf)
	hard, withExc := 0, 0
	for i, r := range rf.Rules {
		if r["id"] != fmt.Sprintf("W-%03d", i+1) {
			t.Errorf("rule %d id = %v", i, r["id"])
		}
		switch r["constraint_type"] {
		case "hard":
			hard++
		case "soft":
		default:
			t.Errorf("rule %v: constraint_type %v", r["id"], r["constraint_type"])
		}
		if ex, _ := r["exceptions"].([]any); len(ex) > 0 {
			withExc++
		}
	}
	if len(rf.Rules) < 5 || hard == 0 || hard == len(rf.Rules) || withExc == 0 {
		t.Errorf("world rules: %d rules, %d hard, %d with exceptions", len(rf.Rules), hard, withExc)
	}
	for _, f := range []string{layout.Brief, layout.StorylineSpec, layout.Memory("main-arc"), layout.GlobalForeshadow} {
		if _, err := os.Stat(filepath.Join(projectDir, f)); err != nil {
			t.Error(err)
		}
	}
}

// characters returns slug → display_name of characters/active.
func characters(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(projectDir, layout.CharactersActive, "*.json"))
	out := map[string]string{}
	for _, f := range files {
		slug := strings.TrimSuffix(filepath.Base(f), ".json")
		var c struct {
			DisplayName string `json:"display_name"`
		}
		decodeJSON(t, f, &c)
		if !project.IsSlug(slug) || c.DisplayName == "" {
			t.Errorf("%s: slug %q / display_name %q", f, slug, c.DisplayName)
		}
		if _, err := os.Stat(strings.TrimSuffix(f, ".json") + ".md"); err != nil {
			t.Errorf("%s has no profile: %v", f, err)
		}
		out[slug] = c.DisplayName
	}
	return out
}

func TestCharactersAndState(t *testing.T) {
	chars := characters(t)
	if len(chars) < 5 || len(chars) > 6 {
		t.Errorf("%d characters, want 5–6", len(chars))
	}
	data := readFile(t, filepath.Join(projectDir, layout.CurrentState))
	st, _, err := stateops.DecodeState(data, layout.CurrentState)
	if err != nil {
		t.Fatal(err)
	}
	if h := fmt.Sprintf("%v %v %v", st["schema_version"], st["state_version"], st["last_updated_chapter"]); h != "1 0 0" {
		t.Errorf("state header = %v %v %v", st["schema_version"], st["state_version"], st["last_updated_chapter"])
	}
	stateChars, _ := st["characters"].(map[string]any)
	var got, want []string
	for k := range stateChars {
		got = append(got, k)
	}
	for k := range chars {
		want = append(want, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("state characters %v, characters/active %v", got, want)
	}
	if af, ok := st["active_foreshadowing"].([]any); !ok || len(af) != 0 {
		t.Errorf("active_foreshadowing = %v", st["active_foreshadowing"])
	}
}

func TestOutlineContractsSchedule(t *testing.T) {
	r := root(t)
	o, err := outline.Load(r, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Chapters, []int{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("outline chapters = %v", o.Chapters)
	}
	if s, e, ok := o.Range(); !ok || s != 1 || e != 6 {
		t.Errorf("volume range = %d..%d %v", s, e, ok)
	}
	sched, err := volume.LoadSchedule(r, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sched.Active, []string{"main-arc", "sect-intrigue"}) || !slices.Equal(sched.Dormant, []string{"north-border"}) {
		t.Errorf("schedule active %v dormant %v", sched.Active, sched.Dormant)
	}
	if len(sched.Events) != 1 || sched.Events[0].Start != 4 || sched.Events[0].End != 5 {
		t.Errorf("convergence events = %+v", sched.Events)
	}
	keys := map[int]bool{1: true, 4: true, 5: true, 6: true}
	for _, c := range o.Chapters {
		b, err := o.Block(c)
		if err != nil {
			t.Errorf("chapter %d: %v", c, err)
			continue
		}
		if len(b.MissingKeys) != 0 {
			t.Errorf("chapter %d misses outline keys %v", c, b.MissingKeys)
		}
		if !project.IsSlug(b.StorylineID) || !slices.Contains(sched.Active, b.StorylineID) {
			t.Errorf("chapter %d storyline %q is not an active slug", c, b.StorylineID)
		}
		if c <= 3 && b.StorylineID != "main-arc" {
			t.Errorf("chapter %d storyline %q, want main-arc", c, b.StorylineID)
		}
		if b.TransitionHint == nil || !project.IsSlug(b.TransitionHint.NextStoryline) {
			t.Errorf("chapter %d transition hint %+v", c, b.TransitionHint)
		}
		key, err := volume.KeyChapter(r, 1, c)
		if err != nil || key != keys[c] {
			t.Errorf("chapter %d key = %v (%v), want %v", c, key, err, keys[c])
		}

		var ct struct {
			Chapter     int    `json:"chapter"`
			StorylineID string `json:"storyline_id"`
			Objectives  []struct {
				ID       string `json:"id"`
				Required bool   `json:"required"`
			} `json:"objectives"`
			Preconditions *struct {
				CharacterStates map[string]any `json:"character_states"`
			} `json:"preconditions"`
			StorylineContext map[string]any `json:"storyline_context"`
			TransitionHint   struct {
				NextStoryline string `json:"next_storyline"`
			} `json:"transition_hint"`
		}
		decodeJSON(t, filepath.Join(projectDir, layout.Contract(1, c)), &ct)
		required := 0
		for _, obj := range ct.Objectives {
			if obj.Required {
				required++
			}
		}
		if ct.Chapter != c || ct.StorylineID != b.StorylineID || required == 0 || ct.StorylineContext == nil {
			t.Errorf("contract %d: chapter %d storyline %q (outline %q), %d required objectives",
				c, ct.Chapter, ct.StorylineID, b.StorylineID, required)
		}
		if ct.TransitionHint.NextStoryline != b.TransitionHint.NextStoryline {
			t.Errorf("contract %d next_storyline %q, outline %q", c, ct.TransitionHint.NextStoryline, b.TransitionHint.NextStoryline)
		}
		if ct.Preconditions != nil {
			names := map[string]bool{}
			for _, n := range characters(t) {
				names[n] = true
			}
			for n := range ct.Preconditions.CharacterStates {
				if !names[n] {
					t.Errorf("contract %d: precondition for unknown character %q", c, n)
				}
			}
		}
	}

	plan, err := foreshadow.LoadPlan(r, 1)
	if err != nil {
		t.Fatal(err)
	}
	short := 0
	for _, it := range plan {
		if _, _, ok := it.Range(); !ok || it.Status != "planted" {
			t.Errorf("plan item %s: range valid=%v status %q", it.ID, ok, it.Status)
		}
		if it.Scope == "short" {
			short++
		}
	}
	if len(plan) < 3 || len(plan) > 4 || short != 1 {
		t.Errorf("foreshadowing plan: %d items, %d short", len(plan), short)
	}
}

var hintsRE = regexp.MustCompile("(?s)\n```json\n(.*)\n```\n$")

// chapterText checks a recorded chapter version and returns its body
// (without a trailing hints block, which only drafts may carry).
func chapterText(t *testing.T, path string, draft bool, blacklist []string) string {
	t.Helper()
	text := string(readFile(t, path))
	lintRecording(t, path, text, draft)
	if m := hintsRE.FindStringSubmatchIndex(text); m != nil {
		if !draft {
			t.Errorf("%s: a refined/polished chapter must not carry the hints block", path)
		}
		var h struct {
			Hints []map[string]any `json:"hints"`
		}
		if err := json.Unmarshal([]byte(text[m[2]:m[3]]), &h); err != nil || len(h.Hints) == 0 {
			t.Errorf("%s: hints block %v", path, err)
		}
		text = text[:m[0]+1]
	}
	if strings.Contains(text, "```") {
		t.Errorf("%s: stray code fence", path)
	}
	if !strings.HasPrefix(text, "# 第") {
		t.Errorf("%s: should open with the chapter heading", path)
	}
	if !draft {
		for _, w := range blacklist {
			if strings.Contains(text, w) {
				t.Errorf("%s: refined text still contains blacklisted %q", path, w)
			}
		}
	}
	return text
}

type bundle struct {
	Summary  string          `json:"summary"`
	Delta    json.RawMessage `json:"delta"`
	Crossref map[string]any  `json:"crossref"`
	Memory   string          `json:"memory"`
}

// TestReplay walks the recorded chapters in order the way the pipeline
// would: every product validates with the suite's own parsers, each
// delta applies cleanly to the state of the previous commit, and the
// judges' evals give the intended gate decisions.
func TestReplay(t *testing.T) {
	r := root(t)
	o, err := outline.Load(r, 1)
	if err != nil {
		t.Fatal(err)
	}
	chars := characters(t)
	displayNames := map[string]bool{}
	for _, n := range chars {
		displayNames[n] = true
	}
	var bl struct {
		Words []string `json:"words"`
	}
	decodeJSON(t, filepath.Join(projectDir, layout.AIBlacklist), &bl)
	planItems, err := foreshadow.LoadPlan(r, 1)
	if err != nil {
		t.Fatal(err)
	}
	planIDs := map[string]bool{}
	for _, it := range planItems {
		planIDs[it.ID] = true
	}
	global, err := foreshadow.LoadGlobal(r)
	if err != nil {
		t.Fatal(err)
	}
	state, _, err := stateops.DecodeState(readFile(t, filepath.Join(projectDir, layout.CurrentState)), layout.CurrentState)
	if err != nil {
		t.Fatal(err)
	}
	version := 0
	var unknown []string

	checkReplayDirs(t)

	for _, p := range plans {
		dir := chapterDir(p.chapter)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var have []string
		for _, e := range entries {
			have = append(have, e.Name())
		}
		if want := expectedFiles(p); !slices.Equal(have, want) {
			t.Errorf("chapter %d recordings:\n have %v\n want %v", p.chapter, have, want)
		}
		b, err := o.Block(p.chapter)
		if err != nil {
			t.Fatal(err)
		}
		if b.StorylineID != p.storyline {
			t.Errorf("chapter %d outline storyline %q, plan %q", p.chapter, b.StorylineID, p.storyline)
		}

		var lastOps []json.RawMessage
		var lastUnknown []products.UnknownEntity
		for _, rd := range p.rounds {
			sfx := fmt.Sprintf(".r%d", rd.k)
			chapterText(t, filepath.Join(dir, "chapter-writer."+rd.draftMode+sfx+".md"), true, bl.Words)
			chapterText(t, filepath.Join(dir, "style-refiner.refine"+sfx+".md"), false, bl.Words)

			// Summarizer bundle: the four staging products.
			bpath := filepath.Join(dir, "summarizer.summarize"+sfx+".json")
			var bu bundle
			decodeJSON(t, bpath, &bu)
			if strings.TrimSpace(bu.Summary) == "" || strings.TrimSpace(bu.Memory) == "" || bu.Crossref == nil {
				t.Errorf("%s: summary, memory and crossref are required", bpath)
			}
			if first, _, _ := strings.Cut(bu.Memory, "\n"); utf8.RuneCountInString(first) > 50 {
				t.Errorf("%s: the memory's first line is its one-line status (≤ 50 字): %q", bpath, first)
			}
			d, err := products.ParseDelta(bu.Delta, bpath, p.chapter)
			if err != nil {
				t.Errorf("%s: delta: %v", bpath, err)
				continue
			}
			if d.BaseStateVersion != version || d.StorylineID != b.StorylineID {
				t.Errorf("%s: base_state_version %d storyline %q, want %d %q", bpath, d.BaseStateVersion, d.StorylineID, version, b.StorylineID)
			}
			var names []string
			for _, u := range d.UnknownEntities {
				names = append(names, u.Name)
				if displayNames[u.Name] || u.Context == "" {
					t.Errorf("%s: unknown entity %q is registered or has no context", bpath, u.Name)
				}
			}
			if !slices.Equal(names, p.unknown) {
				t.Errorf("%s: unknown entities %v, want %v", bpath, names, p.unknown)
			}
			checkOps(t, bpath, d.Ops, state, chars, planIDs)
			lastOps, lastUnknown = d.Ops, d.UnknownEntities

			checkGate(t, dir, sfx, p, rd)
		}
		if p.polish {
			k := p.rounds[len(p.rounds)-1].k
			chapterText(t, filepath.Join(dir, fmt.Sprintf("style-refiner.polish.r%d.md", k)), false, bl.Words)
		}

		global = commitRound(t, p, lastOps, state, global, planItems)
		version++
		for _, u := range lastUnknown {
			if !slices.Contains(unknown, u.Name) {
				unknown = append(unknown, u.Name)
			}
		}
	}

	checkReplayEnd(t, global, unknown)
}

// checkOps requires every op of a delta to be valid, to apply to the state
// as committed so far without a drop or warning, and to name existing
// characters and planned foreshadowing. state is not modified.
// checkReplayEnd checks the foreshadowing and the unknown entities after
// the last recorded chapter.
func checkReplayEnd(t *testing.T, global []foreshadow.Item, unknown []string) {
	t.Helper()
	// After the recorded chapters: F-001 and F-003 planted then advanced,
	// F-002 planted then resolved, F-004 planted; one distinct unknown entity.
	status := map[string]string{}
	for _, it := range global {
		status[it.ID] = it.Status
	}
	if status["F-001"] != "advanced" || status["F-002"] != "resolved" || status["F-003"] != "advanced" || status["F-004"] != "planted" {
		t.Errorf("foreshadowing after the replay: %v", status)
	}
	if !slices.Equal(unknown, []string{"贺九"}) {
		t.Errorf("unknown entities over the replay: %v", unknown)
	}
}

// checkGate checks a round's judges and the gate decision they produce.
func checkGate(t *testing.T, dir, sfx string, p plan, rd round) {
	t.Helper()
	primary := loadEval(t, filepath.Join(dir, "quality-judge.primary"+sfx+".json"), p.chapter)
	var secondary *eval.Eval
	if p.key {
		secondary = loadEval(t, filepath.Join(dir, "quality-judge.secondary"+sfx+".json"), p.chapter)
	}
	if primary == nil || (p.key && secondary == nil) {
		return
	}
	res := gate.Decide(gate.Input{Chapter: p.chapter, Primary: primary, Secondary: secondary,
		KeyChapter: p.key, Settings: settings.Defaults(), RevisionCount: rd.k})
	if res.Decision != rd.decision || res.OverallFinal != rd.overallFinal || res.EvalUsed != rd.evalUsed ||
		res.ForcePassed || res.HasHighConfidenceViolation {
		t.Errorf("chapter %d r%d gate: %s %.1f (%s, force %v, high %v), want %s %.1f (%s)", p.chapter, rd.k,
			res.Decision, res.OverallFinal, res.EvalUsed, res.ForcePassed, res.HasHighConfidenceViolation,
			rd.decision, rd.overallFinal, rd.evalUsed)
	}
	if rd.decision == gate.Revise && len(primary.RequiredFixes) == 0 {
		t.Errorf("chapter %d r%d: a revise round needs required_fixes", p.chapter, rd.k)
	}
	if rd.decision == gate.Polish && len(res.FailedDimensions) == 0 {
		t.Errorf("chapter %d r%d: a polish round should name failed dimensions", p.chapter, rd.k)
	}
}

// checkReplayDirs checks the recording folders: one per planned chapter
// and the volume 2 plan.
func checkReplayDirs(t *testing.T) {
	t.Helper()
	dirs, err := os.ReadDir(replayDir)
	if err != nil {
		t.Fatal(err)
	}
	var haveDirs, wantDirs []string
	for _, d := range dirs {
		haveDirs = append(haveDirs, d.Name())
	}
	for _, p := range plans {
		wantDirs = append(wantDirs, filepath.Base(chapterDir(p.chapter)))
	}
	// The setup and volume 1 recordings (make start, and the volume 1 review of novel next in
	// VOL_REVIEW) and the volume 2 planning recording (pipeline.mk volume V=2) sit beside the chapters.
	wantDirs = append(wantDirs, "setup", "volume-01", "volume-02")
	slices.Sort(wantDirs)
	if !slices.Equal(haveDirs, wantDirs) {
		t.Errorf("replay directories %v, want %v", haveDirs, wantDirs)
	}
	var review struct {
		Review string `json:"review"`
	}
	if data, err := os.ReadFile(filepath.Join(replayDir, "volume-01", "plot-architect.review.r0.json")); err != nil || json.Unmarshal(data, &review) != nil ||
		!strings.Contains(review.Review, "## 下一卷的建议") {
		t.Errorf("volume-01 review recording: %v", err)
	}
	volEntries, err := os.ReadDir(filepath.Join(replayDir, "volume-02"))
	if err != nil || len(volEntries) != 1 || volEntries[0].Name() != "plot-architect.plan.r0.json" {
		t.Errorf("volume-02 recordings: %v %v", volEntries, err)
	} else {
		var plan map[string]json.RawMessage
		data, _ := os.ReadFile(filepath.Join(replayDir, "volume-02", "plot-architect.plan.r0.json"))
		if err := json.Unmarshal(data, &plan); err != nil {
			t.Errorf("volume-02 plan: %v", err)
		}
		for _, key := range []string{"outline", "storyline_schedule", "foreshadowing", "chapter_contracts"} {
			if _, ok := plan[key]; !ok {
				t.Errorf("volume-02 plan lacks %q", key)
			}
		}
	}
}

// commitRound commits a chapter's last round as novel-commit would: its
// state ops, then the foreshadowing merge (checking the foreshadow actions
// against the plan); it returns the merged global foreshadowing.
func commitRound(t *testing.T, p plan, lastOps []json.RawMessage, state map[string]any, global, planItems []foreshadow.Item) []foreshadow.Item {
	t.Helper()
	var ops []stateops.Op
	for _, raw := range lastOps {
		v, _ := stateops.Decode(raw)
		op, _ := stateops.Validate(v)
		ops = append(ops, op)
	}
	stateops.Apply(state, ops)
	global, dropped := foreshadow.Merge(global, planItems, foreshadow.ParseOps(lastOps), p.chapter, p.storyline)
	if len(dropped) != 0 {
		t.Errorf("chapter %d: foreshadow ops dropped: %+v", p.chapter, dropped)
	}
	got := map[string]string{}
	for _, raw := range lastOps {
		fo := foreshadow.ParseOp(raw)
		if fo.Op == "foreshadow" {
			var v string
			_ = json.Unmarshal(fo.Value, &v)
			got[fo.Path] = v
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(p.foreshadw) {
		t.Errorf("chapter %d foreshadow actions %v, want %v", p.chapter, got, p.foreshadw)
	}
	return global
}

func checkOps(t *testing.T, file string, raws []json.RawMessage, state map[string]any, chars map[string]string, planIDs map[string]bool) {
	t.Helper()
	if len(raws) < 3 {
		t.Errorf("%s: only %d ops", file, len(raws))
	}
	var ops []stateops.Op
	for i, raw := range raws {
		v, err := stateops.Decode(raw)
		if err != nil {
			t.Errorf("%s: op %d: %v", file, i, err)
			continue
		}
		op, reason := stateops.Validate(v)
		if reason != "" {
			t.Errorf("%s: op %d invalid: %s", file, i, reason)
			continue
		}
		switch {
		case op.Kind == stateops.Foreshadow:
			if !planIDs[op.Path] {
				t.Errorf("%s: foreshadow %s is not in the volume plan", file, op.Path)
			}
		case op.Segs[0] == "characters":
			if _, ok := chars[op.Segs[1]]; !ok {
				t.Errorf("%s: op %d names unknown character %s", file, i, op.Segs[1])
			}
		}
		ops = append(ops, op)
	}
	scratch, _ := stateops.Clone(state).(map[string]any)
	res := stateops.Apply(scratch, ops)
	if len(res.Dropped) != 0 || len(res.Warnings) != 0 {
		t.Errorf("%s: dropped %+v, warnings %v", file, res.Dropped, res.Warnings)
	}
}

func loadEval(t *testing.T, path string, c int) *eval.Eval {
	t.Helper()
	e, err := eval.Parse(readFile(t, path), path, c)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return nil
	}
	if len(e.Dimensions) < 8 || e.Recommendation == "" {
		t.Errorf("%s: %d scored dimensions, recommendation %q", path, len(e.Dimensions), e.Recommendation)
	}
	for _, dm := range e.Dimensions {
		if dm.Feedback == "" {
			t.Errorf("%s: dimension %s has no feedback", path, dm.Name)
		}
	}
	var raw struct {
		AntiAI *struct {
			Suggestions []any `json:"blacklist_update_suggestions"`
		} `json:"anti_ai"`
		CV map[string][]any `json:"contract_verification"`
	}
	decodeJSON(t, path, &raw)
	if raw.AntiAI == nil || raw.AntiAI.Suggestions == nil {
		t.Errorf("%s: anti_ai.blacklist_update_suggestions missing", path)
	}
	for _, lvl := range []string{"l1_checks", "l2_checks", "l3_checks", "ls_checks"} {
		if len(raw.CV[lvl]) == 0 {
			t.Errorf("%s: contract_verification.%s is empty", path, lvl)
		}
	}
	return e
}

// lintRecording requires a recorded chapter version to pass every error
// and warning check of novel-lint (SPEC §20) at its stage, with the demo
// project's settings plus the platform make demo chooses: the pipeline's
// validation would refuse an error, and the demo should show clean text.
func lintRecording(t *testing.T, path, text string, draft bool) {
	t.Helper()
	r := root(t)
	s, err := settings.Load(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Platform, s.WordsPerChapter = demoPlatform, demoWordsPerChapter
	cfg, err := lint.LoadConfig(r, s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(path)), "chapter-"))
	if err != nil {
		t.Fatalf("%s: no chapter number in the directory name", path)
	}
	stage := lint.StageRefine
	if draft {
		stage = lint.StageDraft
	}
	rep := lint.Run(lint.Input{Chapter: c, File: path, Stage: stage, Text: text}, cfg)
	for _, sev := range []string{lint.Error, lint.Warning} {
		for _, ch := range rep.Fired(sev) {
			t.Errorf("%s: lint %s %s: %s %v", path, sev, ch.ID, ch.Detail, ch.Evidence)
		}
	}
}

// TestMakeDemoFlags: the lint above assumes the platform and chapter
// length make demo passes to novel init.
func TestMakeDemoFlags(t *testing.T) {
	mk := string(readFile(t, filepath.Join("..", "..", "Makefile")))
	for _, flag := range []string{"--platform " + demoPlatform, "--words-per-chapter " + strconv.Itoa(demoWordsPerChapter)} {
		if !strings.Contains(mk, flag) {
			t.Errorf("Makefile's demo target lacks %q", flag)
		}
	}
	if strings.Contains(mk, "platform-profile.json") {
		t.Error("Makefile's demo target overrides the platform profile; the recordings must meet it as they are")
	}
}

// TestSetupRecordingsReproduceProject: make demo starts from an empty
// directory, so the setup and volume 1 recordings must reproduce the
// fixture project the chapter recordings were made against: the same
// world rules, cast (plus the fields setup requires), style profile (plus
// voice) and volume 1 plan.
func TestSetupRecordingsReproduceProject(t *testing.T) {
	files := func(name string) map[string]json.RawMessage {
		var a struct {
			Files map[string]json.RawMessage `json:"files"`
		}
		decodeJSON(t, filepath.Join(replayDir, "setup", name), &a)
		return a.Files
	}
	sameJSON := func(what string, got json.RawMessage, path string, drop ...string) {
		var g, w map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		decodeJSON(t, filepath.Join(projectDir, path), &w)
		for _, k := range drop {
			delete(g, k)
			delete(w, k)
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s differs from %s", what, path)
		}
	}
	world := files("world-builder.setup.r0.json")
	sameJSON("world rules", world[layout.WorldRules], layout.WorldRules)
	cast := files("character-weaver.setup.r0.json")
	fixture, _ := filepath.Glob(filepath.Join(projectDir, layout.CharactersActive, "*"))
	if len(cast) != len(fixture) {
		t.Errorf("character-weaver recording has %d files, the fixture %d", len(cast), len(fixture))
	}
	for _, f := range fixture {
		rel, _ := filepath.Rel(projectDir, f)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(rel, ".md") {
			var md string
			if err := json.Unmarshal(cast[rel], &md); err != nil || md != string(readFile(t, f)) {
				t.Errorf("%s differs from the fixture", rel)
			}
			continue
		}
		sameJSON(rel, cast[rel], rel, "abilities", "relationships")
	}
	style := files("style-analyzer.setup.r0.json")
	sameJSON("style profile", style[layout.StyleProfile], layout.StyleProfile, "voice")

	var plan struct {
		Outline   string            `json:"outline"`
		Contracts []json.RawMessage `json:"chapter_contracts"`
	}
	decodeJSON(t, filepath.Join(replayDir, "volume-01", "plot-architect.plan.r0.json"), &plan)
	if plan.Outline != string(readFile(t, filepath.Join(projectDir, layout.Outline(1)))) {
		t.Errorf("volume-01 outline differs from the fixture's")
	}
	for i, c := range plan.Contracts {
		sameJSON("volume-01 contract", c, layout.Contract(1, i+1))
	}
}

// TestBookPlanRecording: make demo's setup:book recording is a valid book
// plan for the recorded cast whose first two volumes are exactly the
// recorded volume plans (chapters 1–6 and 7–10), so both commit.
func TestBookPlanRecording(t *testing.T) {
	var rec struct {
		Files map[string]json.RawMessage `json:"files"`
	}
	decodeJSON(t, filepath.Join(replayDir, "setup", "plot-architect.book.r0.json"), &rec)
	names := map[string]bool{}
	var cast struct {
		Files map[string]json.RawMessage `json:"files"`
	}
	decodeJSON(t, filepath.Join(replayDir, "setup", "character-weaver.setup.r0.json"), &cast)
	for f, raw := range cast.Files {
		var c struct {
			DisplayName string `json:"display_name"`
		}
		if strings.HasSuffix(f, ".json") && json.Unmarshal(raw, &c) == nil {
			names[c.DisplayName] = true
		}
	}
	p, err := bookplan.Parse(rec.Files[bookplan.File], bookplan.File, names)
	if err != nil {
		t.Fatal(err)
	}
	var md string
	if err := json.Unmarshal(rec.Files[bookplan.Doc], &md); err != nil || strings.TrimSpace(md) == "" {
		t.Fatalf("book-plan.md: %v", err)
	}
	for v, want := range map[int][2]int{1: {1, 6}, 2: {7, 10}} {
		var plan struct {
			Outline string `json:"outline"`
		}
		decodeJSON(t, filepath.Join(replayDir, "volume-"+layout.PadVol(v), "plot-architect.plan.r0.json"), &plan)
		o, err := outline.Parse([]byte(plan.Outline), "outline", v)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := p.Of(v)
		if got := [2]int{o.Chapters[0], o.Chapters[len(o.Chapters)-1]}; e.Chapters != want || got != want {
			t.Errorf("volume %d: book plan %v, recorded plan %v, want %v", v, e.Chapters, got, want)
		}
	}
}
