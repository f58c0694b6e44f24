package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/project"
)

func exampleRoot() (*project.Root, func()) {
	dir, _ := os.MkdirTemp("", "journal-example-")
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte(`{"last_completed_chapter":0}`), 0o644)
	root, _ := project.New(dir)
	return root, func() { os.RemoveAll(dir) }
}

// A transaction writes its journal first, then runs its idempotent steps
// in order; crash is called after the journal and after each step (the
// NOVEL_CRASH_AT hook), and the last step removes the journal.
func ExampleTx_Run() {
	root, done := exampleRoot()
	defer done()
	tx := journal.Tx{File: journal.Volume.Path("2"), Key: "commit_step", Resume: "novel-commit volume --volume 02"}
	steps := []journal.Step{
		{Name: "move", Run: func() error { return root.WriteFile("volumes/vol-02/outline.md", []byte("# 第二卷\n")) }},
		{Name: "cleanup", Run: func() error { return root.Remove(tx.File) }},
	}
	err := tx.Run(root, map[string]int{"volume": 2}, true, func(step string) {
		fmt.Println("after", step, "journal:", root.IsFile(tx.File))
	}, steps)
	fmt.Println(err)
	// Output:
	// after journal journal: true
	// after move journal: true
	// after cleanup journal: false
	// <nil>
}

// Before it starts, a journaled command asks the registry: an unfinished
// journal of a kind that blocks it is refused in one wording, naming the
// command that finishes it; its own unfinished journal is resumed.
func ExampleKind_Refuse() {
	root, done := exampleRoot()
	defer done()
	root.WriteFile(journal.Commit.Path("4"), []byte(`{"chapter":4}`))

	fmt.Println(journal.Commit.Refuse(root, "4"), journal.Commit.Unfinished(root, "4"))
	e := errs.As(journal.Amend.Refuse(root, "2"))
	fmt.Println(e.Code, e.Exit)
	fmt.Println(e.Message("en"))
	fmt.Println(e.HintText("en"))
	// Output:
	// <nil> true
	// E_STATE 1
	// the commit of chapter 4 is unfinished (staging/commit-004.journal.json)
	// run novel-commit --chapter 4 first to finish it, then run this command again
}
