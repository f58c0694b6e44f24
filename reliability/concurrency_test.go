package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/errs"
)

// interval is one holder's [start, end] in nanoseconds of the real clock.
type interval struct {
	who        string
	start, end int64
}

// overlaps returns a description of the first two intervals that overlap.
func overlaps(iv []interval) string {
	sort.Slice(iv, func(i, j int) bool { return iv[i].start < iv[j].start })
	for i := 1; i < len(iv); i++ {
		if iv[i].start < iv[i-1].end {
			return fmt.Sprintf("%s [%d,%d] overlaps %s [%d,%d]", iv[i-1].who, iv[i-1].start, iv[i-1].end, iv[i].who, iv[i].start, iv[i].end)
		}
	}
	return ""
}

// readAgentLog parses the wrapper agent's "start|end PID NANOS PACKET"
// lines into one interval per agent run.
func readAgentLog(t *testing.T, path string) []interval {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	open := map[string]int64{}
	var out []interval
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			t.Fatalf("bad agent log line %q", sc.Text())
		}
		ns, _ := strconv.ParseInt(fs[2], 10, 64)
		switch fs[0] {
		case "start":
			open[fs[1]] = ns
		case "end":
			out = append(out, interval{who: "agent pid " + fs[1], start: open[fs[1]], end: ns})
			delete(open, fs[1])
		}
	}
	if len(open) > 0 {
		t.Fatalf("agent runs without an end line: %v", open)
	}
	return out
}

// TestConcurrentPipelines starts N `make … continue` runs on one project at
// once. Exactly one proceeds (its first agent waits until every other run
// has exited, so they all really race it); the others exit at once naming
// the holder (E_LOCK_HELD, make exit 2 with the error JSON as the last
// stderr line). Agent runs never overlap, every chapter is committed once
// and no changelog line is duplicated.
func TestConcurrentPipelines(t *testing.T) {
	runs := 4
	switch {
	case long:
		runs = 12
	case testing.Short():
		runs = 2 // make test; the race needs only two
	}
	p := copyOf(t, demo)
	dir := t.TempDir()
	agentLog := filepath.Join(dir, "agent.log")
	gate := filepath.Join(dir, "go")
	wrapper := filepath.Join(dir, "agent.sh")
	// The wrapper records each run of the real executor; the first run
	// waits for the test's go signal (bounded, so a bug cannot hang it).
	script := `#!/bin/bash
for i in $(seq 600); do [ -e "` + gate + `" ] && break; sleep 0.05; done
echo "start $$ $(date +%s%N) $1" >> "` + agentLog + `"
novel-agent --backend replay --fixtures "` + replay + `" "$1"; rc=$?
echo "end $$ $(date +%s%N) $1" >> "` + agentLog + `"
exit $rc
`
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	type res struct {
		code int
		out  string
	}
	results := make([]res, runs)
	cmds := make([]*exec.Cmd, runs)
	outs := make([]*strings.Builder, runs)
	for i := range runs {
		cmds[i] = pipelineCmd(p, chaptersN, wrapper)
		outs[i] = &strings.Builder{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	finished := make(chan int, runs)
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			results[i] = res{code, outs[i].String()}
			finished <- i
		}()
	}
	// Every run but the holder exits on its own; then let the holder go.
	for range runs - 1 {
		select {
		case <-finished:
		case <-time.After(60 * time.Second):
			os.WriteFile(gate, nil, 0o644)
			wg.Wait()
			t.Fatalf("fewer than %d runs were refused while one held the lock", runs-1)
		}
	}
	os.WriteFile(gate, nil, 0o644)
	wg.Wait()

	winners := 0
	for i, r := range results {
		switch r.code {
		case 0:
			winners++
		default:
			lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
			var errLine string
			for j := len(lines) - 1; j >= 0; j-- {
				if strings.HasPrefix(lines[j], `{"error"`) {
					errLine = lines[j]
					break
				}
			}
			if e := errs.ParseLine([]byte(errLine)); e == nil || e.Code != errs.LockHeld || e.Details == nil {
				t.Errorf("run %d: exit %d without an E_LOCK_HELD error naming the holder:\n%s", i, r.code, tail(r.out, 8))
			}
		}
	}
	if winners != 1 {
		t.Fatalf("%d runs proceeded, want exactly 1", winners)
	}
	if lc := lastCompleted(p); lc != chaptersN {
		t.Fatalf("last_completed_chapter %d, want %d", lc, chaptersN)
	}
	iv := readAgentLog(t, agentLog)
	if o := overlaps(iv); o != "" {
		t.Errorf("two agents ran at once: %s", o)
	}
	checkCommittedOnce(t, p, chaptersN)
	t.Logf("%d concurrent pipelines: 1 proceeded, %d refused; %d agent runs, none overlapping", runs, runs-1, len(iv))
}

// checkCommittedOnce: the changelog has one line per chapter 1..n, in
// order, no line twice, and state versions strictly increasing.
func checkCommittedOnce(t *testing.T, p string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(p, "state", "changelog.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	seen := map[string]bool{}
	var chapters []int
	last := -1
	for _, l := range lines {
		if seen[l] {
			t.Errorf("changelog line duplicated: %s", l)
		}
		seen[l] = true
		var e struct {
			Chapter      int `json:"chapter"`
			StateVersion int `json:"state_version"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("changelog line does not parse: %v", err)
		}
		if e.StateVersion <= last {
			t.Errorf("state_version %d after %d", e.StateVersion, last)
		}
		last = e.StateVersion
		chapters = append(chapters, e.Chapter)
	}
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	if fmt.Sprint(chapters) != fmt.Sprint(want) {
		t.Errorf("changelog chapters %v, want %v (each committed exactly once)", chapters, want)
	}
}

// TestConcurrentLockAcquire runs parallel acquire/release loops on one
// project, with stale locks (a dead holder's pid) thrown in to make the
// contenders race to break them. Each holder's interval — from acquire's
// success to just before its release — must not overlap another's; every
// refusal is exit 4 E_LOCK_HELD.
func TestConcurrentLockAcquire(t *testing.T) {
	workers, rounds := 4, 12
	if long {
		workers, rounds = 8, 60
	}
	p := copyOf(t, demo)
	var mu sync.Mutex
	var held []interval
	var acquired, refused, staleMade int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if w == 0 && i%4 == 3 {
					// Leave a stale lock behind: a holder whose pid is dead,
					// which the other workers then race to break.
					sl := exec.Command("sleep", "30")
					if sl.Start() != nil {
						continue
					}
					for try := 0; try < 200; try++ {
						r := runIn(t, p, nil, "novel-lock", "acquire", "--pid", strconv.Itoa(sl.Process.Pid))
						if r.Exit == 0 {
							start := time.Now().UnixNano()
							time.Sleep(time.Millisecond)
							mu.Lock()
							staleMade++
							held = append(held, interval{who: fmt.Sprintf("pid %d (then killed)", sl.Process.Pid), start: start, end: time.Now().UnixNano()})
							mu.Unlock()
							break
						}
						if r.Exit != 4 {
							t.Errorf("acquire --pid exit %d: %s", r.Exit, r.Stderr)
							break
						}
					}
					sl.Process.Kill()
					sl.Wait()
					continue
				}
				r := runIn(t, p, nil, "novel-lock", "acquire", "--chapter", "1")
				switch r.Exit {
				case 0:
					start := time.Now().UnixNano()
					var info struct {
						Token string `json:"token"`
					}
					if err := json.Unmarshal([]byte(r.Stdout), &info); err != nil || info.Token == "" {
						t.Errorf("acquire printed no token: %q", r.Stdout)
						return
					}
					time.Sleep(2 * time.Millisecond)
					end := time.Now().UnixNano()
					rel := runIn(t, p, nil, "novel-lock", "release", "--token", info.Token)
					if rel.Exit != 0 {
						t.Errorf("release of our own lock failed: %s", rel.Stderr)
					}
					mu.Lock()
					acquired++
					held = append(held, interval{who: fmt.Sprintf("worker %d round %d", w, i), start: start, end: end})
					mu.Unlock()
				case 4:
					if code, raw := r.LastErr(); code != "E_LOCK_HELD" {
						t.Errorf("exit 4 with %s", raw)
					}
					mu.Lock()
					refused++
					mu.Unlock()
				default:
					t.Errorf("acquire exit %d: %s", r.Exit, r.Stderr)
				}
			}
		}()
	}
	wg.Wait()
	if o := overlaps(held); o != "" {
		t.Errorf("two holders at once: %s", o)
	}
	if acquired == 0 {
		t.Error("no worker ever acquired the lock")
	}
	t.Logf("lock loops: %d acquired, %d refused (exit 4), %d stale locks broken by contenders", acquired, refused, staleMade)
}
