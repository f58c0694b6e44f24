package demo_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/settings"
)

// TestRecordingsAgainstPreviousChapter: the repetition lint also compares
// a chapter with the one before it (SPEC §24: a sentence frame the previous
// chapter used), which lintRecording cannot see; every recorded draft and
// refine is checked against the previous chapter's final recording.
func TestRecordingsAgainstPreviousChapter(t *testing.T) {
	// the version a chapter was committed in: its polish, else the last
	// round's refine
	final := func(c int) string {
		d := chapterDir(c)
		for _, n := range []string{"style-refiner.polish.r0.md", "style-refiner.refine.r1.md", "style-refiner.refine.r0.md"} {
			if b, err := os.ReadFile(filepath.Join(d, n)); err == nil {
				return string(b)
			}
		}
		return ""
	}
	r := root(t)
	s, err := settings.Load(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := lint.LoadConfig(r, s)
	if err != nil {
		t.Fatal(err)
	}
	for c := 2; c <= 6; c++ {
		versions, err := filepath.Glob(filepath.Join(chapterDir(c), "*.md"))
		if err != nil || len(versions) == 0 {
			t.Fatalf("chapter %d: no recordings (%v)", c, err)
		}
		for _, path := range versions {
			n := filepath.Base(path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rep := lint.Run(lint.Input{Chapter: c, File: n, Stage: lint.StageRefine, Text: string(b), Previous: final(c - 1)}, cfg)
			for _, ch := range rep.Checks {
				if (ch.ID == lint.Repetition || ch.ID == lint.SummaryLines) && ch.Count > 0 {
					t.Errorf("chapter %d %s: lint %s: %s %v", c, n, ch.ID, ch.Detail, ch.Evidence)
				}
			}
		}
	}
}
