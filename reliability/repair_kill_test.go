package reliability

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// repairCase is one command of the repair kill campaign: a project
// template prepared once, and the command run inside a copy of it.
type repairCase struct {
	name string
	base func(t *testing.T) string
	cmd  []string
	// done reports a project the command has finished in (a kill after
	// its last write): a re-run there would be refused, not resumed. nil:
	// the command is simply run again.
	done func(p string) bool
}

// amendDone: the staged summary was moved in and no amend journal is left.
func amendDone(p string) bool {
	return !fileExists(filepath.Join(p, "staging", "summaries", "chapter-002-summary.md")) &&
		!fileExists(filepath.Join(p, layout.AmendJournal(2)))
}

// TestKillRepairs SIGKILLs `novel-commit rebuild`, `novel-commit amend`,
// `novel import`, `novel export` and a volume commit at seeded random
// instants of their run, re-runs the same command until it succeeds, and
// requires the project to equal an uninterrupted run's byte for byte
// (every file, nothing excluded), like TestKillPipeline. The amend is also
// crashed after each of its steps (NOVEL_CRASH_AT). Only with
// NOVEL_LONG_TESTS=1 (`make test-long`): 20 kills per command
// (NOVEL_KILL_TRIALS and NOVEL_KILL_SEED override).
func TestKillRepairs(t *testing.T) {
	if !long {
		t.Skip("the repair kill campaigns run with NOVEL_LONG_TESTS=1 (make test-long)")
	}
	trials := 20
	if s := os.Getenv("NOVEL_KILL_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	seed := uint64(20261127)
	if s := os.Getenv("NOVEL_KILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	three := threeChapters(t)
	cases := []repairCase{
		{name: "rebuild", cmd: []string{"novel-commit", "rebuild"}, base: func(t *testing.T) string {
			// A truncated state and a lost foreshadowing file: rebuild
			// restores both and keeps the damaged state in state/backups/.
			p := copyOf(t, three)
			data, err := os.ReadFile(filepath.Join(p, "state", "current-state.json"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(p, "state", "current-state.json"), data[:100])
			if err := os.Remove(filepath.Join(p, "foreshadowing", "global.json")); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{name: "amend", cmd: []string{"novel-commit", "amend", "--chapter", "2"}, base: amendBase(three), done: amendDone},
		{name: "import", cmd: []string{"novel-import", "book.txt"}, base: func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "p")
			writeFile(t, filepath.Join(p, ".checkpoint.json"), []byte(`{"schema_version": 2, "last_completed_chapter": 0, "current_volume": 0, "orchestrator_state": "QUICK_START", "pipeline_stage": null, "inflight_chapter": null, "revision_count": 0}`+"\n"))
			writeFile(t, filepath.Join(p, "state", "current-state.json"), []byte(`{"schema_version":1,"state_version":0,"last_updated_chapter":0,"characters":{},"items":{},"locations":{},"factions":{},"world_state":{},"active_foreshadowing":[]}`+"\n"))
			var book bytes.Buffer
			book.WriteString("守灯人\n\n")
			for c := 1; c <= 40; c++ {
				fmt.Fprintf(&book, "第%d章 第%d夜\n陆照在长明殿守灯，第七盏灯无油自燃。%s\n", c, c, bytes.Repeat([]byte("雪落无声。"), 200))
			}
			writeFile(t, filepath.Join(p, "book.txt"), book.Bytes())
			return p
		}},
		// Markdown: the EPUB's dcterms:modified is the wall clock (not
		// NOVEL_NOW), so two clean EPUB exports already differ.
		{name: "export", cmd: []string{"novel-export", "--format", "md", "--out", "book.md"}, base: func(t *testing.T) string { return three }},
		{name: "volume", cmd: []string{"novel-commit", "volume", "--volume", "2"}, done: func(p string) bool {
			return !fileExists(filepath.Join(p, "staging", "volumes", "vol-02", "outline.md")) &&
				!fileExists(filepath.Join(p, "staging", "volume-02.journal.json"))
		}, base: func(t *testing.T) string {
			p := copyOf(t, demo)
			writeFile(t, filepath.Join(p, ".checkpoint.json"), []byte(`{"schema_version":2,"last_completed_chapter":6,"current_volume":2,"orchestrator_state":"VOL_PLANNING","pipeline_stage":"committed","inflight_chapter":null,"revision_count":0}`+"\n"))
			// The checkpoint claims six chapters: their files must be there
			// (E_INTEGRITY, SPEC §22.1).
			for c := 1; c <= 6; c++ {
				writeFile(t, filepath.Join(p, "chapters", fmt.Sprintf("chapter-%03d.md", c)), []byte(fmt.Sprintf("# 第%d章\n\n夜色渐深。\n", c)))
				writeFile(t, filepath.Join(p, "summaries", fmt.Sprintf("chapter-%03d-summary.md", c)), []byte(fmt.Sprintf("# 第%d章摘要\n\n夜色渐深。\n", c)))
			}
			r := runIn(t, p, nil, "novel-manifest", "packet", "volume:02:plan", "--write-manifest", "--jq", ".written_manifest_path")
			mustOK(t, r, "volume packet")
			mustOK(t, runIn(t, p, nil, "novel-agent", "--backend", "replay", "--fixtures", replay, string(bytes.TrimSpace([]byte(r.Stdout)))), "volume plan")
			return p
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			base := tc.base(t)
			clean := copyOf(t, base)
			t0 := time.Now()
			mustOK(t, runIn(t, clean, nil, tc.cmd[0], tc.cmd[1:]...), "clean "+tc.name)
			d := time.Since(t0)
			want := tree(t, clean, false)
			killed, first, reruns := 0, 0, 0
			for i := range trials {
				p := copyOf(t, base)
				delay := time.Duration(rng.Int64N(int64(d)))
				c := exec.Command(filepath.Join(binDir, tc.cmd[0]), tc.cmd[1:]...)
				c.Dir, c.Env = p, env()
				c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { c.Wait(); close(done) }()
				select {
				case <-done:
					first++
				case <-time.After(delay):
					killTree(c.Process.Pid)
					<-done
					killed++
				}
				label := fmt.Sprintf("%s trial %d (kill after %s of %s)", tc.name, i+1, delay.Round(time.Microsecond), d.Round(time.Microsecond))
				reruns += rerun(t, p, tc.cmd, tc.done, label)
				if diff := testkit.Diff(want, tree(t, p, false)); diff != "" {
					t.Errorf("%s: the project differs from the clean run:\n%s%s", label, diff, contentDiffs(clean, p, diff))
				}
			}
			t.Logf("%s: clean run %s; %d trials, %d SIGKILLs during the run, %d finished first, %d re-runs (seed %d)",
				tc.name, d.Round(time.Microsecond), trials, killed, first, reruns, seed)
		})
	}
	t.Run("amend-crash-at", func(t *testing.T) {
		base := amendBase(three)(t)
		clean := copyOf(t, base)
		mustOK(t, runIn(t, clean, nil, "novel-commit", "amend", "--chapter", "2"), "clean amend")
		want := tree(t, clean, false)
		for _, step := range commit.AmendSteps {
			p := copyOf(t, base)
			r := runIn(t, p, []string{"NOVEL_CRASH_AT=" + step}, "novel-commit", "amend", "--chapter", "2")
			if r.Exit != 137 {
				t.Fatalf("crash at %s: exit %d, want 137: %s", step, r.Exit, r.Stderr)
			}
			label := "amend crashed after " + step
			rerun(t, p, []string{"novel-commit", "amend", "--chapter", "2"}, amendDone, label)
			if diff := testkit.Diff(want, tree(t, p, false)); diff != "" {
				t.Errorf("%s: the project differs from the clean run:\n%s%s", label, diff, contentDiffs(clean, p, diff))
			}
		}
	})
}

// rerun runs cmd in p until it succeeds or done says it has (a lock a kill left inside its
// acquire, before its info.json, is aged past its 10 s as TestKillPipeline
// does); it returns how many runs that took.
func rerun(t *testing.T, p string, cmd []string, done func(string) bool, label string) int {
	t.Helper()
	for i := 1; i <= 4; i++ {
		if done != nil && done(p) {
			breakStale(t, p, label)
			return i - 1
		}
		r := runIn(t, p, nil, cmd[0], cmd[1:]...)
		if r.Exit == 0 {
			return i
		}
		if infoLessFresh(r.Stderr) {
			ageLockDir(t, p, 11*time.Second)
			continue
		}
		t.Fatalf("%s: re-run %d exited %d: %s", label, i, r.Exit, r.Stderr)
	}
	t.Fatalf("%s: not finished after 4 re-runs", label)
	return 0
}

// breakStale removes a lock the kill left after the command's last
// write: its holder is dead, so `novel-lock break` without --force must
// succeed (an info-less one once aged past its 10 s, SPEC §4).
func breakStale(t *testing.T, p, label string) {
	t.Helper()
	if !fileExists(filepath.Join(p, ".novel.lock")) {
		return
	}
	r := runIn(t, p, nil, "novel-lock", "break")
	if r.Exit != 0 && infoLessFresh(r.Stderr) {
		ageLockDir(t, p, 11*time.Second)
		r = runIn(t, p, nil, "novel-lock", "break")
	}
	if r.Exit != 0 {
		t.Fatalf("%s: the lock left by the kill is not stale: %s", label, r.Stderr)
	}
}

// threeChapters is the demo after `continue N=3` (replay executor).
func threeChapters(t *testing.T) string {
	t.Helper()
	p := copyOf(t, demo)
	if code, out := runPipeline(t, p, 3, ""); code != 0 {
		t.Fatalf("continue N=3 exited %d:\n%s", code, tail(out, 20))
	}
	return p
}

// amendBase is three chapters with chapter 2 edited by the author and the
// summarizer's amend products staged (packet, replay recording).
func amendBase(three string) func(t *testing.T) string {
	return func(t *testing.T) string {
		p := copyOf(t, three)
		writeFile(t, filepath.Join(p, "chapters", "chapter-002.md"), []byte("# 第2章 青石镇\n\n陆照下山去青石镇，在镇口被人划了一刀，左臂见血。贺九把半块残玉交给他，说周伯上月还活着。\n"))
		fx := filepath.Join(t.TempDir(), "fx")
		writeFile(t, filepath.Join(fx, "chapter-002", "summarizer.amend.r0.json"), []byte(`{
  "summary": "# 第2章 青石镇（改写）\n\n陆照在镇口受了刀伤，贺九转交残玉。\n",
  "delta": {"chapter": 2, "base_state_version": 1, "storyline_id": "main-arc", "unknown_entities": [],
    "ops": [{"op": "foreshadow", "path": "F-002", "value": "planted", "detail": "贺九转交半块残玉"},
      {"op": "add", "path": "characters.lu-zhao.inventory", "value": "半块残玉"},
      {"op": "set", "path": "characters.lu-zhao.wound", "value": "左臂刀伤"}]},
  "crossref": {"storyline_id": "main-arc", "cross_references": [], "leak_risk": "low"},
  "memory": "陆照左臂受伤，得到周伯托付的半块残玉。\n"
}
`))
		r := runIn(t, p, nil, "novel-manifest", "packet", "chapter:002:summarize", "--mode", "amend", "--write-manifest", "--jq", ".written_manifest_path")
		mustOK(t, r, "amend packet")
		mustOK(t, runIn(t, p, nil, "novel-agent", "--backend", "replay", "--fixtures", fx, string(bytes.TrimSpace([]byte(r.Stdout)))), "amend summarizer")
		return p
	}
}

func mustOK(t *testing.T, r Result, what string) {
	t.Helper()
	if r.Exit != 0 {
		t.Fatalf("%s exited %d:\n%s", what, r.Exit, r.Stderr)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
