package commit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/project"
)

func TestAppendSeparator(t *testing.T) {
	dir := t.TempDir()
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"chapter":1,"ops":["` + strings.Repeat("长", 40000) + `"]}` // longer than one 64 KiB read
	for _, tc := range []struct {
		text, sep string
		fail      bool
	}{
		{"", "", false},
		{"{\"a\":1}\n", "", false},
		{"{\"a\":1}", "\n", false},
		{"{\"a\":1}\n{\"b\":", "", true},
		{"{\"a\":1}\n" + long, "\n", false},
		{long[:70000], "", true},
	} {
		if err := os.WriteFile(filepath.Join(dir, "log.jsonl"), []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		sep, err := appendSeparator(root, "log.jsonl", int64(len(tc.text)))
		if (err != nil) != tc.fail || sep != tc.sep {
			t.Fatalf("appendSeparator(%.30q…) = %q, %v", tc.text, sep, err)
		}
	}
}
