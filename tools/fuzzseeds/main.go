// Command fuzzseeds writes the committed seed corpora of the suite's fuzz
// targets (internal/<pkg>/testdata/fuzz/<Target>/): real inputs from the
// demo novel (examples/demo) plus the malformed shapes the bad-input
// matrix uses. `go test ./...` runs every seed, so each is a regression
// case; `make fuzz` mutates from them. Run from the repository root:
//
//	go run ./tools/fuzzseeds
//
// Files are named after a hash of their content, so re-running is
// idempotent and never removes a crasher kept by hand.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const demo = "examples/demo"

// arg is one fuzz argument in the corpus file encoding.
type arg struct {
	typ string // "[]byte", "string", "int"
	v   any
}

func b(s string) arg { return arg{"[]byte", s} }
func s(s string) arg { return arg{"string", s} }
func n(i int) arg    { return arg{"int", i} }

func encode(args []arg) []byte {
	var sb strings.Builder
	sb.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch a.typ {
		case "int":
			fmt.Fprintf(&sb, "int(%d)\n", a.v)
		default:
			fmt.Fprintf(&sb, "%s(%q)\n", a.typ, a.v)
		}
	}
	return []byte(sb.String())
}

var written int

func write(pkg, target, kind string, args ...arg) {
	data := encode(args)
	sum := sha256.Sum256(data)
	dir := filepath.Join("internal", pkg, "testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	name := fmt.Sprintf("%s-%x", kind, sum[:8])
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		fail(err)
	}
	written++
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fuzzseeds:", err)
	os.Exit(1)
}

func read(rel string) string {
	data, err := os.ReadFile(filepath.Join(demo, rel))
	if err != nil {
		fail(err)
	}
	return string(data)
}

func glob(pattern string) []string {
	m, err := filepath.Glob(filepath.Join(demo, pattern))
	if err != nil {
		fail(err)
	}
	sort.Strings(m)
	out := make([]string, len(m))
	for i, p := range m {
		out[i], _ = filepath.Rel(demo, p)
	}
	return out
}

// bad are the generic malformed documents every JSON reader must survive.
var bad = []string{"", " ", "\xef\xbb\xbf", "{", "[", "null", "true", "0", `"x"`, "[]", "{}", "\xff\xfe",
	"{\"a\":\"\xff\"}", `{"a":1}{"b":2}`, `{"a":1,}`, "{\"a\":1e400}", `{"a":-0}`, "\x00",
	strings.Repeat("[", 5000) + strings.Repeat("]", 5000), "{\n  \"a\": [1,\n  2,,\n]}"}

// bom prefixes a UTF-8 byte-order mark (accepted wherever the rest is valid).
func bom(s string) string { return "\xef\xbb\xbf" + s }

// bundleDelta returns the delta object of a summarizer bundle recording.
func bundleDelta(rel string) (delta string, chapter int, ops string) {
	var bundle struct {
		Delta json.RawMessage `json:"delta"`
	}
	if err := json.Unmarshal([]byte(read(rel)), &bundle); err != nil {
		fail(fmt.Errorf("%s: %v", rel, err))
	}
	var d struct {
		Chapter int             `json:"chapter"`
		Ops     json.RawMessage `json:"ops"`
	}
	_ = json.Unmarshal(bundle.Delta, &d)
	return string(bundle.Delta), d.Chapter, string(d.Ops)
}

func main() {
	state := read("project/state/current-state.json")
	global := read("project/foreshadowing/global.json")
	plan := read("project/volumes/vol-01/foreshadowing.json")
	stepIDSeeds()
	outlineSeeds()
	stateSeeds(state, global, plan)
	foreshadowSeeds(global, plan)
	scheduleSeeds()
	evalSeeds()
	revisionSeeds()
	settingsSeeds()
	lockSeeds()
	gateSeeds()
	contractSeeds()
	malformedSeeds(state)
	fmt.Printf("fuzzseeds: %d corpus files\n", written)
}

// stepIDSeeds writes the step ids seeds.
func stepIDSeeds() {
	for _, id := range []string{"chapter:001:draft", "chapter:1:summarize", "chapter:0003:refine", "chapter:004:judge",
		"chapter:005:logic-review", "chapter:006:gate", "chapter:003:polish", "chapter:002:commit", "volume:02:plan", " chapter:7:draft\n"} {
		write("stepid", "FuzzParse", "demo", s(id))
	}
	for _, id := range []string{"", "chapter:000:draft", "Chapter:1:draft", "chapter:1:Draft", "chapter:1:", "chapter::draft",
		"chapter:１:draft", "chapter:-1:draft", "chapter:+1:draft", "chapter:1 2:draft", "chapter:99999999999999999999:draft",
		"volume:0:plan", "volume:1:draft", "chapter:1:draft:x", "chapter:1:plan", "\xff", "chapter:1:draft\x00"} {
		write("stepid", "FuzzParse", "err", s(id))
	}
}

// outlineSeeds writes the outline seeds.
func outlineSeeds() {
	ol := read("project/volumes/vol-01/outline.md")
	for c := 1; c <= 7; c++ {
		write("outline", "FuzzOutline", "demo", b(ol), n(c))
	}
	write("outline", "FuzzOutline", "demo", b(bom(ol)), n(3))
	for _, o := range []string{"", "\xff", "### 第 1 章: a\n- **Storyline**: \n", "### 第 1 章: a\n### 第 1 章: b\n",
		"### 第 1 章\n- **Storyline**: a\n- **Storyline**: b\n", "### 第 一百零三 章：x\n- **Storyline**: Bad Slug\n",
		"### 第 1 章: a\n- **TransitionHint**: {\"next_storyline\":\"../x\"}\n- **Storyline**: a\n", "###第0章\n", "### 第 9999999 章\n"} {
		write("outline", "FuzzOutline", "err", b(o), n(1))
	}
}

// stateSeeds writes the state ops, deltas, foreshadow merge seeds.
func stateSeeds(state, global, plan string) {
	for _, rel := range glob("replay/chapter-*/summarizer.summarize.r*.json") {
		delta, c, ops := bundleDelta(rel)
		write("stateops", "FuzzOps", "demo", b(ops), b(state))
		write("products", "FuzzParseDelta", "demo", b(delta))
		write("foreshadow", "FuzzMerge", "demo", b(global), b(ops), n(c))
		write("foreshadow", "FuzzMerge", "demo", b(plan), b(ops), n(c))
		write("jsonio", "FuzzDecode", "demo", b(delta))
	}
	for _, ops := range []string{`[{"op":"set","path":"characters.lu-zhao.location"}]`, `[{"op":"inc","path":"characters.lu-zhao.hp","value":"x"}]`,
		`[{"op":"set","path":"characters.Lu Zhao.x","value":1}]`, `[{"op":"set","path":"a.b","value":1}]`, `[{"op":"set","path":"characters..x","value":1}]`,
		`[{"op":"add","path":"items.x.y.z.w","value":1}]`, `[{"op":"remove","path":"world_state.flags","value":"none"}]`,
		`[{"op":"set","path":"characters.lu-zhao","value":1},{"op":"set","path":"characters.lu-zhao.x.y","value":2}]`,
		`[{"op":"inc","path":"world_state.n","value":9007199254740993}]`, `[{"op":"foreshadow","path":"F-001","value":"planted"}]`, `[null,1,"x",[]]`} {
		write("stateops", "FuzzOps", "err", b(ops), b(state))
		write("foreshadow", "FuzzMerge", "err", b(global), b(ops), n(3))
	}
	for _, d := range []string{`{"chapter":1,"base_state_version":"0","storyline_id":"a","ops":[]}`, `{"chapter":1,"base_state_version":0,"storyline_id":"../a","ops":[]}`,
		`{"chapter":2,"base_state_version":0,"storyline_id":"a","ops":[]}`, `{"chapter":1,"base_state_version":0,"storyline_id":"a","ops":{}}`,
		`{"chapter":1,"base_state_version":0,"storyline_id":"a","ops":[],"unknown_entities":"x"}`} {
		write("products", "FuzzParseDelta", "err", b(d))
	}
	write("stateops", "FuzzCanonical", "demo", b(state))
}

// foreshadowSeeds writes the foreshadowing files seeds.
func foreshadowSeeds(global, plan string) {
	for _, f := range []string{global, plan, bom(global), `{"foreshadowing":null}`, `{"volume":1}`,
		`[{"id":"F-1","target_resolve_range":[3,1]},{"id":"F-1","status":"resolved"},7]`} {
		write("foreshadow", "FuzzParse", "demo", b(f))
	}
	for _, f := range []string{`{"items":[]}`, `{"foreshadowing":{}}`, `{"foreshadowing":[{"id":1,"history":"x","target_resolve_range":["a",2]}]}`} {
		write("foreshadow", "FuzzParse", "err", b(f))
	}
}

// scheduleSeeds writes the schedule seeds.
func scheduleSeeds() {
	sched := read("project/volumes/vol-01/storyline-schedule.json")
	for c := 1; c <= 6; c++ {
		write("volume", "FuzzParseSchedule", "demo", b(sched), n(c))
	}
	for _, sc := range []string{`{"dormant_storylines":["../x"]}`, `{"active_storylines":"a"}`, `{"convergence_events":{}}`,
		`{"convergence_events":[{"chapter_range":[3,1]},{"chapter_range":["1",2]},{"chapter_range":[0,2]}]}`} {
		write("volume", "FuzzParseSchedule", "err", b(sc), n(2))
	}
}

// evalSeeds writes the evals and logic reviews seeds.
func evalSeeds() {
	for _, rel := range glob("replay/chapter-*/quality-judge.*.json") {
		e := read(rel)
		write("eval", "FuzzParse", "demo", b(e))
		write("eval", "FuzzParse", "demo", b(`{"eval_used":`+e+`}`))
		write("jsonio", "FuzzDecode", "demo", b(e))
	}
	for _, e := range []string{`{"chapter":3,"overall":5.01}`, `{"chapter":3,"overall":"4"}`, `{"chapter":4,"overall":4}`,
		`{"chapter":3,"overall":4,"recommendation":"maybe"}`, `{"chapter":3,"overall":4,"scores":{"x":"y"}}`,
		`{"chapter":3,"overall":4,"contract_verification":{"l1_checks":{}}}`, `{"eval_used":[]}`} {
		write("eval", "FuzzParse", "err", b(e))
	}
	for _, l := range []string{`{"chapter_number":3,"overall_score":80,"issues":[{"issue_type":"x","description":"d","severity":"low"}],"summary":"s"}`,
		`{"overall_score":74,"issues":[{"severity":"high"}]}`} {
		write("eval", "FuzzParseLogicReview", "demo", b(l))
	}
	for _, l := range []string{`{"overall_score":80.5}`, `{"overall_score":101}`, `{"overall_score":80,"issues":[{"severity":"HIGH"}]}`,
		`{"overall_score":80,"issues":[{}]}`, `{"chapter_number":4,"overall_score":80}`, `{"overall_score":80,"issues":{}}`} {
		write("eval", "FuzzParseLogicReview", "err", b(l))
	}
}

// revisionSeeds writes the revision status files seeds.
func revisionSeeds() {
	for _, r := range []string{`{"chapter_number":3,"status":"pending","triggered_by":"quality_gate","revision_notes":"n","created_at":"2026-11-01T08:00:00Z","decision_at":null,"logic_review_report_file":null,"gate_file":"staging/evaluations/chapter-003-gate.json"}`,
		`{"chapter_number":3,"status":"rejected","decision_at":"2026-11-01T08:00:00Z","decision_note":"rolled back"}`, `{"status":"accepted"}`} {
		write("revision", "FuzzParse", "demo", b(r))
	}
	for _, r := range []string{`{"chapter_number":4,"status":"pending"}`, `{"chapter_number":3,"status":"PENDING"}`, `{"chapter_number":"3","status":"pending"}`,
		`{"chapter_number":3}`, `{"chapter_number":3,"status":"pending","triggered_by":7}`} {
		write("revision", "FuzzParse", "err", b(r))
	}
}

// settingsSeeds writes the settings and checkpoint seeds.
func settingsSeeds() {
	write("settings", "FuzzSettings", "demo", s(read("project/settings.json")))
	for _, st := range []string{`{"language":"fr"}`, `{"max_revisions":-1}`, `{"max_revisions":"2"}`, `{"gate_thresholds":{"pass":3,"polish":3.5}}`,
		`{"logic_review_policy":"sometimes"}`, `{"logic_review_min_score":101}`, `{"lock_stale_minutes":0}`} {
		write("settings", "FuzzSettings", "err", s(st))
	}
	cp := read("project/.checkpoint.json")
	for _, c := range []string{cp, bom(cp), `{"last_completed_chapter":2,"current_volume":1,"orchestrator_state":"WRITING","pipeline_stage":"summarized","inflight_chapter":0}`,
		`{"last_completed_chapter":5,"current_volume":1,"orchestrator_state":"VOL_REVIEW","pipeline_stage":"committed","inflight_chapter":null,"last_error":{"step":"chapter:006:draft","message":"m","at":"t","previous_state":"WRITING"}}`} {
		write("checkpoint", "FuzzParse", "demo", b(c))
	}
	for _, c := range []string{`{"last_completed_chapter":-1}`, `{"last_completed_chapter":"3"}`, `{"orchestrator_state":"DONE"}`,
		`{"pipeline_stage":"flying"}`, `{"inflight_chapter":-2}`, `{"revision_count":1.5}`, `{"current_volume":0,"orchestrator_state":"WRITING"}`} {
		write("checkpoint", "FuzzParse", "err", b(c))
	}
}

// lockSeeds writes the lock info seeds.
func lockSeeds() {
	for _, l := range []string{`{"pid":4242,"host":"h","started":"2026-11-01T08:00:00Z","heartbeat":"2026-11-01T08:00:30Z","chapter":3,"token":"t","pid_start":1}`,
		`{"pid":"4242"}`, `{"chapter":0}`, `{"started":"9999-01-01T00:00:00Z"}`} {
		write("lock", "FuzzParseInfo", "demo", b(l))
	}
}

// gateSeeds writes the gate files seeds.
func gateSeeds() {
	for _, g := range []string{`{"chapter":3,"decision":"polish","overall_final":3.6,"eval_used":"primary","polished":false,"decided_at":"2026-11-01T08:00:00Z"}`,
		`{"chapter":3,"decision":"pass","polished":true}`, `{"chapter":3,"decision":"accepted","original_decision":"review","resolved_at":"x"}`} {
		write("gate", "FuzzParseGateFile", "demo", b(g))
	}
	for _, g := range []string{`{"chapter":3,"decision":"maybe"}`, `{"chapter":4,"decision":"pass"}`, `{"chapter":3,"decision":"pass","polished":"yes"}`} {
		write("gate", "FuzzParseGateFile", "err", b(g))
	}
}

// contractSeeds writes the contracts and drafts seeds.
func contractSeeds() {
	for _, rel := range glob("project/volumes/vol-01/chapter-contracts/*.json") {
		write("manifest", "FuzzContract", "demo", b(read(rel)))
		write("jsonio", "FuzzDecode", "demo", b(read(rel)))
	}
	for _, rel := range glob("replay/chapter-*/chapter-writer.*.md") {
		write("manifest", "FuzzDraftHints", "demo", s(read(rel)))
	}
}

// malformedSeeds writes the generic malformed documents for every JSON reader seeds.
func malformedSeeds(state string) {
	for _, x := range bad {
		for _, t := range [][2]string{{"jsonio", "FuzzDecode"}, {"eval", "FuzzParse"}, {"eval", "FuzzParseLogicReview"},
			{"revision", "FuzzParse"}, {"checkpoint", "FuzzParse"}, {"products", "FuzzParseDelta"}, {"lock", "FuzzParseInfo"},
			{"foreshadow", "FuzzParse"}, {"gate", "FuzzParseGateFile"}, {"manifest", "FuzzContract"}} {
			write(t[0], t[1], "bad", b(x))
		}
		write("settings", "FuzzSettings", "bad", s(x))
		write("volume", "FuzzParseSchedule", "bad", b(x), n(1))
		write("outline", "FuzzOutline", "bad", b(x), n(1))
		write("stateops", "FuzzOps", "bad", b(x), b(state))
		write("stateops", "FuzzOps", "bad", b(`[]`), b(x))
		write("foreshadow", "FuzzMerge", "bad", b(x), b(`[{"op":"foreshadow","path":"F-1","value":"planted"}]`), n(1))
	}
	for _, rel := range []string{"project/state/current-state.json", "project/foreshadowing/global.json", "project/world/rules.json",
		"project/ai-blacklist.json", "project/style-profile.json", "project/storylines/storyline-spec.json"} {
		write("jsonio", "FuzzDecode", "demo", b(read(rel)))
	}
}
