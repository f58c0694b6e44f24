package products

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/novelsuite/novel/internal/project"
)

// A temp file left by a writer killed mid-write belongs to the chapter of
// its target, so commit/abandon clean it up with the chapter's files.
func TestStagingFilesIncludesDeadWritersTemps(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` command")
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "staging", "logs")
	os.MkdirAll(logs, 0o755)
	stale := ".chapter-003-run.jsonl.tmp-" + strconv.Itoa(dead.Process.Pid) + "-7"
	live := ".chapter-003-run.jsonl.tmp-1-7"
	for _, n := range []string{stale, live, "chapter-003-run.jsonl"} {
		os.WriteFile(filepath.Join(logs, n), nil, 0o644)
	}
	root, _ := project.New(dir)
	got, err := StagingFiles(root, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "staging/logs/"+stale) || slices.Contains(got, "staging/logs/"+live) {
		t.Errorf("chapter 3: %v", got)
	}
	if got, _ := StagingFiles(root, 30); len(got) != 0 {
		t.Errorf("chapter 30: %v", got)
	}
}
