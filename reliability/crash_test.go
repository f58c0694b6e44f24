package reliability

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// chaptersN is how many chapters the fault-injection pipeline writes.
const chaptersN = 5

// TestKillPipeline SIGKILLs the whole pipeline (`continue N=5` on a copy
// of the demo, replay executor, fixed NOVEL_NOW) at seeded random instants,
// re-runs it until the five chapters are committed, and requires the final
// project to equal an uninterrupted run's byte for byte — every file,
// nothing excluded. Trials: 5 by default, 50 with NOVEL_LONG_TESTS=1
// (NOVEL_KILL_TRIALS and NOVEL_KILL_SEED override).
func TestKillPipeline(t *testing.T) {
	trials := 5
	switch {
	case long:
		trials = 50
	case testing.Short():
		trials = 1 // make test; make test-long runs 50
	}
	if s := os.Getenv("NOVEL_KILL_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	seed := uint64(20261101)
	if s := os.Getenv("NOVEL_KILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, seed))

	clean := copyOf(t, demo)
	t0 := time.Now()
	if code, out := runPipeline(t, clean, chaptersN, ""); code != 0 {
		t.Fatalf("clean run exited %d:\n%s", code, tail(out, 20))
	}
	d := time.Since(t0)
	if lc := lastCompleted(clean); lc != chaptersN {
		t.Fatalf("clean run committed %d chapters, want %d", lc, chaptersN)
	}
	want := tree(t, clean, false)
	t.Logf("clean run: %s, %d entries; %d trials, seed %d", since(t0), len(want), trials, seed)

	reruns, killed, finishedFirst := 0, 0, 0
	incompleteLocks, staleBreaks = 0, 0
	for i := range trials {
		p := copyOf(t, demo)
		// One or two kills per trial: the second hits the run that is
		// resuming from the first, where recovery code itself is running.
		kills := 1 + rng.IntN(2)
		var at []string
		for range kills {
			n := chaptersN - lastCompleted(p)
			if n < 1 {
				break
			}
			delay := time.Duration(rng.Int64N(int64(d)))
			c := pipelineCmd(p, n, "")
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			select {
			case <-done: // finished before the kill: still a valid trial
				finishedFirst++
				at = append(at, "none (finished first)")
			case <-time.After(delay):
				killTree(c.Process.Pid)
				<-done
				killed++
				at = append(at, fmt.Sprintf("%s after %d chapters", delay.Round(time.Millisecond), lastCompleted(p)))
			}
		}
		label := fmt.Sprintf("trial %d (kills at %v)", i+1, at)
		n := finish(t, p, chaptersN, label)
		reruns += n
		if diff := testkit.Diff(want, tree(t, p, false)); diff != "" {
			t.Errorf("%s: after %d re-runs the project differs from the clean run:\n%s%s", label, n, diff, contentDiffs(clean, p, diff))
		}
	}
	t.Logf("%d trials: %d SIGKILLs of the whole pipeline, %d runs finished before their kill time, %d re-runs to finish, %d info-less locks (aged past 10 s, then broken by the re-run), %d stale locks broken",
		trials, killed, finishedFirst, reruns, incompleteLocks, staleBreaks)
}

// contentDiffs shows, for each changed file of a tree diff, the first line
// where the clean run's and the trial's versions differ.
func contentDiffs(clean, p, diff string) string {
	var b strings.Builder
	for _, l := range strings.Split(diff, "\n") {
		rel, changed := strings.CutPrefix(l, "~ ")
		if !changed {
			continue
		}
		a, _ := os.ReadFile(filepath.Join(clean, rel))
		c, _ := os.ReadFile(filepath.Join(p, rel))
		al, cl := strings.Split(string(a), "\n"), strings.Split(string(c), "\n")
		for i := 0; i < len(al) || i < len(cl); i++ {
			var x, y string
			if i < len(al) {
				x = al[i]
			}
			if i < len(cl) {
				y = cl[i]
			}
			if x != y {
				fmt.Fprintf(&b, "\n  %s line %d:\n    clean: %.300q\n    trial: %.300q", rel, i+1, x, y)
				break
			}
		}
	}
	return b.String()
}
