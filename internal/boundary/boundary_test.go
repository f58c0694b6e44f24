package boundary

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touch moves a file's mtime so a same-size rewrite is visible even on
// coarse-grained file systems.
func touch(t *testing.T, dir, rel string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	later := time.Now().Add(3 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

func fixture(t *testing.T) *project.Root {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, ".checkpoint.json", `{"last_completed_chapter":2}`)
	write(t, dir, "chapters/chapter-001.md", "# 第1章\n林枫醒来。\n")
	write(t, dir, "chapters/chapter-002.md", "# 第2章\n山门外。\n")
	write(t, dir, "state/current-state.json", `{"state_version":2}`)
	write(t, dir, "staging/chapters/chapter-003.md", "旧稿\n")
	write(t, dir, ".novel.lock/info.json", `{"pid":1}`)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func mustStep(t *testing.T, id string) stepid.Step {
	t.Helper()
	st, err := stepid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func boundaryErr(t *testing.T, err error) *errs.Error {
	t.Helper()
	e := errs.As(err)
	if e == nil || e.Code != errs.WriteBoundary {
		t.Fatalf("want E_WRITE_BOUNDARY, got %v", err)
	}
	return e
}

func TestWriterMayWriteStagingOnly(t *testing.T) {
	root := fixture(t)
	st := mustStep(t, "chapter:3:draft")
	if err := Record(root, st, ""); err != nil {
		t.Fatal(err)
	}
	// Allowed: staging products, the lock, packets.
	write(t, root.Dir, "staging/chapters/chapter-003.md", "新的正文，更长一些。\n")
	write(t, root.Dir, "staging/state/chapter-003-delta.json", `{}`)
	write(t, root.Dir, ".novel.lock/info.json", `{"pid":2,"heartbeat":"x"}`)
	write(t, root.Dir, ".novel.lock.flock", ``)
	if w, err := Check(root, st, ""); err != nil || len(w) != 0 {
		t.Fatalf("clean step: warnings %v err %v", w, err)
	}

	// Not allowed: changing, creating and deleting files outside staging/.
	write(t, root.Dir, "chapters/chapter-002.md", "# 第2章\n被改写了。\n")
	touch(t, root.Dir, "chapters/chapter-002.md")
	write(t, root.Dir, "state/new.json", `{}`)
	if err := os.Remove(filepath.Join(root.Dir, "chapters/chapter-001.md")); err != nil {
		t.Fatal(err)
	}
	_, err := Check(root, st, "")
	e := boundaryErr(t, err)
	want := map[string]any{
		"created": []string{"state/new.json"},
		"changed": []string{"chapters/chapter-002.md"},
		"deleted": []string{"chapters/chapter-001.md"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(e.Details[k], v) {
			t.Errorf("%s = %v, want %v", k, e.Details[k], v)
		}
	}
	for _, f := range []string{"chapters/chapter-001.md", "chapters/chapter-002.md", "state/new.json"} {
		if !strings.Contains(e.Zh, f) || !strings.Contains(e.En, f) {
			t.Errorf("message does not name %s: %q / %q", f, e.Zh, e.En)
		}
	}
}

func TestSameSizeRewriteIsSeen(t *testing.T) {
	root := fixture(t)
	st := mustStep(t, "chapter:3:refine")
	if err := Record(root, st, ""); err != nil {
		t.Fatal(err)
	}
	write(t, root.Dir, "state/current-state.json", `{"state_version":9}`)
	touch(t, root.Dir, "state/current-state.json")
	_, err := Check(root, st, "")
	if e := boundaryErr(t, err); !reflect.DeepEqual(e.Details["changed"], []string{"state/current-state.json"}) {
		t.Fatalf("changed = %v", e.Details["changed"])
	}
}

func TestReadOnlyJudge(t *testing.T) {
	for _, role := range []string{"", stepid.RoleSecondary} {
		root := fixture(t)
		st := mustStep(t, "chapter:3:judge")
		if err := Record(root, st, role); err != nil {
			t.Fatal(err)
		}
		write(t, root.Dir, "staging/evaluations/chapter-003-eval.json", `{"overall":4}`)
		write(t, root.Dir, "staging/evaluations/chapter-003-eval.secondary.json", `{"overall":4}`)
		write(t, root.Dir, "staging/manifests/chapter-003-judge.packet.json", `{}`)
		write(t, root.Dir, "staging/logs/chapter-003-run.jsonl", "{}\n")
		if _, err := Check(root, st, role); err != nil {
			t.Fatalf("role %q: declared outputs refused: %v", role, err)
		}
		// A judge that edits the staging chapter breaks the boundary.
		write(t, root.Dir, "staging/chapters/chapter-003.md", "裁判偷偷改了正文，长度也变了。\n")
		_, err := Check(root, st, role)
		e := boundaryErr(t, err)
		if !reflect.DeepEqual(e.Details["changed"], []string{"staging/chapters/chapter-003.md"}) {
			t.Fatalf("changed = %v", e.Details["changed"])
		}
		if !strings.Contains(e.Zh, "quality-judge") {
			t.Errorf("message should name the agent: %s", e.Zh)
		}
	}
}

func TestLogicReviewerMayWriteOnlyItsReport(t *testing.T) {
	root := fixture(t)
	st := mustStep(t, "chapter:3:logic-review")
	if err := Record(root, st, ""); err != nil {
		t.Fatal(err)
	}
	write(t, root.Dir, "staging/reviews/chapter-003-logic-review.json", `{}`)
	if _, err := Check(root, st, ""); err != nil {
		t.Fatal(err)
	}
	write(t, root.Dir, "staging/evaluations/chapter-003-eval.json", `{}`)
	_, err := Check(root, st, "")
	if e := boundaryErr(t, err); !reflect.DeepEqual(e.Details["created"], []string{"staging/evaluations/chapter-003-eval.json"}) {
		t.Fatalf("created = %v", e.Details["created"])
	}
}

func TestNoSnapshotWarns(t *testing.T) {
	root := fixture(t)
	w, err := Check(root, mustStep(t, "chapter:3:draft"), "")
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "staging/manifests/chapter-003-draft.snapshot") {
		t.Fatalf("warnings %v err %v", w, err)
	}
}

func TestSnapshotOfAnotherRoleOrCorrupt(t *testing.T) {
	root := fixture(t)
	st := mustStep(t, "chapter:3:judge")
	if err := Record(root, st, ""); err != nil {
		t.Fatal(err)
	}
	// The secondary judge has its own file: no snapshot yet → warning.
	if w, err := Check(root, st, stepid.RoleSecondary); err != nil || len(w) != 1 {
		t.Fatalf("secondary: %v %v", w, err)
	}
	for _, bad := range []string{"", "garbage\n", `{"format":"novel-boundary-snapshot","version":1,"step":"chapter:003:judge","role":"","scope":"all","files":5}` + "\n1 2 a\n"} {
		write(t, root.Dir, snapshotPath(st, ""), bad)
		_, err := Check(root, st, "")
		if e := errs.As(err); e == nil || e.Code != errs.Schema || e.Details["file"] != "staging/manifests/chapter-003-judge.snapshot" {
			t.Fatalf("corrupt %q: %v", bad, err)
		}
	}
	// A snapshot recorded for a different step is refused.
	if err := Record(root, mustStep(t, "chapter:3:draft"), ""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root.Dir, "staging/manifests/chapter-003-draft.snapshot"))
	write(t, root.Dir, snapshotPath(st, ""), string(data))
	if _, err := Check(root, st, ""); !errs.Is(err, errs.Schema) {
		t.Fatalf("foreign snapshot: %v", err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	in := []Entry{
		{Path: "a b/空 格.md", Size: 0, MTime: -5},
		{Path: "line\nbreak", Size: 12, MTime: 1700000000123456789},
		{Path: "\"quoted", Size: 3, MTime: 4},
		{Path: "tab\there\\x", Size: 1 << 40, MTime: 9},
	}
	h := header{Magic: magic, Version: 1, Step: "chapter:001:draft", Scope: scopeOutside, Files: len(in)}
	gh, out, err := decode(encode(h, in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if gh != h || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: %+v %+v", gh, out)
	}
}

func TestCompare(t *testing.T) {
	a := []Entry{{"a", 1, 1}, {"b", 1, 1}, {"d", 1, 1}}
	b := []Entry{{"b", 2, 1}, {"c", 1, 1}, {"d", 1, 1}, {"e", 1, 1}}
	d := compare(a, b)
	want := Diff{Created: []string{"c", "e"}, Changed: []string{"b"}, Deleted: []string{"a"}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("got %+v", d)
	}
	if got := d.All(); !reflect.DeepEqual(got, []string{"a", "b", "c", "e"}) {
		t.Fatalf("All = %v", got)
	}
}

func TestSymlinkRecordedNotFollowed(t *testing.T) {
	root := fixture(t)
	outside := t.TempDir()
	write(t, outside, "big.txt", "outside")
	if err := os.Symlink(outside, filepath.Join(root.Dir, "link")); err != nil {
		t.Skip("symlinks unsupported")
	}
	ents, err := Walk(root, mustStep(t, "chapter:3:draft"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range ents {
		paths = append(paths, e.Path)
	}
	want := []string{".checkpoint.json", "chapters/chapter-001.md", "chapters/chapter-002.md", "link", "state/current-state.json"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("walk = %v", paths)
	}
}

// BenchmarkRecordCheck measures the walk on a project of ~14k files (the
// SPEC §14 scale); the target is a few tens of milliseconds per walk.
func BenchmarkRecordCheck(b *testing.B) {
	dir := b.TempDir()
	for _, d := range []string{"chapters", "summaries", "evaluations", "state", "logs", "reviews", "storylines/main/history"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			if err := os.WriteFile(filepath.Join(dir, d, "f-"+strconv.Itoa(i)), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	root, _ := project.New(dir)
	st := stepid.Chapter(5, stepid.Draft)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Record(root, st, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := Check(root, st, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// An author's *.log outside the suite's folders is not an agent's write;
// one inside them still is.
func TestAuthorLog(t *testing.T) {
	for rel, want := range map[string]bool{
		"start.log": true, "notes/run.log": true, "style-samples/x.log": true,
		"world/notes.log": false, "staging/x.log": false, "logs/run.log": false, "characters/active/a.log": false,
		"brief.md": false, "start.log.md": false,
	} {
		if got := authorLog(rel); got != want {
			t.Errorf("authorLog(%q) = %v, want %v", rel, got, want)
		}
	}
}
