package jsonio

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		in        string
		code      string
		line, col int
	}{
		{"{\n  \"a\": 1,\n  \"b\": }", errs.InvalidJSON, 3, 8},
		{"", errs.InvalidJSON, 1, 1},
		{"{\"a\":1} x", errs.InvalidJSON, 1, 9},
		{"{\"a\":\"\xff\"}", errs.InvalidJSON, 1, 7},
		{"{\"a\":", errs.InvalidJSON, 1, 6},
		{"[1]", errs.Schema, 1, 2},
	}
	for _, c := range cases {
		var v map[string]any
		err := Decode([]byte(c.in), "x.json", &v)
		e := errs.As(err)
		if e == nil || e.Code != c.code || e.Details["line"] != c.line || e.Details["column"] != c.col || e.Details["file"] != "x.json" {
			t.Errorf("%q: %v %v", c.in, err, e)
		}
	}
}

func TestDecodeBOMAndNumbers(t *testing.T) {
	var v map[string]any
	if err := Decode([]byte("\xEF\xBB\xBF{\"n\": 12345678901234567890, \"f\": 1.5}"), "x", &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := Int(v["n"]); ok {
		t.Error("overflowing int accepted as int")
	}
	if f, ok := Float(v["f"]); !ok || f != 1.5 {
		t.Error("float")
	}
}

func TestReadFileLimits(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "nope"), "nope"); !errs.Is(err, errs.MissingFile) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ReadFile(dir, "dir"); !errs.Is(err, errs.IO) {
		t.Errorf("dir: %v", err)
	}
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(MaxFileSize + 1)
	f.Close()
	if _, err := ReadFile(big, "big"); !errs.Is(err, errs.IO) {
		t.Errorf("big: %v", err)
	}
}

func TestMarshalAndAtomicWrite(t *testing.T) {
	b, _ := Marshal(map[string]any{"b": "<&>", "a": "中文"})
	if string(b) != "{\n  \"a\": \"中文\",\n  \"b\": \"<&>\"\n}\n" {
		t.Fatalf("%q", b)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x", "y.json")
	if err := WriteJSON(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
	data, _ := os.ReadFile(p)
	if !strings.HasSuffix(string(data), "}\n") {
		t.Fatal("no trailing newline")
	}
}

// A type error names JSON types (object, array, …), never Go types, and
// the English message carries no Chinese.
func TestTypeErrorNamesJSONTypes(t *testing.T) {
	cases := []struct {
		in   string
		v    any
		want string
	}{
		{"[1]", &map[string]any{}, "settings.json: field (top level) has the wrong type: want object, got array"},
		{`{"a":"x"}`, &struct {
			A int `json:"a"`
		}{}, "settings.json: field a has the wrong type: want number, got string"},
		{`{"a":1}`, &struct {
			A []string `json:"a"`
		}{}, "settings.json: field a has the wrong type: want array, got number"},
		{`{"a":{}}`, &struct {
			A string `json:"a"`
		}{}, "settings.json: field a has the wrong type: want string, got object"},
		{`{"a":true}`, &struct {
			A *json.Number `json:"a"`
		}{}, "settings.json: field a has the wrong type: want number, got bool"},
		{`{"a":"x"}`, &struct {
			A bool `json:"a"`
		}{}, "settings.json: field a has the wrong type: want boolean, got string"},
	}
	for _, c := range cases {
		e := errs.As(Decode([]byte(c.in), "settings.json", c.v))
		if e == nil || e.Code != errs.Schema || e.Message("en") != c.want || strings.Contains(e.Message("zh"), "interface") {
			t.Errorf("%s: %v", c.in, e)
		}
	}
}

// A failed write says what to check and leaves no temp file behind.
func TestWriteFailureHasHint(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	e := errs.As(WriteFile(target, []byte("x")))
	if e == nil || e.Code != errs.IO || e.HintText("zh") == "" || e.HintText("en") == "" || e.Details["file"] != target {
		t.Fatalf("%v", e)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// Invalid JSON reads as one sentence per language.
func TestInvalidJSONMessages(t *testing.T) {
	var v map[string]any
	e := errs.As(Decode([]byte("{\"a\":"), "x.json", &v))
	if e == nil || e.Message("en") != "x.json JSON ends unexpectedly (line 1, column 6)" ||
		e.Message("zh") != "x.json JSON 不完整（意外结束）（第 1 行第 6 列）" {
		t.Fatalf("%q / %q", e.Message("en"), e.Message("zh"))
	}
}
