package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// TestBadInputMatrix corrupts every file the suite reads, in every way of
// `corruptions`, and runs each command that reads it. Every run must end
// in the documented outcome (expect), name the file on failure, never
// panic or exit 2, and write nothing when it fails (whole-tree hash with
// mtimes before and after). MATRIX_SURVEY=FILE writes the observed outcomes to FILE
// instead of asserting them.
func TestBadInputMatrix(t *testing.T) {
	judged, gated := fixtures(t)
	base := baselines(t, judged, gated)
	survey := os.Getenv("MATRIX_SURVEY") != ""
	var mu sync.Mutex
	// Runs are mostly process start-up and I/O: more than GOMAXPROCS at once.
	sem := make(chan struct{}, 6)
	var report []string
	var runs int
	for _, r := range rows {
		r := r
		t.Run(r.fixture+"/"+r.rel, func(t *testing.T) {
			t.Parallel()
			src := judged
			if r.fixture == "gated" {
				src = gated
			}
			var wg sync.WaitGroup
			defer wg.Wait()
			for _, k := range corruptions {
				if testing.Short() && !shortCorruptions[k.name] {
					continue // make test-long runs every corruption
				}
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					matrixCase(t, r, k, src, base, survey, &mu, &report, &runs)
				}()
			}
		})
	}
	t.Cleanup(func() {
		if survey {
			sort.Strings(report)
			os.WriteFile(os.Getenv("MATRIX_SURVEY"), []byte(strings.Join(report, "\n")+"\n"), 0o644)
		}
		t.Logf("bad-input matrix: %d runs", runs)
	})
}

// shortCorruptions are the ones make test (-short) runs on every file: one
// of each way a read fails — absence, syntax, encoding, shape, containment
// and size. The rest (empty, BOM, wrong top type, a directory, 10 MiB valid
// and garbage) run in make test-long.
var shortCorruptions = map[string]bool{"missing": true, "not-json": true, "not-utf8": true,
	"wrong-field-types": true, "symlink-outside": true, "over-32MiB": true}

// checkInvariants holds for every run whatever the case.
func checkInvariants(t *testing.T, label string, r row, c cmd, got Result, before, after map[string]string) {
	t.Helper()
	for _, bad := range []string{"panic", "goroutine ", "internal error", "runtime error", "内部错误"} {
		if strings.Contains(got.Stderr, bad) {
			t.Errorf("%s: crashed (%q in stderr):\n%s", label, bad, got.Stderr)
		}
	}
	if got.Exit == 2 || got.Exit > 4 || got.Exit < 0 {
		t.Errorf("%s: exit %d (want 0, 1, 3 or 4)\n%s", label, got.Exit, got.Stderr)
	}
	if got.Exit != 0 {
		if got.Stdout != "" {
			t.Errorf("%s: failed with stdout %q", label, got.Stdout)
		}
		if code, raw := got.LastErr(); code == "" {
			t.Errorf("%s: last stderr line is not an error object: %q", label, raw)
		}
	}
	if got.Exit != 0 || !c.writer {
		if d := testkit.Diff(before, after); d != "" {
			t.Errorf("%s: exit %d but the project changed:\n%s\nstderr: %s", label, got.Exit, d, got.Stderr)
		}
	}
}

// matrixCase runs every reader of row r against one corruption k.
func matrixCase(t *testing.T, r row, k corruption, src string, base map[string]Result, survey bool,
	mu *sync.Mutex, report *[]string, runs *int) {
	p := copyOf(t, src)
	if r.original != "" {
		writeAt(t, p, r.rel, []byte(r.original))
	}
	orig, _ := os.ReadFile(filepath.Join(p, filepath.FromSlash(r.rel)))
	if r.kind == "lockinfo" && orig == nil {
		orig = []byte(`{"pid":1,"host":"elsewhere","started":"2026-11-01T08:00:00Z","heartbeat":"2026-11-01T08:00:00Z","chapter":1,"token":"t"}` + "\n")
	}
	if !k.apply(t, p, r.rel, orig, r.kind) {
		return
	}
	for _, c := range r.cmds {
		before := tree(t, p, true)
		got := runCmd(t, p, c)
		after := tree(t, p, true)
		o := outcome{exit: got.Exit}
		o.code, _ = got.LastErr()
		bk := r.fixture + "|" + c.String()
		if r.original != "" {
			bk += "|" + r.rel
		}
		b := base[bk]
		mu.Lock()
		*runs++
		if survey {
			same := ""
			if got.Exit == 0 && got.Stdout == b.Stdout {
				same = " =base"
			}
			*report = append(*report, fmt.Sprintf("%-8s %-55s %-18s %-62s %s%s", r.fixture, r.rel, k.name, c.String(), o, same))
		}
		mu.Unlock()
		label := fmt.Sprintf("[%s] %s, %s: %s", r.fixture, r.rel, k.name, c)
		checkInvariants(t, label, r, c, got, before, after)
		if !survey {
			checkExpected(t, label, r, k.name, c, got, b)
		}
		if got.Exit == 0 && c.writer {
			break // the project moved on; later commands would test something else
		}
	}
}
