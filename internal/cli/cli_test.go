package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	code := Run("novel-test", "test tool", &testGrammar{}, args, IO{In: strings.NewReader(""), Out: &out, Err: &errb,
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
	out, _, code := runT(t, dir, "echo", "hi", "-o", "sub/r.json", "--jq", ".word")
	if code != 0 || out != "" {
		t.Fatalf("%d %q", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sub/r.json"))
	if err != nil || string(data) != "hi\n" {
		t.Fatalf("%v %q", err, data)
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
