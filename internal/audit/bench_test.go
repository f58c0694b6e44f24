package audit

import (
	"os"
	"testing"

	"github.com/novelsuite/novel/internal/project"
)

// BenchmarkContinuity audits the window ending at the last chapter of the
// project in NOVEL_AUDIT_BENCH_PROJECT (e.g. make bench's generated
// 2,000-chapter project under .bench/); skipped without it.
func BenchmarkContinuity(b *testing.B) {
	dir := os.Getenv("NOVEL_AUDIT_BENCH_PROJECT")
	if dir == "" {
		b.Skip("set NOVEL_AUDIT_BENCH_PROJECT to a generated project")
	}
	root, err := project.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Continuity(root, 0, DefaultWindow, "2026-01-01T00:00:00Z"); err != nil {
			b.Fatal(err)
		}
	}
}
