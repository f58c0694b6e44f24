package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/novelsuite/novel/internal/errs"
)

type echoCmd struct {
	Word string `arg:""`
}

func (c *echoCmd) Run(ctx *Context) error {
	switch c.Word {
	case "fail":
		return errs.New(errs.Schema, "坏数据", "bad data").Hint("修一下", "fix it").With("file", "x.json")
	case "blocked":
		return errs.New(errs.PendingRevision, "被阻塞", "blocked")
	case "panic":
		panic("boom") // the runner must turn any panic into an E_IO line
	}
	ctx.Result(map[string]any{"word": c.Word, "list": []int{1, 2}, "html": "<a&b>"}, func() string { return "word=" + c.Word })
	return nil
}

type testGrammar struct {
	Globals `embed:""`
	Echo    echoCmd `cmd:""`
}

func runT(t *testing.T, cwd string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run("novel-test", "test tool", &testGrammar{}, args, IO{In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(string) string { return "" }, Cwd: cwd})
	return out.String(), errb.String(), code
}

func TestResultJSON(t *testing.T) {
	out, errOut, code := runT(t, t.TempDir(), "echo", "hi")
	want := "{\n  \"html\": \"<a&b>\",\n  \"list\": [\n    1,\n    2\n  ],\n  \"word\": \"hi\"\n}\n"
	if code != 0 || out != want || errOut != "" {
		t.Fatalf("code=%d out=%q err=%q", code, out, errOut)
	}
}

func TestTextAndJQ(t *testing.T) {
	out, _, code := runT(t, t.TempDir(), "echo", "hi", "--text")
	if code != 0 || out != "word=hi\n" {
		t.Fatalf("text: %d %q", code, out)
	}
	out, _, code = runT(t, t.TempDir(), "echo", "hi", "--jq", ".word, .list, .list[]")
	if code != 0 || out != "hi\n[1,2]\n1\n2\n" {
		t.Fatalf("jq: %d %q", code, out)
	}
	_, errOut, code := runT(t, t.TempDir(), "echo", "hi", "--jq", ".[")
	if code != 2 || !strings.Contains(errOut, `"code":"E_USAGE"`) {
		t.Fatalf("bad jq: %d %q", code, errOut)
	}
	_, errOut, code = runT(t, t.TempDir(), "echo", "hi", "--jq", ".word", "--text")
	if code != 2 || !strings.Contains(errOut, `"code":"E_USAGE"`) {
		t.Fatalf("jq+text: %d %q", code, errOut)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	out, _, code := runT(t, dir, "echo", "hi", "-o", "r.json", "--jq", ".word")
	if code != 0 || out != "" {
		t.Fatalf("%d %q", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || string(data) != "hi\n" {
		t.Fatalf("%v %q", err, data)
	}
}

// -o never creates directories and never replaces what is not a regular
// file (SPEC §1): a missing parent is E_IO, a symlink's target is
// replaced (the link stays), a FIFO or device is written through, and
// /dev/stdout is the command's own stdout.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runT(t, dir, "echo", "hi", "-o", "sub/r.json", "--jq", ".word")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, `{"error":{"code":"E_IO","message":"无法写入 `+filepath.Join(dir, "sub/r.json")+`：所在目录不存在"`) {
		t.Fatalf("missing dir: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Fatalf("sub/ was created: %v", err)
	}

	os.WriteFile(filepath.Join(dir, "t.txt"), []byte("old\n"), 0o644)
	os.Symlink("t.txt", filepath.Join(dir, "l.json"))
	if _, errOut, code := runT(t, dir, "echo", "hi", "-o", "l.json", "--jq", ".word"); code != 0 {
		t.Fatalf("symlink: %d %q", code, errOut)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "l.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "t.txt")); string(data) != "hi\n" {
		t.Fatalf("link target: %q", data)
	}
	// A dangling link is written through to its (new) target.
	os.Symlink("new.json", filepath.Join(dir, "d.json"))
	if _, errOut, code := runT(t, dir, "echo", "yo", "-o", "d.json", "--jq", ".word"); code != 0 {
		t.Fatalf("dangling: %d %q", code, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "new.json")); string(data) != "yo\n" {
		t.Fatalf("dangling link target: %q", data)
	}

	fifo := filepath.Join(dir, "f")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() { b, _ := os.ReadFile(fifo); got <- string(b) }()
	if _, errOut, code := runT(t, dir, "echo", "hi", "-o", "f", "--jq", ".word"); code != 0 {
		t.Fatalf("fifo: %d %q", code, errOut)
	}
	if s := <-got; s != "hi\n" {
		t.Fatalf("fifo read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}

	for _, name := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		out, errOut, code := runT(t, dir, "echo", "hi", "-o", name, "--jq", ".word")
		if code != 0 || out != "hi\n" || errOut != "" {
			t.Fatalf("%s: %d %q %q", name, code, out, errOut)
		}
	}
	if _, errOut, code := runT(t, dir, "echo", "hi", "-o", "/dev/stderr", "--jq", ".word"); code != 0 || errOut != "hi\n" {
		t.Fatalf("/dev/stderr: %d %q", code, errOut)
	}
	if _, errOut, code := runT(t, dir, "echo", "hi", "-o", dir); code != 1 || !strings.Contains(errOut, "是一个目录") {
		t.Fatalf("directory: %d %q", code, errOut)
	}

	// A device node in the temp dir (root only): a copy of /dev/null's
	// numbers, never the real one.
	null := filepath.Join(dir, "x-null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Logf("no device node test (%v)", err)
		return
	}
	if _, errOut, code := runT(t, dir, "echo", "hi", "-o", "x-null"); code != 0 {
		t.Fatalf("device: %d %q", code, errOut)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("the device node was replaced: %v %v", fi.Mode(), err)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	out, errOut, code := runT(t, t.TempDir(), "echo", "fail")
	if code != 1 || out != "" {
		t.Fatalf("%d %q", code, out)
	}
	want := `{"error":{"code":"E_SCHEMA","message":"坏数据","hint":"修一下","details":{"file":"x.json"}}}` + "\n"
	if errOut != want {
		t.Fatalf("got %q", errOut)
	}
	if _, _, code := runT(t, t.TempDir(), "echo", "blocked"); code != 3 {
		t.Fatalf("blocked exit %d", code)
	}
	_, errOut, code = runT(t, t.TempDir(), "--bogus")
	if code != 2 || !strings.HasPrefix(errOut, `{"error":{"code":"E_USAGE"`) {
		t.Fatalf("usage %d %q", code, errOut)
	}
	_, errOut, code = runT(t, t.TempDir(), "echo", "panic")
	if code != 1 || !strings.Contains(errOut, `"code":"E_IO"`) || strings.Contains(errOut, "goroutine") {
		t.Fatalf("panic %d %q", code, errOut)
	}
}

func TestEnglishMessages(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"language":"en"}`), 0o644)
	_, errOut, _ := runT(t, dir, "echo", "fail")
	if !strings.Contains(errOut, `"message":"bad data","hint":"fix it"`) {
		t.Fatalf("%q", errOut)
	}
}

func TestHelpExitsZero(t *testing.T) {
	out, _, code := runT(t, t.TempDir(), "--help")
	if code != 0 || !strings.Contains(out, "Exit codes: 0 ok") || !strings.Contains(out, "E_WRITE_BOUNDARY") {
		t.Fatalf("%d %q", code, out)
	}
}

// Every --jq / --text misuse is a usage error (exit 2) with a hint, and
// prints nothing on stdout.
func TestJQMisuseIsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"echo", "hi", "--text", "--jq", ".word"},
		{"echo", "hi", "--jq", ".["},
		{"echo", "hi", "--jq", ".word | error(\"x\")"},
		{"echo", "hi", "--jq", ".word.x"},
	} {
		out, errOut, code := runT(t, t.TempDir(), args...)
		if code != 2 || out != "" || !strings.Contains(errOut, `"code":"E_USAGE"`) || strings.Contains(errOut, `"hint":""`) {
			t.Errorf("%v: code=%d out=%q err=%q", args, code, out, errOut)
		}
	}
}
