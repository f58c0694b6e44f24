package commit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// BenchmarkCommit commits the inflight chapter of a gated project (make
// bench's .bench/…/gated, e.g. the 10th-chapter one) in a fresh copy per
// run, for profiling the commit in-process (-cpuprofile); skipped without
// NOVEL_COMMIT_BENCH_PROJECT. The copy is not timed.
func BenchmarkCommit(b *testing.B) {
	src := os.Getenv("NOVEL_COMMIT_BENCH_PROJECT")
	if src == "" {
		b.Skip("set NOVEL_COMMIT_BENCH_PROJECT to a gated generated project")
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "p")
		if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		root, err := project.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		cp, err := checkpoint.Load(root)
		if err != nil {
			b.Fatal(err)
		}
		env := Env{Root: root, Settings: settings.Defaults(), Now: "2026-11-02T00:00:00Z"}
		b.StartTimer()
		j, err := Prepare(env, cp.Inflight)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Execute(env, j, true); err != nil {
			b.Fatal(err)
		}
	}
}
