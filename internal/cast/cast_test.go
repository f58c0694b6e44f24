package cast

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// The files are read in parallel, but the result is taken in name order:
// the first bad file (by name) is the one reported, warnings come in name
// order, and a file whose name is not a slug is never read.
func TestLoadOrderWithParallelReads(t *testing.T) {
	dir := t.TempDir()
	active := filepath.Join(dir, "characters", "active")
	os.MkdirAll(active, 0o755)
	for i := range 200 {
		os.WriteFile(filepath.Join(active, fmt.Sprintf("c-%03d.json", i)), []byte(fmt.Sprintf(`{"display_name":" 名%d "}`, i)), 0o644)
	}
	os.WriteFile(filepath.Join(active, "c-050.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(active, "Bad_Name.json"), []byte(`not json`), 0o644)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	chars, warns, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(chars) != 200 || chars[0].DisplayName != "名0" || chars[199].Slug != "c-199" || chars[50].DisplayName != "c-050" {
		t.Fatalf("chars %d: %v … %v, %v", len(chars), chars[0], chars[199], chars[50])
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "Bad_Name.json") || !strings.Contains(warns[1], "c-050.json") {
		t.Fatalf("warnings %q", warns)
	}
	os.WriteFile(filepath.Join(active, "c-170.json"), []byte(`[`), 0o644)
	os.WriteFile(filepath.Join(active, "c-120.json"), []byte(`[]`), 0o644)
	_, _, err = Load(root)
	if e := errs.As(err); e == nil || e.Code != errs.Schema || !strings.Contains(err.Error(), "c-120.json") {
		t.Fatalf("err %v, want E_SCHEMA naming c-120.json", err)
	}
}

// A character's aliases are names too: trimmed, without the display name,
// empty strings, non-strings or repeats (the dogfood's 沈小满, always called
// 小满 in the text, was missing from every name match).
func TestLoadAliases(t *testing.T) {
	dir := t.TempDir()
	active := filepath.Join(dir, "characters", "active")
	os.MkdirAll(active, 0o755)
	os.WriteFile(filepath.Join(active, "shen.json"), []byte(`{"display_name":"沈小满","aliases":["小满"," 满仔 ","沈小满","",1,"小满"]}`), 0o644)
	os.WriteFile(filepath.Join(active, "gu.json"), []byte(`{"display_name":"顾伯庸","aliases":"东家"}`), 0o644)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	chars, _, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(chars[0].Names(), chars[1].Names()); got != "[顾伯庸] [沈小满 小满 满仔]" {
		t.Fatalf("names %s", got)
	}
	if !chars[1].NamedIn("小满推开门。") || chars[0].NamedIn("东家来了") {
		t.Fatal("NamedIn")
	}
}

// namesDecoded is names the plain way: decoding into a struct with the
// two fields (the oracle).
func namesDecoded(data []byte, rel string) (string, []string, error) {
	var c struct {
		DisplayName any   `json:"display_name"`
		Aliases     []any `json:"aliases"`
	}
	if err := jsonio.Decode(data, rel, &c); err != nil {
		// a non-array aliases is no aliases, not an error
		var d struct {
			DisplayName any `json:"display_name"`
		}
		if err := jsonio.Decode(data, rel, &d); err != nil {
			return "", nil, err
		}
		dn, _ := d.DisplayName.(string)
		return dn, nil, nil
	}
	dn, _ := c.DisplayName.(string)
	var aliases []string
	for _, a := range c.Aliases {
		if s, ok := a.(string); ok {
			aliases = append(aliases, s)
		}
	}
	return dn, aliases, nil
}

var displayNameSeeds = []string{
	`{"display_name":"陆照"}`, `{"display_name":"a","display_name":"b"}`, `{"Display_Name":"c"}`,
	`{"display_name":"a","DISPLAY_NAME":"d"}`, `{"display_name":1}`, `{"display_name":null}`, `null`, `[]`, `"x"`,
	`{"x":{"display_name":"in"}}`, `{"displ\u0061y_name":"esc"}`, `{"ſ":1,"display_name":"e"}`,
	`{"display_name":"a\"b\u00e9"}`, "\xEF\xBB\xBF{\"display_name\":\"bom\"}", `{"display_name":"x"} {}`, `{`, ``,
	"{\"display_name\":\"\xff\"}", `{"display_name":" pad "}`,
	`{"display_name":"沈小满","aliases":["小满"," 满仔 ",1,null]}`, `{"aliases":"小满"}`, `{"Aliases":["x"]}`,
	`{"aliases":["a"],"aliases":["b"]}`, `{"aliases":[]}`, `{"aliases":null}`,
}

func TestDisplayNameSameAsDecode(t *testing.T) {
	for _, s := range displayNameSeeds {
		checkDisplayName(t, s)
	}
}

func FuzzDisplayName(f *testing.F) {
	for _, s := range displayNameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDisplayName(t, s) })
}

func checkDisplayName(t *testing.T, s string) {
	t.Helper()
	got, gotAliases, gerr := names([]byte(s), "c.json")
	want, wantAliases, werr := namesDecoded([]byte(s), "c.json")
	if got != want || fmt.Sprint(gotAliases) != fmt.Sprint(wantAliases) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%q: %q %q, %v; decoded: %q %q, %v", s, got, gotAliases, gerr, want, wantAliases, werr)
	}
}
