package reliability

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/lock"
)

// pipelineCmd is `make -f pipeline.mk continue N=n` on project p with the
// replay executor (or agent), in its own process group.
func pipelineCmd(p string, n int, agent string, extraEnv ...string) *exec.Cmd {
	if agent == "" {
		agent = agentRE + replay
	}
	c := exec.Command("make", "--no-print-directory", "-f", pipeMK, "continue", "N="+strconv.Itoa(n), "PROJECT="+p, "AGENT="+agent)
	c.Dir = p
	c.Env = env(extraEnv...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// runPipeline runs the pipeline to completion and returns its exit code
// and combined output.
func runPipeline(t testing.TB, p string, n int, agent string, extraEnv ...string) (int, string) {
	t.Helper()
	c := pipelineCmd(p, n, agent, extraEnv...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		}
		t.Fatalf("make: %v", err)
	}
	return 0, out.String()
}

// killTree freezes the whole process tree under pid (lock.StopTree) and
// then SIGKILLs every process and process group in it: the pipeline dies
// at one instant, as with a power cut of the machine.
func killTree(pid int) {
	for _, p := range lock.StopTree(pid) {
		if pg, err := syscall.Getpgid(p); err == nil && pg != os.Getpid() && pg != syscall.Getpgrp() {
			syscall.Kill(-pg, syscall.SIGKILL)
		}
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// lastCompleted reads the checkpoint's last_completed_chapter (-1 when
// unreadable).
func lastCompleted(p string) int {
	data, err := os.ReadFile(filepath.Join(p, ".checkpoint.json"))
	if err != nil {
		return -1
	}
	const key = `"last_completed_chapter":`
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return -1
	}
	rest := bytes.TrimSpace(data[i+len(key):])
	j := bytes.IndexAny(rest, ",\n}")
	n, err := strconv.Atoi(string(bytes.TrimSpace(rest[:j])))
	if err != nil {
		return -1
	}
	return n
}

// incompleteLocks counts the kills that landed inside lock acquisition
// (an info-less lock, aged past its 10 s instead of waiting); staleBreaks
// the stale locks left by a kill after the last commit.
var incompleteLocks, staleBreaks int

// ageLockDir sets the lock directory's mtime back by age, as if that much
// time had passed.
func ageLockDir(t testing.TB, p string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(filepath.Join(p, ".novel.lock"), when, when); err != nil {
		t.Fatal(err)
	}
}

// finish re-runs the pipeline until chapters 1..want are committed and no
// commit journal is left; it returns how many re-runs that took.
// agent is the executor of the re-runs (the pipeline's default when empty
// or absent).
func finish(t *testing.T, p string, want int, label string, agent ...string) int {
	t.Helper()
	for i := 1; i <= 6; i++ {
		lc := lastCompleted(p)
		if lc < 0 {
			t.Fatalf("%s: checkpoint unreadable after the kill", label)
		}
		journals, _ := filepath.Glob(filepath.Join(p, "staging", "commit-*.journal.json"))
		if lc >= want && len(journals) == 0 {
			if fileExists(filepath.Join(p, ".novel.lock")) {
				// Killed after the last commit, before `novel-lock run`
				// released the lock: its holder is dead, so the lock is
				// stale and the next acquire would break it. `break`
				// without --force proves it is stale. Killed inside that
				// acquire, before its info.json, the lock is held for 10 s
				// (SPEC §4): age it as below, then it must be stale.
				r := runIn(t, p, nil, "novel-lock", "break")
				if r.Exit != 0 && infoLessFresh(r.Stderr) {
					ageLockDir(t, p, 11*time.Second)
					incompleteLocks++
					r = runIn(t, p, nil, "novel-lock", "break")
				}
				if r.Exit != 0 {
					t.Fatalf("%s: lock left after the kill is not stale: %s", label, r.Stderr)
				}
				staleBreaks++
			}
			return i - 1
		}
		n := want - lc
		if n < 1 {
			n = 1 // only a journal is left: one run resumes the commit
		}
		code, out := runPipeline(t, p, n, strings.Join(agent, ""))
		if code != 0 && infoLessFresh(out) {
			// Killed inside acquire, between the lock's mkdir and its
			// info.json, less than 10 s ago: SPEC §4 holds such a directory
			// that long (it may be a shell's mkdir about to write its info),
			// never lock_stale_minutes. Age it instead of waiting; the next
			// run must then break it by itself (no --force).
			ageLockDir(t, p, 11*time.Second)
			incompleteLocks++
			continue
		}
		if code != 0 {
			t.Fatalf("%s: re-run %d (continue N=%d) exited %d:\n%s", label, i, n, code, tail(out, 15))
		}
	}
	t.Fatalf("%s: not finished after 6 re-runs (last_completed %d)", label, lastCompleted(p))
	return 0
}

// infoLessFresh: out reports a lock whose info.json is missing and which
// is younger than 10 s, so it still counts as held.
func infoLessFresh(out string) bool {
	return strings.Contains(out, `"code":"E_LOCK_HELD"`) && strings.Contains(out, `"reason":"fresh"`) &&
		strings.Contains(out, `"info":"missing"`)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// since is a small helper for progress logs.
func since(t0 time.Time) string { return time.Since(t0).Round(time.Millisecond).String() }
