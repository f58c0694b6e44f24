package boundary

import (
	"strconv"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// A temp file that a killed atomic write of the suite left behind (here:
// of the checkpoint, by a dead pid) is not an agent's write; a file named
// like a live writer's temp still is.
func TestDeadWritersTempIsNotAViolation(t *testing.T) {
	deadPID := testkit.DeadPID(t)
	root := fixture(t)
	st := mustStep(t, "chapter:003:draft")
	if err := Record(root, st, ""); err != nil {
		t.Fatal(err)
	}
	write(t, root.Dir, "..checkpoint.json.tmp-"+strconv.Itoa(deadPID)+"-42", "{")
	if _, err := Check(root, st, ""); err != nil {
		t.Fatalf("dead writer's temp reported: %v", err)
	}
	write(t, root.Dir, "chapters/.chapter-001.md.tmp-1-42", "x") // pid 1 is alive
	if _, err := Check(root, st, ""); err == nil {
		t.Fatal("a live-looking temp outside staging/ was not reported")
	}
}
