package commit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/commit"
)

// TestTornChangelogAppendResumes: a kill in the middle of the changelog
// append (the state already written, half the line on disk) is finished
// by the resume: the line is written once, whole, and rebuild agrees.
func TestTornChangelogAppendResumes(t *testing.T) {
	bin := buildCommit(t)
	ref := writeFixture(t)
	if code, out := runCommit(bin, ref); code != 0 {
		t.Fatalf("uninterrupted commit: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	for _, keep := range []int{1, 40, -1} { // bytes of the line left on disk (-1: all but the newline)
		dir := writeFixture(t)
		if code, out := runCommit(bin, dir, "NOVEL_CRASH_AT="+commit.StepState); code != 137 {
			t.Fatalf("crash at state: exit %d\n%s", code, out)
		}
		log := filepath.Join(dir, "state/changelog.jsonl")
		full, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		n := keep
		if keep < 0 {
			n = len(full) - 1
		}
		if err := os.WriteFile(log, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := runCommit(bin, dir); code != 0 {
			t.Fatalf("resume after a torn append (%d bytes): exit %d\n%s", n, code, out)
		}
		if got := tree(t, dir); got != want {
			t.Fatalf("torn append (%d bytes) + resume differs:\n%s", n, diffLines(want, got))
		}
		if data, _ := os.ReadFile(log); strings.Count(string(data), "\n") != 1 {
			t.Fatalf("changelog after resume:\n%s", data)
		}
		if code, out := novel(bin, dir, nil, "rebuild", "--check"); code != 0 {
			t.Fatalf("rebuild --check after resume: exit %d\n%s", code, out)
		}
	}
}

// TestChangelogTailBeforeAppend: without a journal, a changelog whose last
// line is incomplete refuses the commit before any write; a complete last
// line that only lacks its newline gets one, so lines never glue.
func TestChangelogTailBeforeAppend(t *testing.T) {
	bin := buildCommit(t)
	prev := `{"chapter":0,"state_version":4,"base_state_version":3,"storyline_id":"main-arc","committed_at":"2026-01-01T00:00:00Z","ops":[],"dropped":[]}`

	dir := writeFixture(t)
	log := filepath.Join(dir, "state/changelog.jsonl")
	if err := os.WriteFile(log, []byte(prev[:50]), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	code, out := runCommit(bin, dir)
	if code != 1 || !strings.Contains(out, `"code":"E_STATE"`) || !strings.Contains(out, `"file":"state/changelog.jsonl"`) {
		t.Fatalf("commit onto a torn changelog: exit %d\n%s", code, out)
	}
	if got := tree(t, dir); got != before {
		t.Fatalf("a refused commit wrote:\n%s", diffLines(before, got))
	}

	dir = writeFixture(t)
	log = filepath.Join(dir, "state/changelog.jsonl")
	if err := os.WriteFile(log, []byte(prev), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := runCommit(bin, dir); code != 0 {
		t.Fatalf("commit onto a changelog without a final newline: exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || lines[0] != prev || !strings.HasPrefix(lines[1], `{"chapter":1,"state_version":5,`) {
		t.Fatalf("changelog after commit:\n%s", data)
	}
	if code, out := novel(bin, dir, nil, "rebuild", "--check"); code != 0 {
		t.Fatalf("rebuild --check: exit %d\n%s", code, out)
	}
}
