package manifest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// BenchmarkSelectCharactersByRecency is the L2 ranking without contract
// names: 300 characters against the previous 10 summaries.
func BenchmarkSelectCharactersByRecency(b *testing.B) {
	o := largeproject.Options{Seed: 1}
	dir, err := largeproject.Cached(o)
	if err != nil {
		b.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "characters", "active", "*.json"))
	if err != nil || len(files) == 0 {
		b.Fatal("no characters", err)
	}
	var chars []manifest.Character
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var v struct {
			DisplayName string `json:"display_name"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		chars = append(chars, manifest.Character{Slug: strings.TrimSuffix(filepath.Base(f), ".json"), DisplayName: v.DisplayName})
	}
	var sums []manifest.SummaryText
	for c := o.Inflight() - 1; c >= o.Inflight()-manifest.RecentSummaryWindow; c-- {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(layout.Summary(c))))
		if err != nil {
			b.Fatal(err)
		}
		sums = append(sums, manifest.SummaryText{Chapter: c, Text: string(data)})
	}
	b.ReportAllocs()
	for b.Loop() {
		slugs, _ := manifest.SelectCharacters(chars, nil, sums)
		if len(slugs) != manifest.MaxDefaultCharacters {
			b.Fatalf("selected %d characters", len(slugs))
		}
	}
}
