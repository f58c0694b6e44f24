package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// TestMakefileOddCheckout runs the suite's own Makefile (real make, real go
// build) in a checkout whose folder name holds a space, both quotes, `$`, `*`
// and CJK, beside a folder that unquoted paths used to hit: `make clean` in
// …/novel copy ran `rm -rf …/novel copy/bin`, removing the sibling …/novel
// (SPEC §22.1). build, demo and clean must work there, and nothing outside
// the checkout may be removed, created or rewritten.
func TestMakefileOddCheckout(t *testing.T) {
	t.Parallel()
	// Part of make test (-short) too: issue #25 asks make test to run the
	// Makefile's targets from such a folder.
	for _, tool := range []string{"make", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	co := filepath.Join(parent, `novel copy '$x "q" *书`)
	for _, dir := range []string{"cmd", "internal", "examples/demo", "examples/calibration"} {
		if err := testkit.CopyTree(filepath.Join(repo, dir), filepath.Join(co, dir), false); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{}
	for _, f := range []string{"go.mod", "go.sum", "Makefile", "pipeline.mk"} {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	if err := testkit.WriteFiles(co, files); err != nil {
		t.Fatal(err)
	}
	decoys := map[string]string{"novel/IMPORTANT.txt": "the author's other checkout\n", "novel/brief.md": "# 我的书\n",
		"novel copy": "a file named like the checkout's first word\n"}
	if err := testkit.WriteFiles(parent, decoys); err != nil {
		t.Fatal(err)
	}
	outside := func() string {
		tree, err := testkit.Tree(parent, false)
		if err != nil {
			t.Fatal(err)
		}
		for k := range tree {
			if rel, _ := filepath.Rel(filepath.Base(co), k); !strings.HasPrefix(rel, "..") {
				delete(tree, k)
			}
		}
		return testkit.Listing(tree)
	}
	before := outside()

	// -trimpath keeps the build cache independent of the checkout's folder,
	// so only the first run compiles; GOPROXY=off: no network.
	env := append(os.Environ(), "GOFLAGS=-trimpath", "GOPROXY=off", "NOVEL_NOW=2026-11-01T08:00:00Z", "MAKEFLAGS=", "MAKELEVEL=")
	makeIn := func(args ...string) (string, error) {
		cmd := exec.Command("make", args...)
		cmd.Dir = co
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := makeIn(args...)
		if err != nil {
			t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	run("build")
	for _, bin := range []string{"novel", "novel-agent", "novel-commit", "novel-lock"} {
		if _, err := os.Stat(filepath.Join(co, "bin", bin)); err != nil {
			t.Fatalf("make build: %v", err)
		}
	}
	out := run("demo")
	if !strings.Contains(out, "open the report: "+filepath.Join(co, "demo-out", "logs", "report.html")) {
		t.Errorf("make demo: no report line for the odd folder:\n%s", out)
	}
	for _, f := range []string{"chapters/chapter-003.md", "logs/report.html"} {
		if _, err := os.Stat(filepath.Join(co, "demo-out", f)); err != nil {
			t.Errorf("make demo: %v", err)
		}
	}
	// A DEMO_DIR outside the checkout that no demo made is never removed:
	// here it holds a book, so novel init refuses and nothing changes.
	out, err = makeIn("demo", "DEMO_DIR="+filepath.Join(parent, "novel"))
	if err == nil || !strings.Contains(out, `"code":"E_CONFLICT"`) {
		t.Errorf("make demo DEMO_DIR=<a book>: want E_CONFLICT from novel init, got %v:\n%s", err, out)
	}
	run("clean")
	if _, err := os.Stat(filepath.Join(co, "bin")); !os.IsNotExist(err) {
		t.Errorf("make clean left bin/ (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(co, "cmd")); err != nil {
		t.Errorf("make clean removed more than bin/: %v", err)
	}
	if after := outside(); after != before {
		t.Errorf("files outside the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
