package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestMoveAndRemove(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "f.md"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "out"))
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Parents are created; the source is gone afterwards.
	if err := root.Move("a/f.md", "b/c/f.md"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "b", "c", "f.md")); err != nil || string(data) != "x" {
		t.Fatalf("moved file: %q, %v", data, err)
	}
	if root.Exists("a/f.md") {
		t.Fatal("source still exists")
	}
	// Directories move too.
	if err := root.Move("b/c", "d"); err != nil || !root.IsFile("d/f.md") {
		t.Fatalf("directory move: %v", err)
	}
	// A missing source is E_IO that still unwraps to fs.ErrNotExist.
	err = root.Move("a/none.md", "b/none.md")
	if !errs.Is(err, errs.IO) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing source: %v", err)
	}
	// Either end leaving the project is E_PATH, and nothing moves.
	for _, m := range [][2]string{{"d/f.md", "../x.md"}, {"d/f.md", "out/x.md"}, {"../x.md", "d/g.md"}} {
		if err := root.Move(m[0], m[1]); !errs.Is(err, errs.Path) {
			t.Fatalf("Move(%q, %q) = %v, want E_PATH", m[0], m[1], err)
		}
	}
	if !root.IsFile("d/f.md") {
		t.Fatal("a refused move moved the file")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the project: %v", entries)
	}

	if err := root.Remove("d/f.md"); err != nil || root.Exists("d/f.md") {
		t.Fatalf("Remove: %v", err)
	}
	if err := root.Remove("d/f.md"); err != nil {
		t.Fatalf("Remove of a missing file: %v", err)
	}
	if err := root.Remove("../x.md"); !errs.Is(err, errs.Path) {
		t.Fatalf("Remove outside: %v", err)
	}
	if err := root.Remove("d"); err != nil {
		t.Fatalf("Remove of an empty directory: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "e", "sub"), 0o755)
	if err := root.Remove("e"); !errs.Is(err, errs.IO) {
		t.Fatalf("Remove of a non-empty directory: %v", err)
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "b.md"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "d", "a.md"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.Symlink(t.TempDir(), filepath.Join(dir, "out"))
	root, _ := New(dir)
	ents, err := root.ReadDir("d")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.md,b.md,sub" {
		t.Fatalf("ReadDir(d) = %v", names)
	}
	if ents, err := root.ReadDir("missing"); ents != nil || err != nil {
		t.Fatalf("missing directory: %v, %v", ents, err)
	}
	if _, err := root.ReadDir("f"); !errs.Is(err, errs.IO) {
		t.Fatalf("a file: %v, want E_IO", err)
	}
	if _, err := root.ReadDir("out"); !errs.Is(err, errs.Path) {
		t.Fatalf("a symlink leaving the project: %v, want E_PATH", err)
	}
}

func TestLexists(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.Symlink("missing-target", filepath.Join(dir, "dangling"))
	os.Symlink(t.TempDir(), filepath.Join(dir, "out"))
	root, _ := New(dir)
	for rel, want := range map[string]bool{"f": true, "dangling": true, "missing": false, "f/sub": false} {
		got, err := root.Lexists(rel)
		if rel == "f/sub" {
			// A file where a directory should be: ENOTDIR is not "missing".
			if !errs.Is(err, errs.IO) {
				t.Errorf("Lexists(%q) = %v, %v; want E_IO", rel, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Lexists(%q) = %v, %v; want %v", rel, got, err, want)
		}
	}
	if _, err := root.Lexists("out/x"); !errs.Is(err, errs.Path) {
		t.Errorf("Lexists through an escaping symlink: %v, want E_PATH", err)
	}
}

// List keeps the entries of one kind whose names end in the suffix, skips
// hidden ones, sorts by name and lists nothing for a missing directory.
func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"w/b-dir", "w/.hidden-dir", "w/a-dir"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	for _, f := range []string{"w/z.md", "w/a.md", "w/.h.md", "w/n.json", "w/x.md.bak"} {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
	}
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel, suffix string
		dirs        bool
		want        string
	}{
		{"w", ".md", false, "w/a.md w/z.md"},
		{"w", "", false, "w/a.md w/n.json w/x.md.bak w/z.md"},
		{"w", "", true, "w/a-dir w/b-dir"},
		{"missing", ".md", false, ""},
	} {
		got, err := root.List(c.rel, c.suffix, c.dirs)
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("List(%q, %q, %v) = %q, %v; want %q", c.rel, c.suffix, c.dirs, got, err, c.want)
		}
	}
}

// A Listing reads each entry exactly as Root.ReadFile reads its path:
// the same bytes (BOM stripped) or the same error, for plain files,
// symlinks inside and outside the project, directories, empty and
// oversized files.
func TestListingReadFileSameAsReadFile(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(d, "sub.json"), 0o755)
	os.WriteFile(filepath.Join(d, "a.json"), []byte(`{"display_name":"甲"}`), 0o644)
	os.WriteFile(filepath.Join(d, "bom.json"), []byte("\xEF\xBB\xBF{}"), 0o644)
	os.WriteFile(filepath.Join(d, "empty.json"), nil, 0o644)
	os.WriteFile(filepath.Join(d, "big.json"), []byte(strings.Repeat("x", 70<<10)), 0o644)
	os.WriteFile(filepath.Join(dir, "inside.json"), []byte(`{"x":1}`), 0o644)
	os.Symlink(filepath.Join(dir, "inside.json"), filepath.Join(d, "link-in.json"))
	outside := filepath.Join(t.TempDir(), "o.json")
	os.WriteFile(outside, []byte(`{}`), 0o644)
	os.Symlink(outside, filepath.Join(d, "link-out.json"))
	os.Symlink(filepath.Join(dir, "nowhere.json"), filepath.Join(d, "dangling.json"))
	huge := filepath.Join(d, "huge.json")
	f, _ := os.Create(huge)
	f.Truncate(32<<20 + 1)
	f.Close()
	root, _ := New(dir)
	l, err := root.Listing("d")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var names []string
	for _, e := range l.Entries {
		names = append(names, e.Name())
		got, gerr := l.ReadFile(e)
		want, werr := root.ReadFile("d/" + e.Name())
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) || errs.As(gerr) == nil != (errs.As(werr) == nil) {
			t.Errorf("%s: %q, %v; ReadFile: %q, %v", e.Name(), got, gerr, want, werr)
		}
		if werr != nil && errs.As(gerr).Code != errs.As(werr).Code {
			t.Errorf("%s: %s, want %s", e.Name(), errs.As(gerr).Code, errs.As(werr).Code)
		}
	}
	if strings.Join(names, ",") != "a.json,big.json,bom.json,dangling.json,empty.json,huge.json,link-in.json,link-out.json,sub.json" {
		t.Fatalf("entries %v", names)
	}
	if l, err := root.Listing("missing"); err != nil || l.Entries != nil {
		t.Fatalf("missing directory: %v, %v", l, err)
	}
}
