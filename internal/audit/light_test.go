package audit_test

import (
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// The continuity audit reads the foreshadowing light and parses in full
// only the items that look dormant: its report must be the one a window
// of fully parsed items gives, on both generator profiles (the dense one
// has a third of its items dormant for > 100 chapters, with histories).
func TestContinuityLightItemsSameReport(t *testing.T) {
	for _, profile := range []string{"", largeproject.Dense} {
		dir := filepath.Join(t.TempDir(), "p")
		o := largeproject.Options{Chapters: 240, Volumes: 2, Characters: 40, Foreshadow: 300, StateBytes: 200 << 10, Profile: profile}
		if err := largeproject.Generate(dir, o); err != nil {
			t.Fatal(err)
		}
		root, _ := project.New(dir)
		got, err := audit.Continuity(root, 0, audit.DefaultWindow, "2026-01-01T00:00:00Z")
		if err != nil {
			t.Fatal(err)
		}
		w, err := audit.Load(root, o.Chapters-audit.DefaultWindow+1, o.Chapters)
		if err != nil {
			t.Fatal(err)
		}
		want := w.Run("2026-01-01T00:00:00Z")
		g, _ := jsonio.Marshal(got)
		x, _ := jsonio.Marshal(want)
		if string(g) != string(x) {
			t.Fatalf("profile %q: light and full reports differ", profile)
		}
		if want.Stats.ByType[audit.DormantForeshadowing] == 0 {
			t.Fatalf("profile %q: no dormant item to compare", profile)
		}
	}
}
