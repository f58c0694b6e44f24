package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte("{}"), 0o644)
	sub := filepath.Join(dir, "chapters", "deep")
	os.MkdirAll(sub, 0o755)
	r, err := Find("", "", sub)
	if err != nil || r.Dir != dir {
		t.Fatalf("%v %v", r, err)
	}
	r, err = Find("../..", "", sub)
	if err != nil || r.Dir != dir {
		t.Fatalf("flag: %v %v", r, err)
	}
	if _, err := Find("", "", t.TempDir()); !errs.Is(err, errs.NoProject) {
		t.Fatalf("want E_NO_PROJECT, got %v", err)
	}
	if _, err := Find("", filepath.Join(dir, "nope"), sub); !errs.Is(err, errs.NoProject) {
		t.Fatalf("env missing dir: %v", err)
	}
}

func TestAbsContainment(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "staging"), 0o755)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "staging", "leak.md"))
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("../staging", filepath.Join(dir, "staging", "self"))
	os.Symlink(filepath.Join(outside, "missing"), filepath.Join(dir, "dangling"))
	r, _ := New(dir)
	for _, rel := range []string{"../x", "/etc/passwd", "a/../../x", "staging/leak.md", "out/secret.md", "out", "dangling", ""} {
		if _, err := r.Abs(rel); !errs.Is(err, errs.Path) {
			t.Errorf("Abs(%q) = %v, want E_PATH", rel, err)
		}
	}
	for _, rel := range []string{"staging/x.md", "a/../b", "staging/self/x", "not/yet/there.json"} {
		if _, err := r.Abs(rel); err != nil {
			t.Errorf("Abs(%q) = %v", rel, err)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, s := range []string{"main-arc", "a", "a1-b2", "x-9"} {
		if !IsSlug(s) {
			t.Errorf("%q should be a slug", s)
		}
	}
	for _, s := range []string{"", "Main", "a--b", "-a", "a-", "../x", "a_b", "林枫", "a b"} {
		if IsSlug(s) {
			t.Errorf("%q should not be a slug", s)
		}
	}
}
