// Package reliability proves the suite's robustness claims (SPEC §15, §8.4,
// §4) against the real binaries: a bad-input matrix, SIGKILL fault
// injection of the whole pipeline, and concurrent pipeline and lock runs.
// The test binary is the suite's binaries too: a temporary directory links
// it under each binary's name and TestMain runs that binary's Main when
// invoked by it (as testscript does), so a run links one executable, not
// seventeen.
//
// The default run (`go test ./reliability`, part of `make test`) is short;
// NOVEL_LONG_TESTS=1 (`make test-long`) runs the long variants (≥ 50 kill
// trials, more concurrent runs). See docs/RELIABILITY.md.
package reliability

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/cmd/novel"
	"github.com/novelsuite/novel/internal/cmd/novelagent"
	"github.com/novelsuite/novel/internal/cmd/novelaudit"
	"github.com/novelsuite/novel/internal/cmd/novelcommit"
	"github.com/novelsuite/novel/internal/cmd/novelexport"
	"github.com/novelsuite/novel/internal/cmd/novelforeshadow"
	"github.com/novelsuite/novel/internal/cmd/novelgate"
	"github.com/novelsuite/novel/internal/cmd/novelimport"
	"github.com/novelsuite/novel/internal/cmd/novelinit"
	"github.com/novelsuite/novel/internal/cmd/novellint"
	"github.com/novelsuite/novel/internal/cmd/novellock"
	"github.com/novelsuite/novel/internal/cmd/novelmanifest"
	"github.com/novelsuite/novel/internal/cmd/novelmcp"
	"github.com/novelsuite/novel/internal/cmd/novelmigrate"
	"github.com/novelsuite/novel/internal/cmd/noveloutline"
	"github.com/novelsuite/novel/internal/cmd/novelreport"
	"github.com/novelsuite/novel/internal/cmd/novelstep"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// Now is the fixed suite clock of every run (SPEC §3 Clock).
const Now = "2026-11-01T09:00:00Z"

var (
	repo    string // repository root
	binDir  string // built binaries
	demo    string // examples/demo/project
	replay  string // examples/demo/replay
	pipeMK  string // pipeline.mk
	long    = os.Getenv("NOVEL_LONG_TESTS") != ""
	agentRE = "novel-agent --backend replay --fixtures "
)

// commands are the suite's binaries by name (cmd/<name>/main.go).
var commands = map[string]func() int{
	"novel":            novel.Main,
	"novel-step":       novelstep.Main,
	"novel-lock":       novellock.Main,
	"novel-outline":    noveloutline.Main,
	"novel-manifest":   novelmanifest.Main,
	"novel-gate":       novelgate.Main,
	"novel-commit":     novelcommit.Main,
	"novel-foreshadow": novelforeshadow.Main,
	"novel-agent":      novelagent.Main,
	"novel-report":     novelreport.Main,
	"novel-export":     novelexport.Main,
	"novel-import":     novelimport.Main,
	"novel-migrate":    novelmigrate.Main,
	"novel-init":       novelinit.Main,
	"novel-audit":      novelaudit.Main,
	"novel-lint":       novellint.Main,
	"novel-mcp":        novelmcp.Main,
}

func TestMain(m *testing.M) {
	if main, ok := commands[filepath.Base(os.Args[0])]; ok {
		os.Exit(main())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repo = filepath.Dir(filepath.Dir(file))
	demo = filepath.Join(repo, "examples", "demo", "project")
	replay = filepath.Join(repo, "examples", "demo", "replay")
	pipeMK = filepath.Join(repo, "pipeline.mk")
	tmp, err := os.MkdirTemp("", "novel-reliability-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = tmp
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for name := range commands {
		if err := os.Symlink(self, filepath.Join(binDir, name)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	defer func() {
		if fixBase != "" {
			os.RemoveAll(fixBase)
		}
	}()
	return m.Run()
}

// env is the environment of every run: the built binaries first on PATH,
// a fixed clock, and nothing inherited that would point at another project
// or lock.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "NOVEL_") || k == "PATH" || k == "MAKEFLAGS" || k == "MAKELEVEL" || k == "MFLAGS" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "NOVEL_NOW="+Now, "LANG=C.UTF-8")
	return append(out, extra...)
}

// Result is one finished command.
type Result struct {
	Exit           int
	Stdout, Stderr string
}

// LastErr is the parsed last stderr line (the suite's error object).
func (r Result) LastErr() (code string, raw string) {
	lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
	raw = lines[len(lines)-1]
	if e := errs.ParseLine([]byte(raw)); e != nil {
		return e.Code, raw
	}
	return "", raw
}

// runIn runs a built binary (or any command) in dir.
func runIn(t testing.TB, dir string, extraEnv []string, name string, args ...string) Result {
	t.Helper()
	path := name
	if !strings.Contains(name, "/") {
		if p := filepath.Join(binDir, name); fileExists(p) {
			path = p
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env(extraEnv...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := Result{Stdout: so.String(), Stderr: se.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s %v: %v", name, args, err)
		}
		r.Exit = ee.ExitCode()
	}
	return r
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// copyOf copies a template tree into a fresh temporary directory.
func copyOf(t testing.TB, template string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "p")
	if err := testkit.CopyTree(template, dst, true); err != nil {
		t.Fatal(err)
	}
	return dst
}

// tree lists every entry under root (testkit.Tree), failing the test on error.
func tree(t testing.TB, root string, withMtime bool) map[string]string {
	t.Helper()
	out, err := testkit.Tree(root, withMtime)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
