package largeproject_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
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
	n, err := step.ComputeNext(root, cp, s, "")
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
	res, err := changelog.Check(root)
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

// The dense profile (SPEC §14) is consistent too, and has what makes it
// dense: items owned by characters with holder histories, factions of
// members, locations of residents, changelog lines of 10–30 ops, accepted
// revision files every 100 chapters, a third of the items dormant.
func TestDenseProfile(t *testing.T) {
	o := small
	o.Chapters, o.Characters, o.Profile = 200, 60, largeproject.Dense
	root := generate(t, o)
	res, err := changelog.Check(root)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matches || res.LinesReplayed != o.Chapters {
		t.Fatalf("rebuild check: %+v", res)
	}
	if n := next(t, root); n.Step != "chapter:201:gate" {
		t.Fatalf("next = %s (%s), want chapter:201:gate", n.Step, n.Reason)
	}
	state, _ := root.ReadFile(layout.CurrentState)
	for _, want := range []string{`"holder_history": [`, `"members": [`, `"residents": [`, `"owner": "char-`, `"background": "`} {
		if !bytes.Contains(state, []byte(want)) {
			t.Errorf("dense state has no %s", want)
		}
	}
	changelog, _ := root.ReadFile(layout.Changelog)
	for i, line := range bytes.Split(bytes.TrimSpace(changelog), []byte("\n")) {
		if n := bytes.Count(line, []byte(`"op":`)); n < 10 || n > 30 {
			t.Fatalf("changelog line %d has %d ops, want 10–30", i+1, n)
		}
	}
	for _, c := range []int{100, 200} {
		data, err := root.ReadFile(layout.Revision(c))
		if err != nil || !bytes.Contains(data, []byte(`"status": "accepted"`)) {
			t.Errorf("chapter %d: no accepted revision file (%v)", c, err)
		}
	}
	items, err := foreshadow.LoadGlobal(root)
	if err != nil {
		t.Fatal(err)
	}
	dormant := 0
	for i := range items {
		if since, ok := foreshadow.Dormant(&items[i], o.Inflight()); ok && since > 100 {
			dormant++
		}
	}
	if dormant*3 < len(items)*9/10 {
		t.Errorf("%d of %d items dormant for > 100 chapters, want about a third", dormant, len(items))
	}
	// The recurring party: in the 30 chapters before the second volume
	// (101), char-001…008 are each counted in 14–16 (four of eight per
	// chapter, plus the rotating pair) — the recurring cast the writer's
	// packet carries. char-052 is 张华, whose name is the start of
	// char-008's 张华月: the ledger counts it inside the longer name.
	if got := recurring(t, root, 71, 100); !slices.Equal(got, []string{"char-001:14", "char-002:15", "char-003:16", "char-004:16", "char-005:16", "char-006:15", "char-007:14", "char-008:14", "char-052:14"}) {
		t.Errorf("dense recurring cast = %v", got)
	}
	if got := recurring(t, generate(t, small), 21, 25); got != nil {
		t.Errorf("standard profile has a recurring cast: %v", got)
	}
}

// recurring lists the characters the mentions ledger counts in more than
// two of chapters from…to, as slug:chapters.
func recurring(t *testing.T, root *project.Root, from, to int) []string {
	t.Helper()
	lines, err := mentions.Range(root, from, to)
	if err != nil || len(lines) != to-from+1 {
		t.Fatalf("mentions %d–%d: %d lines, %v", from, to, len(lines), err)
	}
	n := map[string]int{}
	for _, l := range lines {
		for s := range l.Characters {
			n[s]++
		}
	}
	var out []string
	for s, k := range n {
		if k > 2 {
			out = append(out, fmt.Sprintf("%s:%d", s, k))
		}
	}
	slices.Sort(out)
	return out
}
