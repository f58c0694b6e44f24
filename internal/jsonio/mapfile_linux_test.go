package jsonio

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// A mapped file truncated in place by another program faults on access;
// with SetPanicOnFault (cli.Main, and the goroutine that scans the state
// for the lint's terms) that is a panic to recover, not a crash.
func TestMapFileTruncatedFaultsAsPanic(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	abs := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(abs, bytes.Repeat([]byte(" "), 2*MapMin), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := MapFile(abs, "state.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(abs, 0); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("reading past the truncated end did not fault")
		}
	}()
	t.Log(data[len(data)-1]) // a real read: the compiler may drop a blank one
}
