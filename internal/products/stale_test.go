package products

import (
	"slices"
	"strconv"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// A temp file left by a writer killed mid-write belongs to the chapter of
// its target, so commit/abandon clean it up with the chapter's files.
func TestStagingFilesIncludesDeadWritersTemps(t *testing.T) {
	stale := ".chapter-003-run.jsonl.tmp-" + strconv.Itoa(testkit.DeadPID(t)) + "-7"
	live := ".chapter-003-run.jsonl.tmp-1-7"
	root := testkit.Project(t, map[string]string{
		"staging/logs/" + stale:              "",
		"staging/logs/" + live:               "",
		"staging/logs/chapter-003-run.jsonl": "",
	})
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
