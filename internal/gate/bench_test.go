package gate_test

import (
	"os"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// BenchmarkDecisionLargeProject computes the gate decision of the SPEC §14
// project's in-flight chapter (judged, with its staging chapter, evals and
// the registered terms of 300 characters and a 5 MiB state) as
// `novel-gate decide` does; the whole-process target is ≤ 10 ms.
// NOVEL_GATE_BENCH_PROJECT names another project (e.g. make bench's
// .bench/…-dense/work).
func BenchmarkDecisionLargeProject(b *testing.B) {
	o := largeproject.Options{}
	dir := os.Getenv("NOVEL_GATE_BENCH_PROJECT")
	if dir == "" {
		dir = b.TempDir()
		if err := largeproject.Generate(dir, o); err != nil {
			b.Fatal(err)
		}
	}
	root, err := project.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cp, err := checkpoint.Load(root)
		if err != nil {
			b.Fatal(err)
		}
		set, err := settings.Load(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := gate.Decision(root, cp, set, cp.Inflight); err != nil {
			b.Fatal(err)
		}
	}
}
