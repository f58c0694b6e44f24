package jsonio

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A temp file left by a writer killed before its rename is removed by the
// next write of the same file; a live writer's temp and foreign files stay.
func TestWriteSweepsDeadWritersTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a[1].json")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` command")
	}
	deadPid := dead.Process.Pid
	stale := filepath.Join(dir, ".a[1].json.tmp-"+strconv.Itoa(deadPid)+"-123")
	live := filepath.Join(dir, ".a[1].json.tmp-1-456") // pid 1 is always running
	legacy := filepath.Join(dir, ".a[1].json.tmp-789") // no pid: unknown owner
	other := filepath.Join(dir, ".b.json.tmp-"+strconv.Itoa(deadPid)+"-1")
	for _, p := range []string{stale, live, legacy, other} {
		os.WriteFile(p, []byte("{"), 0o644)
	}
	if err := WriteFile(target, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("dead writer's temp kept: %v", err)
	}
	for _, p := range []string{live, legacy, other, target} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

func TestStaleTemp(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` command")
	}
	d := strconv.Itoa(dead.Process.Pid)
	for name, want := range map[string]string{
		".chapter-005-run.jsonl.tmp-" + d + "-99": "chapter-005-run.jsonl",
		".x.tmp-1-2":               "", // pid 1 runs
		".x.tmp-abc-2":             "",
		"x.tmp-" + d + "-2":        "",
		".tmp-" + d + "-2":         "",
		".x.json.tmp-" + d:         "", // no random part: not ours
		".a.tmp-b.tmp-" + d + "-1": "a.tmp-b",
	} {
		got, ok := StaleTemp(name)
		if got != want || ok != (want != "") {
			t.Errorf("StaleTemp(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}
