package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// A file whose symlink leaves the project exists, and reading it is
// E_PATH: optional readers must not mistake it for a missing file.
func TestExistsSymlinkOutside(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "outside.json"), []byte("{}"), 0o644)
	os.Symlink(filepath.Join(dir, "outside.json"), filepath.Join(proj, "settings.json"))
	os.Symlink(dir, filepath.Join(proj, "linkdir"))
	root, err := New(proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"settings.json", "linkdir/outside.json"} {
		if !root.Exists(rel) {
			t.Errorf("Exists(%q) = false for an escaping symlink", rel)
		}
		if _, err := root.ReadFile(rel); !errs.Is(err, errs.Path) {
			t.Errorf("ReadFile(%q) = %v, want E_PATH", rel, err)
		}
	}
	for _, rel := range []string{"missing.json", "linkdir/missing.json", "../outside.json", "/etc/passwd", ""} {
		if root.Exists(rel) {
			t.Errorf("Exists(%q) = true", rel)
		}
	}
}
