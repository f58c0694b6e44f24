package manifest

import (
	"os"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// BenchmarkPacketLargeProject builds draft, summarize and judge packets
// on the SPEC §14 project (2,000 chapters, 300 characters, 2,000
// foreshadowing items) and reports their token estimates; the
// whole-process target is ≤ 30 ms, the estimates ≤ 24,000 (draft) and
// ≤ 16,000 (summarize). NOVEL_MANIFEST_BENCH_PROJECT names another
// project to build them in instead (e.g. make bench's dense one under
// .bench/…-dense/work, whose in-flight chapter is 2001).
func BenchmarkPacketLargeProject(b *testing.B) {
	o := largeproject.Options{}
	dir := os.Getenv("NOVEL_MANIFEST_BENCH_PROJECT")
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
	c := o.Inflight()
	for _, stage := range []string{stepid.Draft, stepid.Summarize, stepid.Judge} {
		b.Run(stage, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cp, err := checkpoint.Load(root)
				if err != nil {
					b.Fatal(err)
				}
				set, err := settings.Load(root, nil)
				if err != nil {
					b.Fatal(err)
				}
				p, err := Build(root, cp, set, stepid.Chapter(c, stage), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					b.ReportMetric(float64(p.Estimate.Tokens), "tokens") // SPEC §19's estimate
				}
			}
		})
	}
}
