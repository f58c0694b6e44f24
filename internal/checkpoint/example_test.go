package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/project"
)

// Update is the one way a command writes the checkpoint: it takes the
// project lock, re-reads the checkpoint and tells fn whether it moved
// since the caller's unlocked read (first); fn re-checks and edits the
// fresh copy, which Update saves when fn says so.
func ExampleUpdate() {
	dir, _ := os.MkdirTemp("", "checkpoint-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte(`{"last_completed_chapter":2,"current_volume":1,"orchestrator_state":"WRITING"}`), 0o644)
	root, _ := project.New(dir)

	_, first, _ := checkpoint.LoadSnapshot(root) // the command's checks read this
	w := checkpoint.Writer{Root: root, Getenv: func(string) string { return "" }, Now: "2026-01-01T00:00:00Z"}
	cp, err := checkpoint.Update(w, first, func(cp *checkpoint.Checkpoint, moved bool) (bool, error) {
		fmt.Println("moved:", moved)
		cp.RevisionCount = 1
		return true, nil
	})
	fmt.Println(cp.LastCompleted, cp.RevisionCount, err)
	fmt.Println("lock left:", root.Exists(".novel.lock"))
	// Output:
	// moved: false
	// 2 1 <nil>
	// lock left: false
}
