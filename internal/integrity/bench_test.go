package integrity_test

import (
	"testing"

	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// The check of a 2,000-chapter project lists two folders and scans the
// changelog; it never decodes the state.
func BenchmarkCheck2000(b *testing.B) {
	dir := b.TempDir()
	o := largeproject.Options{Chapters: 2000, Volumes: 10, Characters: 50, Foreshadow: 200, StateBytes: 100000, Seed: 1, Idle: true}
	if err := largeproject.Generate(dir, o); err != nil {
		b.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if g, err := integrity.Check(root, 2000); err != nil || g != nil {
			b.Fatalf("gap %+v, err %v", g, err)
		}
	}
}
