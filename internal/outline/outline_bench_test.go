package outline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// BenchmarkParseAndBlock scans the last volume outline of the SPEC §14
// project (≈210 chapter headings) and extracts one chapter's block, as
// novel-outline and every packet do.
func BenchmarkParseAndBlock(b *testing.B) {
	o := largeproject.Options{Seed: 1}
	dir, err := largeproject.Cached(o)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(layout.Outline(10))))
	if err != nil {
		b.Fatal(err)
	}
	c := o.Inflight()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ol, err := outline.Parse(data, layout.Outline(10), 10)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ol.Block(c); err != nil {
			b.Fatal(err)
		}
	}
}
