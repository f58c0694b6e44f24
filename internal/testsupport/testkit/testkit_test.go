package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCopyTreeListingDiff(t *testing.T) {
	root := Project(t, map[string]string{"a/b.txt": "x", "c.txt": "y"})
	if err := os.Symlink("c.txt", filepath.Join(root.Dir, "l")); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root.Dir, "c.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	src, err := Tree(root.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	const want = "a dir\n" +
		"a/b.txt file 2d711642b726b04401627ca9\n" +
		"c.txt file a1fce4363854ff888cff4b8e\n" +
		"l link c.txt\n"
	noTimes, _ := Tree(root.Dir, false)
	if got := Listing(noTimes); got != want {
		t.Fatalf("listing:\n%s\nwant:\n%s", got, want)
	}

	kept, plain := filepath.Join(t.TempDir(), "k"), filepath.Join(t.TempDir(), "p")
	if err := CopyTree(root.Dir, kept, true); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(root.Dir, plain, false); err != nil {
		t.Fatal(err)
	}
	k, _ := Tree(kept, true)
	if d := Diff(src, k); d != "" {
		t.Fatalf("copy keeping times differs:\n%s", d)
	}
	p, _ := Tree(plain, true)
	if d := Diff(src, p); d != "~ c.txt" && d != "~ a/b.txt\n~ c.txt" {
		t.Fatalf("copy without times: diff %q", d)
	}
	os.Remove(filepath.Join(plain, "a", "b.txt"))
	os.WriteFile(filepath.Join(plain, "n"), nil, 0o644)
	p, _ = Tree(plain, false)
	if d := Diff(noTimes, p); d != "+ n\n- a/b.txt" {
		t.Fatalf("diff %q", d)
	}
	if Listing(map[string]string{}) != "\n" {
		t.Fatal("empty listing")
	}
}
