package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

func newRoot(t *testing.T) *project.Root {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte(`{"last_completed_chapter":0}`), 0o644)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A fresh run writes the journal before the first step; a failing step
// names itself, the journal and the resume command; a resumed run sweeps
// its targets' leftover temps and does not rewrite the journal.
func TestTxRun(t *testing.T) {
	root := newRoot(t)
	tx := Tx{File: "staging/x.journal.json", Key: "x_step", Resume: "novel-x --go", Temps: []string{"state/a.json"}}
	var crashed []string
	var sawJournal bool
	steps := []Step{
		{Name: "one", Run: func() error { sawJournal = root.IsFile(tx.File); return nil }},
		{Name: "two", Run: func() error { return errors.New("disk full") }},
	}
	err := tx.Run(root, map[string]int{"v": 1}, true, func(s string) { crashed = append(crashed, s) }, steps)
	e := errs.As(err)
	if e == nil || e.Details["x_step"] != "two" || e.Details["journal"] != tx.File || !strings.Contains(e.HintEn, "run novel-x --go again") {
		t.Fatalf("err = %#v", err)
	}
	if !sawJournal || strings.Join(crashed, ",") != StepJournal+",one" {
		t.Fatalf("journal before step one: %v; crash calls %v", sawJournal, crashed)
	}
	dir := filepath.Join(root.Dir, "state")
	os.MkdirAll(dir, 0o755)
	tmp := filepath.Join(dir, ".a.json.tmp-999999999-1")
	os.WriteFile(tmp, []byte("{"), 0o644)
	os.WriteFile(filepath.Join(root.Dir, tx.File), []byte(`{"v":1}`), 0o644)
	if err := tx.Run(root, map[string]int{"v": 2}, false, nil, steps[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("resumed run left the temp: %v", err)
	}
	if b, _ := root.ReadFile(tx.File); string(b) != `{"v":1}` {
		t.Fatalf("resumed run rewrote the journal: %s", b)
	}
}

// Replay is idempotent: run twice from the recorded size, one copy of the text.
func TestAppendReplay(t *testing.T) {
	root := newRoot(t)
	root.WriteFile("logs/l.jsonl", []byte("a\n"))
	a := Append{File: "logs/l.jsonl", SizeBefore: 2, Text: "b\n"}
	for i := 0; i < 2; i++ {
		if err := a.Replay(root); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := root.ReadFile(a.File); string(b) != "a\nb\n" {
		t.Fatalf("log = %q", b)
	}
	root.WriteFile(a.File, []byte("a"))
	if err := a.Replay(root); !errs.Is(err, errs.State) {
		t.Fatalf("shorter log: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	if Fingerprint([]byte("abc")) != FingerprintParts([][]byte{[]byte("a"), []byte("bc")}) {
		t.Fatal("parts differ from the whole")
	}
	if Fingerprint([]byte("abc")) == Fingerprint([]byte("abd")) || !strings.HasPrefix(Fingerprint([]byte("abc")), "3-") {
		t.Fatal(Fingerprint([]byte("abc")))
	}
}

// A destination with different content is E_CONFLICT naming it; the same
// content, or no file, is fine.
func TestCheckDestinations(t *testing.T) {
	root := newRoot(t)
	root.WriteFile("staging/c.md", []byte("new"))
	way := func(f string) WayOut { return WayOut{Zh: "移走 " + f, En: "move " + f} }
	dests := []Dest{{File: "chapters/c.md", From: "staging/c.md"}, {File: "evaluations/e.json", Data: []byte("{}")}}
	if err := CheckDestinations(root, dests, way); err != nil {
		t.Fatal(err)
	}
	root.WriteFile("chapters/c.md", []byte("new"))
	root.WriteFile("evaluations/e.json", []byte("{}"))
	if err := CheckDestinations(root, dests, way); err != nil {
		t.Fatal(err)
	}
	root.WriteFile("evaluations/e.json", []byte(`{"x":1}`))
	e := errs.As(CheckDestinations(root, dests, way))
	if e == nil || e.Code != errs.Conflict || e.Exit != 1 || e.Details["file"] != "evaluations/e.json" || e.HintEn != "move evaluations/e.json" {
		t.Fatalf("%#v", e)
	}
}
