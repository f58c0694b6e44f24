package commit_test

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// buildCommit builds novel-commit once per test binary run.
func buildCommit(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "novel-commit")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/novelsuite/novel/cmd/novel-commit")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var fixture = map[string]string{
	".checkpoint.json":                         `{"schema_version":2,"last_completed_chapter":0,"current_volume":1,"orchestrator_state":"WRITING","pipeline_stage":"judged","inflight_chapter":1,"revision_count":1}`,
	"volumes/vol-01/outline.md":                "### 第 1 章: 灯\n- **Storyline**: main-arc\n",
	"volumes/vol-01/foreshadowing.json":        `{"foreshadowing":[{"id":"F-001","description":"灯","scope":"short","target_resolve_range":[1,2]}]}`,
	"state/current-state.json":                 `{"schema_version":1,"state_version":4,"characters":{"lu-zhao":{"hp":1}},"items":{},"locations":{},"factions":{},"world_state":{},"active_foreshadowing":[]}`,
	"state/changelog.jsonl":                    "",
	"foreshadowing/global.json":                `{"foreshadowing":[{"id":"F-000","description":"旧","scope":"long","status":"planted"}]}`,
	"storylines/main-arc/memory.md":            "旧记忆\n",
	"ai-blacklist.json":                        `{"version":"1.0.0","words":["不禁"],"whitelist":[]}`,
	"logs/unknown-entities.jsonl":              `{"chapter":0,"name":"甲","context":"x"}` + "\n",
	"staging/chapters/chapter-001.md":          "# 第1章 灯\n\n灯亮了，仿佛有人。\n",
	"staging/summaries/chapter-001-summary.md": "灯亮。\n",
	"staging/state/chapter-001-delta.json": `{"chapter":1,"base_state_version":4,"storyline_id":"main-arc","ops":[
		{"op":"inc","path":"characters.lu-zhao.hp","value":2},
		{"op":"set","path":"characters.new-one.title","value":"客"},
		{"op":"set","path":"bad"},
		{"op":"foreshadow","path":"F-001","value":"planted","detail":"亮"}],
		"unknown_entities":[{"name":"乙","context":"y"},{"name":"丙","context":"z"}]}`,
	"staging/state/chapter-001-crossref.json": `{}`,
	"staging/storylines/main-arc/memory.md":   "新记忆\n",
	"staging/evaluations/chapter-001-eval.json": `{"chapter":1,"overall":4.4,"recommendation":"pass",
		"anti_ai":{"blacklist_update_suggestions":[{"phrase":"仿佛","count_in_chapter":3,"confidence":"high","examples":["仿佛有人"]}]}}`,
	"staging/evaluations/chapter-001-eval.secondary.json": `{"chapter":1,"overall":4.2,"recommendation":"pass"}`,
	"staging/evaluations/chapter-001-gate.json":           `{"chapter":1,"decision":"pass","overall_final":4.2,"eval_used":"secondary","force_passed":false}`,
	"staging/manifests/chapter-001-draft.packet.json":     `{}`,
	"staging/logs/chapter-001-run.jsonl":                  `{"step":"chapter:001:draft","mode":"draft","round":0,"attempt":1,"started":"2026-01-02T03:00:00Z","ended":"2026-01-02T03:00:09Z","exit":0}` + "\n",
	"staging/revisions/chapter-001/r0/chapter-001.md":     "旧稿\n",
}

func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := testkit.WriteFiles(dir, fixture); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tree lists every file and directory under dir with a content hash
// (testkit.Listing lines, no final newline), leaving out the lock
// machinery (not project state).
func tree(t *testing.T, dir string) string {
	t.Helper()
	m, err := testkit.Tree(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for rel := range m {
		if strings.HasPrefix(rel, ".novel.lock") {
			delete(m, rel)
		}
	}
	return strings.TrimSuffix(testkit.Listing(m), "\n")
}

// runCommit commits chapter 1 of dir (novel, NOVEL_NOW fixed).
func runCommit(bin, dir string, env ...string) (int, string) {
	return novel(bin, dir, env, "--chapter", "1")
}

func TestCrashAfterEveryStep(t *testing.T) {
	bin := buildCommit(t)
	ref := writeFixture(t)
	if code, out := runCommit(bin, ref); code != 0 {
		t.Fatalf("uninterrupted commit: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	if !strings.Contains(want, "state/baseline.json") || !strings.Contains(want, "storylines/main-arc/history/memory-000.md") {
		t.Fatalf("reference commit did not write the expected files:\n%s", want)
	}
	for _, step := range commit.Steps {
		t.Run(step, func(t *testing.T) {
			dir := writeFixture(t)
			if code, out := runCommit(bin, dir, "NOVEL_CRASH_AT="+step); code != 137 {
				t.Fatalf("crash at %s: exit %d, want 137\n%s", step, code, out)
			}
			code, out := runCommit(bin, dir)
			if step == commit.StepCleanup {
				// The journal is gone: the commit had finished, and running
				// it again is refused like any commit of a done chapter.
				if code == 0 {
					t.Fatalf("re-commit after a finished commit succeeded:\n%s", out)
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

func TestSigkillAtRandomPoints(t *testing.T) {
	bin := buildCommit(t)
	ref := writeFixture(t)
	if code, out := runCommit(bin, ref); code != 0 {
		t.Fatalf("uninterrupted commit: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	r := rand.New(rand.NewSource(20260102))
	for i := 0; i < 12; i++ {
		dir := writeFixture(t)
		cmd := exec.Command(bin, "--chapter", "1", "--project", dir)
		cmd.Env = append(os.Environ(), "NOVEL_NOW=2026-01-02T03:04:05Z")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Intn(12000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		code, out := runCommit(bin, dir)
		if code == 4 && strings.Contains(out, `"info":"missing"`) {
			// Killed between the lock's mkdir and its info.json: by the lock
			// protocol (SPEC §4) a person breaks it; not a commit concern.
			os.RemoveAll(filepath.Join(dir, ".novel.lock"))
			code, out = runCommit(bin, dir)
		}
		done := strings.Contains(out, "E_STATE") && !fileExists(filepath.Join(dir, "staging/commit-001.journal.json")) &&
			strings.Contains(tree(t, dir), "chapters/chapter-001.md")
		if code != 0 && !done {
			t.Fatalf("run %d: resume failed: exit %d\n%s", i, code, out)
		}
		if got := tree(t, dir); got != want {
			t.Fatalf("run %d: tree after SIGKILL + resume differs:\n%s", i, diffLines(want, got))
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func diffLines(want, got string) string {
	w := map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	g := map[string]bool{}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	var out []string
	for l := range w {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range g {
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
