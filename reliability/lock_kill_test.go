package reliability

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// killSeed is the campaigns' seed (NOVEL_KILL_SEED overrides).
func killSeed() uint64 {
	seed := uint64(20261101)
	if s := os.Getenv("NOVEL_KILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	return seed
}

type lockStatus struct {
	Exists bool   `json:"exists"`
	Stale  bool   `json:"stale"`
	Reason string `json:"reason"`
	Holder *struct {
		Info string `json:"info"`
	} `json:"holder"`
	AgeSeconds *int64 `json:"age_seconds"`
}

func statusOf(t *testing.T, p string) lockStatus {
	t.Helper()
	r := runIn(t, p, nil, "novel-lock", "status")
	var st lockStatus
	if r.Exit != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil {
		t.Fatalf("novel-lock status: exit %d %s%s", r.Exit, r.Stdout, r.Stderr)
	}
	return st
}

// TestKillInsideLockAcquire SIGKILLs and SIGINTs `novel-lock run -- true`
// (acquire recording its own pid, run, release) at seeded random instants
// of its short life — half uniformly, half just after the lock directory
// appears, i.e. inside acquire. Afterwards the project
// must be acquirable without waiting lock_stale_minutes: after a SIGINT at
// once (an interrupted acquire undoes its lock); after a SIGKILL at once,
// or — when the kill fell between the lock's mkdir and its info.json — as
// soon as the directory is 10 s old (aged here with Chtimes), by a plain
// acquire that reports the broken lock as "incomplete". Trials: 24 by
// default, 400 with NOVEL_LONG_TESTS=1.
func TestKillInsideLockAcquire(t *testing.T) {
	trials := 24
	if long {
		trials = 400
	}
	seed := killSeed()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	p := copyOf(t, demo)
	// The clean life of one `run -- true` bounds the kill instants.
	t0 := time.Now()
	if r := runIn(t, p, nil, "novel-lock", "run", "--", "true"); r.Exit != 0 {
		t.Fatalf("clean run: %d %s", r.Exit, r.Stderr)
	}
	d := time.Since(t0)
	counts := map[string]int{}
	for i := range trials {
		sig := syscall.SIGKILL
		if i%2 == 1 {
			sig = syscall.SIGINT
		}
		c := exec.Command(filepath.Join(binDir, "novel-lock"), "run", "--", "true")
		c.Dir, c.Env = p, env()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if i%4 < 2 {
			time.Sleep(time.Duration(rng.Int64N(int64(d))))
		} else {
			// Aim at acquire itself: spin until the lock directory
			// appears, then wait a random few hundred µs.
			lockDir := filepath.Join(p, ".novel.lock")
			for end := time.Now().Add(time.Second); time.Now().Before(end); {
				if _, err := os.Lstat(lockDir); err == nil {
					break
				}
			}
			time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Microsecond))))
		}
		c.Process.Signal(sig)
		c.Wait()
		label := fmt.Sprintf("trial %d (%v)", i+1, sig)
		st := statusOf(t, p)
		outcome := "no lock"
		switch {
		case !st.Exists:
		case st.Holder != nil && st.Holder.Info != "ok":
			outcome = "info-less lock"
			if sig == syscall.SIGINT {
				t.Fatalf("%s: an interrupted acquire left an info-less lock: %+v", label, st)
			}
			if !st.Stale && (st.Reason != "fresh" || st.AgeSeconds == nil || *st.AgeSeconds >= 10) {
				t.Fatalf("%s: info-less lock held for another reason than its first 10 s: %+v", label, st)
			}
			if !st.Stale {
				ageLockDir(t, p, 11*time.Second)
			}
		default:
			outcome = "stale lock (" + st.Reason + ")"
			if !st.Stale {
				t.Fatalf("%s: the killed run's lock is not stale: %+v", label, st)
			}
		}
		counts[sig.String()+": "+outcome]++
		// Acquirable now, without --force, for a live holder (this test).
		r := runIn(t, p, nil, "novel-lock", "acquire", "--pid", strconv.Itoa(os.Getpid()))
		if r.Exit != 0 {
			t.Fatalf("%s: after %s the project is not acquirable: exit %d %s", label, outcome, r.Exit, r.Stderr)
		}
		var a struct {
			Token string `json:"token"`
			Broke *struct {
				Reason string `json:"reason"`
			} `json:"broke_stale"`
		}
		json.Unmarshal([]byte(r.Stdout), &a)
		if outcome == "info-less lock" && (a.Broke == nil || a.Broke.Reason != "incomplete") {
			t.Fatalf("%s: acquire did not report the incomplete lock it broke: %s", label, r.Stdout)
		}
		if r := runIn(t, p, nil, "novel-lock", "release", "--token", a.Token); r.Exit != 0 {
			t.Fatalf("%s: release: %s", label, r.Stderr)
		}
	}
	t.Logf("%d kills inside `novel-lock run -- true` (life %s, seed %d): %v", trials, d.Round(time.Microsecond), seed, counts)
}

// watched is the part of the project a run changes as it works.
func watched(t *testing.T, p string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range tree(t, p, true) {
		if k == ".checkpoint.json" || strings.HasPrefix(k, "chapters/") || strings.HasPrefix(k, "state/") || strings.HasPrefix(k, "staging/") {
			out[k] = v
		}
	}
	return out
}

// TestGroupKillPipeline kills a pipeline the way `timeout -s KILL` and
// `kill -9 -PGID` do: SIGKILL to the process group of `make … continue`
// only (novel-lock run's command has a group of its own). The executor is
// slow (a wrapper that sleeps before the replay backend), so agent calls
// are in flight. Between kill+0.5 s and kill+5 s the checkpoint, chapters/,
// state/ and staging/ must not change (no orphan goes on working); then
// re-runs finish and the final tree equals an uninterrupted run's.
// Trials: 2 of one chapter by default, 12 of three with NOVEL_LONG_TESTS=1.
func TestGroupKillPipeline(t *testing.T) {
	trials, chapters := 2, 1
	if long {
		trials, chapters = 12, 3
	} else if testing.Short() {
		t.Skip("-short (make test): make test-long runs the group kills")
	}
	seed := killSeed()
	rng := rand.New(rand.NewPCG(seed, seed+2))
	wrapper := filepath.Join(t.TempDir(), "slow-agent.sh")
	script := "#!/bin/bash\nsleep 0.3\nexec novel-agent --backend replay --fixtures '" + replay + "' \"$1\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	clean := copyOf(t, demo)
	t0 := time.Now()
	if code, out := runPipeline(t, clean, chapters, wrapper); code != 0 {
		t.Fatalf("clean run exited %d:\n%s", code, tail(out, 20))
	}
	d := time.Since(t0)
	want := tree(t, clean, false)
	for i := range trials {
		p := copyOf(t, demo)
		c := pipelineCmd(p, chapters, wrapper)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Somewhere in the middle 80% of the run.
		delay := d/10 + time.Duration(rng.Int64N(int64(d*8/10)))
		time.Sleep(delay)
		kill := time.Now()
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
		label := fmt.Sprintf("trial %d (group SIGKILL after %s of %s)", i+1, delay.Round(time.Millisecond), d.Round(time.Millisecond))
		time.Sleep(time.Until(kill.Add(500 * time.Millisecond)))
		before := watched(t, p)
		time.Sleep(time.Until(kill.Add(5 * time.Second)))
		if diff := testkit.Diff(before, watched(t, p)); diff != "" {
			t.Fatalf("%s: the project changed between kill+0.5 s and kill+5 s (an orphan of the run is still working):\n%s", label, diff)
		}
		if st := statusOf(t, p); st.Exists && !st.Stale {
			t.Fatalf("%s: the killed run's lock is not stale: %+v", label, st)
		}
		n := finish(t, p, chapters, label, wrapper)
		if diff := testkit.Diff(want, tree(t, p, false)); diff != "" {
			t.Errorf("%s: after %d re-runs the project differs from the clean run:\n%s%s", label, n, diff, contentDiffs(clean, p, diff))
		}
	}
	t.Logf("%d group SIGKILLs of a pipeline with a slow executor (clean run %s, seed %d)", trials, d.Round(time.Millisecond), seed)
}
