package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// Templates built once per run from the demo: chapter 1 (a key chapter:
// two judges) taken through the real binaries and replay recordings.
//   - judged: draft, summarize, refine and both judges advanced; next is gate.
//   - gated:  judged + `novel-gate decide --apply` (pass); next is commit.
var (
	fixOnce                      sync.Once
	fixBase, fixJudged, fixGated string
	fixErr                       string
)

func fixtures(t testing.TB) (judged, gated string) {
	t.Helper()
	fixOnce.Do(func() { buildFixtures(t) })
	if fixErr != "" {
		t.Fatal(fixErr)
	}
	return fixJudged, fixGated
}

func buildFixtures(t testing.TB) {
	base, err := os.MkdirTemp("", "novel-reliability-fix-")
	fixBase = base
	if err != nil {
		fixErr = err.Error()
		return
	}
	p := filepath.Join(base, "judged")
	if err := testkit.CopyTree(demo, p, true); err != nil {
		fixErr = err.Error()
		return
	}
	must := func(r Result, what string) bool {
		if r.Exit != 0 {
			fixErr = what + ": " + r.Stderr
			return false
		}
		return true
	}
	for _, st := range []string{"draft", "summarize", "refine", "judge"} {
		roles := []string{""}
		if st == "judge" {
			roles = []string{"", "secondary"}
		}
		for _, role := range roles {
			args := []string{"packet", "chapter:001:" + st, "--write-manifest", "--jq", ".written_manifest_path"}
			out := "staging/evaluations/chapter-001-eval.json"
			if role != "" {
				args = append(args, "--role", role)
				out = "staging/evaluations/chapter-001-eval.secondary.json"
			}
			r := runIn(t, p, nil, "novel-manifest", args...)
			if !must(r, "packet "+st) {
				return
			}
			r = runIn(t, p, nil, "novel-agent", "--backend", "replay", "--fixtures", replay, strings.TrimSpace(r.Stdout))
			if !must(r, "agent "+st) {
				return
			}
			if st == "judge" {
				os.MkdirAll(filepath.Join(p, "staging", "evaluations"), 0o755)
				if err := os.WriteFile(filepath.Join(p, out), []byte(r.Stdout), 0o644); err != nil {
					fixErr = err.Error()
					return
				}
			}
		}
		if !must(runIn(t, p, nil, "novel-step", "advance", "chapter:001:"+st), "advance "+st) {
			return
		}
	}
	// Validation of a step after later advances sees the checkpoint changed
	// since its snapshot (E_WRITE_BOUNDARY); without snapshots validate
	// skips that check, so the matrix tests what validate reads.
	snaps, _ := filepath.Glob(filepath.Join(p, "staging", "manifests", "*.snapshot"))
	for _, s := range snaps {
		os.Remove(s)
	}
	g := filepath.Join(base, "gated")
	if err := testkit.CopyTree(p, g, true); err != nil {
		fixErr = err.Error()
		return
	}
	if !must(runIn(t, g, nil, "novel-gate", "decide", "--chapter", "1", "--apply"), "gate apply") {
		return
	}
	fixJudged, fixGated = p, g
}
