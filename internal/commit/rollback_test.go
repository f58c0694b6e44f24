package commit_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/rollback"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// The ten-chapter project: two storylines alternating (odd chapters on
// main-arc, which has a memory from before the suite; even ones on
// side-line, which has none), foreshadowing planted, advanced and resolved
// across the rollback point, unknown entities, and a blacklist upkeep.
var seqBase = map[string]string{
	".checkpoint.json":                  `{"schema_version":2,"last_completed_chapter":0,"current_volume":1,"orchestrator_state":"WRITING","pipeline_stage":null,"inflight_chapter":null,"revision_count":0}`,
	"volumes/vol-01/foreshadowing.json": `{"foreshadowing":[{"id":"F-A","description":"七盏灯","scope":"short","target_resolve_range":[1,6]},{"id":"F-C","description":"残玉","scope":"long","target_resolve_range":[4,20]}]}`,
	"state/current-state.json":          `{"schema_version":1,"state_version":0,"last_updated_chapter":0,"characters":{"lu-zhao":{"display_name":"陆照","hp":10}},"items":{},"locations":{},"factions":{},"world_state":{},"active_foreshadowing":[]}`,
	"foreshadowing/global.json":         `{"foreshadowing":[{"id":"F-000","description":"旧伏笔","scope":"long","status":"planted","history":[{"chapter":0,"action":"planted","detail":"卷前"}]},{"id":"F-OLD","description":"未触及","scope":"short","status":"advanced"}]}`,
	"storylines/main-arc/memory.md":     "套件之前的主线记忆。\n",
	"ai-blacklist.json":                 `{"version":"1.0.0","words":["不禁"],"whitelist":[]}`,
}

func seqOutline() string {
	var b strings.Builder
	b.WriteString("# 第一卷\n\n")
	for k := 1; k <= 12; k++ {
		fmt.Fprintf(&b, "### 第 %d 章: 章%d\n- **Storyline**: %s\n\n", k, k, storyline(k))
	}
	return b.String()
}

func storyline(k int) string {
	if k%2 == 1 {
		return "main-arc"
	}
	return "side-line"
}

// seqForeshadow is each chapter's foreshadow op: F-A from the plan is
// planted before the rollback point and advanced/resolved after it; F-X
// is planted before and resolved after; F-C is created after; F-000
// predates the suite (with a history entry, so its status can fall back;
// F-OLD is never touched); F-D is created by a non-planted action.
var seqForeshadow = map[int][2]string{
	1: {"F-A", "planted"}, 2: {"F-X", "planted"}, 3: {"F-A", "advanced"}, 4: {"F-C", "planted"},
	5: {"F-X", "resolved"}, 6: {"F-A", "resolved"}, 7: {"F-000", "advanced"}, 8: {"F-C", "advanced"},
	9: {"F-D", "advanced"}, 10: {"F-C", "resolved"},
}

var seqUnknown = map[int]string{
	2: `[{"name":"贺九","context":"摊主"}]`, 4: `[{"name":"周伯","context":"失踪"}]`,
	8: `[{"name":"林婆","context":"邻居"},{"name":"贺九","context":"再现"}]`,
}

// chapterInputs are chapter k's staging products, as an executor would
// leave them for the commit.
func chapterInputs(k int) map[string]string {
	n := fmt.Sprintf("%03d", k)
	s := storyline(k)
	ops := []string{
		fmt.Sprintf(`{"op":"set","path":"characters.lu-zhao.location","value":"地点%d"}`, k),
		fmt.Sprintf(`{"op":"inc","path":"characters.lu-zhao.hp","value":%d}`, k),
		fmt.Sprintf(`{"op":"add","path":"items.jade.holders","value":"h%d"}`, k%3),
		fmt.Sprintf(`{"op":"set","path":"world_state.day","value":%d}`, k),
	}
	if k == 4 {
		ops = append(ops, `{"op":"remove","path":"items.jade.holders","value":"h1"}`)
	}
	if k == 5 {
		ops = append(ops, `{"op":"set","path":"bad"}`)
	}
	if k%2 == 0 {
		ops = append(ops, fmt.Sprintf(`{"op":"inc","path":"factions.night-guard.alert","value":%d}`, k))
	}
	f := seqForeshadow[k]
	ops = append(ops, fmt.Sprintf(`{"op":"foreshadow","path":%q,"value":%q,"detail":"第%d章"}`, f[0], f[1], k))
	unknown := seqUnknown[k]
	if unknown == "" {
		unknown = "[]"
	}
	eval := fmt.Sprintf(`{"chapter":%d,"overall":%.1f,"recommendation":"pass"}`, k, 4.0+float64(k%5)/10)
	if k == 2 {
		eval = `{"chapter":2,"overall":4.3,"recommendation":"pass","anti_ai":{"blacklist_update_suggestions":[{"phrase":"仿佛","count_in_chapter":3,"confidence":"high","examples":["仿佛有人"]}]}}`
	}
	in := map[string]string{
		"staging/chapters/chapter-" + n + ".md":          fmt.Sprintf("# 第%d章\n\n灯亮了，仿佛有人。第%d章的正文。\n", k, k),
		"staging/summaries/chapter-" + n + "-summary.md": fmt.Sprintf("第%d章摘要。\n", k),
		"staging/state/chapter-" + n + "-delta.json": fmt.Sprintf(`{"chapter":%d,"base_state_version":%d,"storyline_id":%q,"ops":[%s],"unknown_entities":%s}`,
			k, k-1, s, strings.Join(ops, ","), unknown),
		"staging/state/chapter-" + n + "-crossref.json":   fmt.Sprintf(`{"chapter":%d,"checks":[]}`, k),
		"staging/storylines/" + s + "/memory.md":          fmt.Sprintf("%s 第%d章后的记忆。\n", s, k),
		"staging/evaluations/chapter-" + n + "-eval.json": eval,
		"staging/evaluations/chapter-" + n + "-gate.json": fmt.Sprintf(`{"chapter":%d,"decision":"pass","overall_final":%.1f,"eval_used":"primary","force_passed":false}`,
			k, 4.0+float64(k%5)/10),
		"staging/logs/chapter-" + n + "-run.jsonl": fmt.Sprintf(`{"step":"chapter:%s:draft","mode":"draft","round":0,"attempt":1,"started":"2026-01-02T03:00:00Z","ended":"2026-01-02T03:00:09Z","exit":0}`+"\n", n),
	}
	if k == 1 { // the volume's first chapter is a key chapter: two judges
		in["staging/evaluations/chapter-001-eval.secondary.json"] = `{"chapter":1,"overall":4.0,"recommendation":"pass"}`
	}
	return in
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := testkit.WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
}

func newSeqProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, seqBase)
	writeFiles(t, dir, map[string]string{"volumes/vol-01/outline.md": seqOutline()})
	return dir
}

// novel runs the binary in dir with NOVEL_NOW fixed.
func novel(bin, dir string, env []string, args ...string) (int, string) {
	cmd := exec.Command(bin, append(args, "--project", dir)...)
	cmd.Env = append(os.Environ(), append([]string{"NOVEL_NOW=2026-01-02T03:04:05Z"}, env...)...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, string(out)
}

// commitChapters stages chapters from..to one at a time (as the pipeline
// leaves them: inflight, judged) and commits each.
func commitChapters(t *testing.T, bin, dir string, from, to int) {
	t.Helper()
	for k := from; k <= to; k++ {
		writeFiles(t, dir, chapterInputs(k))
		var cp map[string]any
		data, err := os.ReadFile(filepath.Join(dir, ".checkpoint.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cp); err != nil {
			t.Fatal(err)
		}
		cp["inflight_chapter"], cp["pipeline_stage"] = k, "judged"
		b, _ := json.Marshal(cp)
		writeFiles(t, dir, map[string]string{".checkpoint.json": string(b)})
		if code, out := novel(bin, dir, nil, "--chapter", fmt.Sprint(k)); code != 0 {
			t.Fatalf("commit %d: exit %d\n%s", k, code, out)
		}
	}
}

// projectTree is tree() without the rolled-back archive, which only the
// rolled-back project has.
func projectTree(t *testing.T, dir string) string {
	var keep []string
	for _, l := range strings.Split(tree(t, dir), "\n") {
		if !strings.HasPrefix(l, "staging/rolled-back") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// fileTree lists files only: rollback leaves emptied folders behind.
func fileTree(t *testing.T, dir string) string {
	var keep []string
	for _, l := range strings.Split(projectTree(t, dir), "\n") {
		if !strings.HasSuffix(l, " dir") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := testkit.CopyTree(src, dst, true); err != nil {
		t.Fatal(err)
	}
	return dst
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRollbackRecommitSequence: ten chapters, rollback --to 3, and the
// same inputs committed again give the uninterrupted project byte for
// byte; right after the rollback the project is the one that stopped
// after chapter 2.
func TestRollbackRecommitSequence(t *testing.T) {
	bin := buildCommit(t)
	two := newSeqProject(t)
	commitChapters(t, bin, two, 1, 2)
	ref := newSeqProject(t)
	commitChapters(t, bin, ref, 1, 10)
	if code, out := novel(bin, ref, nil, "rebuild", "--check"); code != 0 {
		t.Fatalf("rebuild --check after 10 chapters: exit %d\n%s", code, out)
	}
	want := projectTree(t, ref)
	for _, f := range []string{"storylines/main-arc/history/memory-000.md", "storylines/main-arc/history/memory-007.md",
		"storylines/side-line/history/memory-008.md", "logs/unknown-entities.jsonl", "state/baseline.json"} {
		if !strings.Contains(want, f+" ") {
			t.Fatalf("the ten-chapter run did not write %s:\n%s", f, want)
		}
	}

	dir := copyTree(t, ref)
	// The continuity-auditor's review of chapter 5's window (SPEC §21)
	// goes with chapter 5 like the deterministic report.
	review := "logs/continuity/agent-report-005.json"
	if err := os.WriteFile(filepath.Join(dir, review), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := novel(bin, dir, nil, "rollback", "--to", "3", "--jq", "[.to, .rolled_back, .state_version, (.moved|length), .warnings]")
	if code != 0 {
		t.Fatalf("rollback: exit %d\n%s", code, out)
	}
	// 8 chapters × (chapter, summary, eval, crossref, log) + memories: one
	// per chapter (history or current) + each storyline's restored memory
	// + the audit reports of chapters 5 and 10, the auditor's review of 5,
	// latest.json and the three inventories of chapter 10.
	if got := strings.TrimSpace(out); got != `[3,[3,4,5,6,7,8,9,10],2,57,[]]` {
		t.Fatalf("rollback output = %s", got)
	}
	if code, out := novel(bin, dir, nil, "rebuild", "--check"); code != 0 {
		t.Fatalf("rebuild --check after rollback: exit %d\n%s", code, out)
	}
	if got, w := fileTree(t, dir), fileTree(t, two); got != w {
		t.Fatalf("rolled back to 3 ≠ committed through 2:\n%s", diffLines(w, got))
	}
	// Each rolled-back chapter's products and memory are kept.
	rb := filepath.Join(dir, "staging/rolled-back")
	if _, err := os.Stat(filepath.Join(rb, "chapter-005", review)); err != nil {
		t.Fatalf("the review of chapter 5's window did not go with chapter 5: %v", err)
	}
	for k := 3; k <= 10; k++ {
		n := fmt.Sprintf("%03d", k)
		if got := readFile(t, filepath.Join(rb, "chapter-"+n, "chapters/chapter-"+n+".md")); got != chapterInputs(k)["staging/chapters/chapter-"+n+".md"] {
			t.Fatalf("rolled-back chapter %d text = %q", k, got)
		}
		mem := fmt.Sprintf("%s 第%d章后的记忆。\n", storyline(k), k)
		if got := readFile(t, filepath.Join(rb, "chapter-"+n, "storylines", storyline(k), "memory.md")); got != mem {
			t.Fatalf("rolled-back memory of chapter %d = %q, want %q", k, got, mem)
		}
		for _, rel := range []string{"summaries/chapter-" + n + "-summary.md", "evaluations/chapter-" + n + "-eval.json",
			"state/chapter-" + n + "-crossref.json", "logs/chapter-" + n + "-log.json"} {
			if _, err := os.Stat(filepath.Join(rb, "chapter-"+n, rel)); err != nil {
				t.Fatalf("rolled-back chapter %d lacks %s: %v", k, rel, err)
			}
		}
	}

	commitChapters(t, bin, dir, 3, 10)
	if got := projectTree(t, dir); got != want {
		t.Fatalf("rollback + re-commit differs from the uninterrupted run:\n%s", diffLines(want, got))
	}
}

// TestRollbackCrashAfterEveryStep: a rollback killed right after any of
// its steps is finished by the next `rollback --to C`, giving the tree an
// uninterrupted rollback gives.
func TestRollbackCrashAfterEveryStep(t *testing.T) {
	bin := buildCommit(t)
	base := newSeqProject(t)
	commitChapters(t, bin, base, 1, 6)
	ref := copyTree(t, base)
	if code, out := novel(bin, ref, nil, "rollback", "--to", "3"); code != 0 {
		t.Fatalf("uninterrupted rollback: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	for _, step := range rollback.Steps {
		t.Run(step, func(t *testing.T) {
			dir := copyTree(t, base)
			if code, out := novel(bin, dir, []string{"NOVEL_CRASH_AT=" + step}, "rollback", "--to", "3"); code != 137 {
				t.Fatalf("crash at %s: exit %d, want 137\n%s", step, code, out)
			}
			if step != commit.StepCleanup {
				// While the journal exists other writers wait for it.
				if code, out := novel(bin, dir, nil, "--chapter", "3"); code != 1 || !strings.Contains(out, "rollback --to 3") {
					t.Fatalf("commit during an unfinished rollback: exit %d\n%s", code, out)
				}
			}
			code, out := novel(bin, dir, nil, "rollback", "--to", "3")
			if step == commit.StepCleanup {
				// The rollback had finished: chapter 3 is no longer committed.
				if code != 1 || !strings.Contains(out, `"code":"E_STATE"`) {
					t.Fatalf("rollback again after a finished one: exit %d\n%s", code, out)
				}
			} else if code != 0 {
				t.Fatalf("resume after %s: exit %d\n%s", step, code, out)
			}
			if got := tree(t, dir); got != want {
				t.Fatalf("tree after crash at %s + resume differs:\n%s", step, diffLines(want, got))
			}
		})
	}
}

// TestRollbackSigkillAtRandomPoints: a rollback killed at a random
// instant is finished by the next `rollback --to C` (or had not started,
// or had finished), always ending at the uninterrupted tree.
func TestRollbackSigkillAtRandomPoints(t *testing.T) {
	bin := buildCommit(t)
	base := newSeqProject(t)
	commitChapters(t, bin, base, 1, 6)
	ref := copyTree(t, base)
	if code, out := novel(bin, ref, nil, "rollback", "--to", "3"); code != 0 {
		t.Fatalf("uninterrupted rollback: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	r := rand.New(rand.NewSource(20260103))
	for i := 0; i < 12; i++ {
		dir := copyTree(t, base)
		cmd := exec.Command(bin, "rollback", "--to", "3", "--project", dir)
		cmd.Env = append(os.Environ(), "NOVEL_NOW=2026-01-02T03:04:05Z")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Intn(15000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		code, out := novel(bin, dir, nil, "rollback", "--to", "3")
		if code == 4 && strings.Contains(out, `"info":"missing"`) {
			// Killed between the lock's mkdir and its info.json: by the lock
			// protocol (SPEC §4) a person breaks it; not a rollback concern.
			os.RemoveAll(filepath.Join(dir, ".novel.lock"))
			code, out = novel(bin, dir, nil, "rollback", "--to", "3")
		}
		finished := code == 1 && strings.Contains(out, `"code":"E_STATE"`) && strings.Contains(out, `"last_completed_chapter":2`)
		if code != 0 && !finished {
			t.Fatalf("run %d: resume failed: exit %d\n%s", i, code, out)
		}
		if got := tree(t, dir); got != want {
			t.Fatalf("run %d: tree after SIGKILL + resume differs:\n%s", i, diffLines(want, got))
		}
	}
}
