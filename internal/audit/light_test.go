package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// Lines before the window are skipped on their leading chapter when they
// hold no status op; the window is the one the full split gives (the same
// changelog with a space before each line takes the full path).
func TestChangelogSkipSameWindow(t *testing.T) {
	dir, cl, lines := generatedChangelog(t, largeproject.Options{Chapters: 240, Volumes: 2, Characters: 60, Foreshadow: 300, StateBytes: 200 << 10, Profile: largeproject.Dense})
	// A status op long before the window: a character dies at chapter 3.
	lines[2] = bytes.Replace(lines[2], []byte(`"ops":[`), []byte(`"ops":[{"op":"set","path":"characters.char-001.status","value":"dead"},`), 1)
	report := func() string {
		root, _ := project.New(dir)
		r, err := audit.Continuity(root, 0, audit.DefaultWindow, "2026-01-01T00:00:00Z")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := jsonio.Marshal(r)
		return string(b)
	}
	os.WriteFile(cl, bytes.Join(lines, nil), 0o644)
	fast := report()
	var spaced []byte
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			spaced = append(spaced, ' ')
		}
		spaced = append(spaced, l...)
	}
	os.WriteFile(cl, spaced, 0o644)
	if full := report(); fast != full {
		t.Fatalf("windows differ:\n%s\n%s", fast, full)
	}
}

// The commit's periodic audit trusts the changelog lines it does not use,
// as it trusts the state it has just written: every commit checked its own
// line, and rebuild --check judges the file. A damaged line before the
// window without a status op stops the standalone audit (it names the
// line) but not the commit's, which audits its window and says nothing.
func TestPeriodicTrustsOldChangelogLines(t *testing.T) {
	dir, cl, lines := generatedChangelog(t, largeproject.Options{Chapters: 40, Volumes: 2, Characters: 20, Foreshadow: 50, StateBytes: 50 << 10})
	if !bytes.HasPrefix(lines[2], []byte(`{"chapter":3,`)) {
		t.Fatalf("line 3 is %s", lines[2])
	}
	lines[2] = append(bytes.TrimSuffix(lines[2], []byte("}\n")), '\n') // one closing brace short
	if err := os.WriteFile(cl, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := project.New(dir)
	if _, err := audit.Continuity(root, 0, audit.DefaultWindow, "2026-01-01T00:00:00Z"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("standalone audit: %v, want line 3 named", err)
	}
	briefs, warnings := audit.Periodic(root, 40, 2, false, "2026-01-01T00:00:00Z", nil)
	if len(warnings) > 0 || briefs.Continuity == nil || briefs.Inventories == nil {
		t.Fatalf("periodic audit: warnings %v, continuity %v, inventories %v", warnings, briefs.Continuity, briefs.Inventories)
	}
}

// generatedChangelog generates o and returns the project, its changelog's
// path and the changelog's lines, each with its newline.
func generatedChangelog(t *testing.T, o largeproject.Options) (dir, cl string, lines [][]byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "p")
	if err := largeproject.Generate(dir, o); err != nil {
		t.Fatal(err)
	}
	cl = filepath.Join(dir, "state", "changelog.jsonl")
	data, err := os.ReadFile(cl)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cl, bytes.SplitAfter(data, []byte("\n"))
}
