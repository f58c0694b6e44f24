package largeproject_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/step"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// small is a scaled-down project: the same shapes as the benchmark one,
// generated in well under a second.
var small = largeproject.Options{Chapters: 50, Volumes: 2, Characters: 30, Foreshadow: 100, StateBytes: 200 << 10, Seed: 7}

func generate(t *testing.T, o largeproject.Options) *project.Root {
	t.Helper()
	dir := t.TempDir()
	if err := largeproject.Generate(dir, o); err != nil {
		t.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func next(t *testing.T, root *project.Root) *step.Next {
	t.Helper()
	cp, err := checkpoint.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := settings.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := step.ComputeNext(root, cp, s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The generated changelog replays to the state exactly (the same check as
// `novel-commit rebuild --check`), and the inflight chapter is ready for
// its gate.
func TestGeneratedProjectIsConsistent(t *testing.T) {
	root := generate(t, small)
	res, err := commit.Check(root)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matches || res.LinesReplayed != small.Chapters || res.StateVersion != small.Chapters {
		t.Fatalf("rebuild check: %+v", res)
	}
	if n := next(t, root); n.Step != "chapter:051:gate" || n.Reason != "ready_gate" {
		t.Fatalf("next = %s (%s), want chapter:051:gate (ready_gate)", n.Step, n.Reason)
	}
	ol, err := outline.Load(root, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ol.Block(small.Inflight()); err != nil {
		t.Fatal(err)
	}
	if _, err := foreshadow.LoadGlobal(root); err != nil {
		t.Fatal(err)
	}
}

// The idle variant starts the next chapter fresh, and the replay
// recordings cover every agent step of it.
func TestIdleProjectAndReplay(t *testing.T) {
	o := small
	o.Idle = true
	root := generate(t, o)
	if n := next(t, root); n.Step != "chapter:051:draft" || n.Reason != "fresh" {
		t.Fatalf("next = %s (%s), want chapter:051:draft (fresh)", n.Step, n.Reason)
	}
	if root.Exists(layout.StagingChapter(o.Inflight())) {
		t.Fatal("idle project has a staging chapter")
	}
	replay := t.TempDir()
	if err := largeproject.WriteReplay(replay, o); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"chapter-writer.draft.r0.md", "summarizer.summarize.r0.json", "style-refiner.refine.r0.md", "quality-judge.primary.r0.json"} {
		if _, err := os.Stat(filepath.Join(replay, "chapter-051", f)); err != nil {
			t.Error(err)
		}
	}
}

// The same options give byte-identical projects.
func TestDeterministic(t *testing.T) {
	a, b := generate(t, small), generate(t, small)
	for _, rel := range []string{layout.CurrentState, layout.Changelog, layout.GlobalForeshadow, layout.Outline(1), layout.Checkpoint, layout.Eval(10), layout.ChapterLog(10)} {
		x, err := a.ReadFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		y, err := b.ReadFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", rel)
		}
	}
}
