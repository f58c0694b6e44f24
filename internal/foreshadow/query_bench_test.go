package foreshadow_test

import (
	"sync"
	"testing"

	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// The large project (2,000 chapters, 2,000 items) is generated on the
// first benchmark run and cached (largeproject.Cached).
var (
	benchOnce sync.Once
	benchRoot *project.Root
	benchErr  error
)

func largeRoot(b *testing.B) *project.Root {
	benchOnce.Do(func() {
		var dir string
		if dir, benchErr = largeproject.Cached(largeproject.Options{Seed: 1}); benchErr == nil {
			benchRoot, benchErr = project.New(dir)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRoot
}

// BenchmarkLoadAndQuery is what `novel-foreshadow query` does besides
// process start: read both layers, select, encode the result.
func BenchmarkLoadAndQuery(b *testing.B) {
	root := largeRoot(b)
	c := largeproject.Options{}.Inflight()
	b.ReportAllocs()
	for b.Loop() {
		g, err := foreshadow.LoadGlobalLight(root) // as the command does
		if err != nil {
			b.Fatal(err)
		}
		p, err := foreshadow.LoadPlan(root, 10)
		if err != nil {
			b.Fatal(err)
		}
		res := foreshadow.Query(g, p, c, 10)
		if _, err := jsonio.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuery isolates the selection over parsed items.
func BenchmarkQuery(b *testing.B) {
	root := largeRoot(b)
	g, err := foreshadow.LoadGlobal(root)
	if err != nil {
		b.Fatal(err)
	}
	p, err := foreshadow.LoadPlan(root, 10)
	if err != nil {
		b.Fatal(err)
	}
	c := largeproject.Options{}.Inflight()
	b.ReportAllocs()
	for b.Loop() {
		foreshadow.Query(g, p, c, 10)
	}
}

// BenchmarkParseGlobal isolates decoding foreshadowing/global.json.
func BenchmarkParseGlobal(b *testing.B) {
	root := largeRoot(b)
	data, err := root.ReadFile(layout.GlobalForeshadow)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := foreshadow.Parse(data, layout.GlobalForeshadow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeGlobal rewrites foreshadowing/global.json as a commit
// that moves foreshadowing does.
func BenchmarkEncodeGlobal(b *testing.B) {
	root := largeRoot(b)
	f, err := foreshadow.LoadGlobalFile(root)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Encode(f.Items); err != nil {
			b.Fatal(err)
		}
	}
}
