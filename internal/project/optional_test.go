package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// Optional: present, absent, or E_PATH when it resolves outside — never
// "absent" for a link leaving the project (SPEC §22.1).
func TestOptional(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "brief.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "memory.md"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "storylines", "a"), 0o755)
	os.Symlink(filepath.Join(outside, "memory.md"), filepath.Join(dir, "storylines", "a", "memory.md"))
	os.Symlink(filepath.Join(outside, "gone.json"), filepath.Join(dir, "style-profile.json"))
	os.Symlink("brief.md", filepath.Join(dir, "inside.md"))
	os.Symlink(outside, filepath.Join(dir, "world"))
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{"brief.md": true, "inside.md": true, "missing.md": false, "storylines": false} {
		if ok, err := r.Optional(rel); ok != want || err != nil {
			t.Errorf("%s: %v %v, want %v", rel, ok, err, want)
		}
	}
	for _, rel := range []string{"storylines/a/memory.md", "style-profile.json", "world/rules.json", "../x.md"} {
		if ok, err := r.Optional(rel); ok || !errs.Is(err, errs.Path) {
			t.Errorf("%s: %v %v, want E_PATH", rel, ok, err)
		}
	}
}

// Managed: the suite's own files and folders, through links and "..".
func TestManaged(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "storylines", "main-arc"), 0o755)
	os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	os.MkdirAll(filepath.Join(dir, "chapters"), 0o755)
	os.Symlink(filepath.Join(dir, "chapters"), filepath.Join(outside, "ch"))
	os.Symlink(filepath.Join(dir, "storylines", "main-arc"), filepath.Join(outside, "sl"))
	os.Symlink(filepath.Join(dir, ".checkpoint.json"), filepath.Join(outside, "cp.json"))
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "chapters", "chapter-002.md"): "chapters/chapter-002.md",
		filepath.Join(dir, "logs", "..", "state", "x"):   "state/x",
		filepath.Join(outside, "ch") + "/new.md":         "chapters/new.md",
		filepath.Join(outside, "sl") + "/../x.md":        "storylines/x.md",
		filepath.Join(outside, "cp.json"):                ".checkpoint.json",
		filepath.Join(dir, "brief.md"):                   "brief.md",
		filepath.Join(dir, "book.txt"):                   "",
		filepath.Join(dir, "logs", "report.html"):        "",
		filepath.Join(outside, "book.txt"):               "",
		filepath.Join(dir, "chapters-old", "x.md"):       "",
	} {
		rel, managed := r.Managed(path)
		if rel != want || managed != (want != "") {
			t.Errorf("%s: %q %v, want %q", path, rel, managed, want)
		}
	}
}
