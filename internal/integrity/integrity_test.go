package integrity

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project writes chapters 1..n with summaries, a baseline at chapter b
// (none when b < 0) and the given changelog (none when empty).
func fixture(t *testing.T, n, b int, changelog string) (*project.Root, string) {
	t.Helper()
	dir := t.TempDir()
	for c := 1; c <= n; c++ {
		write(t, dir, layout.Chapter(c), "# 第1章\n")
		write(t, dir, layout.Summary(c), "摘要\n")
	}
	if b >= 0 {
		write(t, dir, layout.Baseline, `{"schema_version":1,"state_version":0,"last_updated_chapter":`+strconv.Itoa(b)+`,"characters":{}}`+"\n")
	}
	if changelog != "" {
		write(t, dir, layout.Changelog, changelog)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, dir
}

func lines(chapters ...string) string {
	var b strings.Builder
	for _, c := range chapters {
		b.WriteString(`{"chapter":` + c + `,"state_version":` + c + `,"ops":[],"dropped":[]}` + "\n")
	}
	return b.String()
}

func TestIntactProjects(t *testing.T) {
	for name, tc := range map[string]struct {
		n, b      int
		changelog string
	}{
		"suite project":                                        {3, 0, lines("1", "2", "3")},
		"never committed by the suite":                         {3, -1, ""},
		"baseline covers all chapters":                         {3, 3, ""},
		"chapters before the changelog came from another tool": {3, 1, lines("2", "3")},
		"plugin lines, other key order":                        {2, -1, `{"ops":[], "chapter": 1}` + "\n" + `{"chapter": 2}` + "\n"},
		"a foreshadow op dropped, not committed":               {1, 0, `{"chapter":1,"ops":[],"dropped":[{"op":{"op":"foreshadow","path":"F-1"}}]}` + "\n"},
	} {
		t.Run(name, func(t *testing.T) {
			root, _ := fixture(t, tc.n, tc.b, tc.changelog)
			g, err := Check(root, tc.n)
			if err != nil || g != nil {
				t.Fatalf("gap %+v, err %v", g, err)
			}
		})
	}
}

func TestGaps(t *testing.T) {
	root, dir := fixture(t, 4, 0, lines("1", "3"))
	os.Remove(filepath.Join(dir, layout.Chapter(2)))
	os.Remove(filepath.Join(dir, layout.Summary(4)))
	g, err := Check(root, 4)
	if err != nil || g == nil {
		t.Fatalf("gap %+v, err %v", g, err)
	}
	want := &Gap{Missing: []string{"chapters/chapter-002.md", "summaries/chapter-004-summary.md"}, ChangelogChapters: []int{2, 4}, First: 2, Last: 4}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("gap %+v, want %+v", g, want)
	}
	e := g.Err()
	if e.Code != errs.Integrity || e.Exit != errs.ExitFailed {
		t.Fatalf("%+v", e)
	}
	if msg := e.Message("en"); msg != "committed files of the project are missing (4 chapters done): chapters/chapter-002.md, summaries/chapter-004-summary.md, the chapter 2 line of state/changelog.jsonl, the chapter 4 line of state/changelog.jsonl" {
		t.Fatalf("message %q", msg)
	}
	if h := e.HintText("en"); !strings.Contains(h, "novel-commit rollback --to 2 ") {
		t.Fatalf("hint %q", h)
	}
}

// A lost changelog is noticed from the baseline's chapter on; a lost
// global.json once a foreshadow op was committed.
func TestLostChangelogAndForeshadowing(t *testing.T) {
	root, _ := fixture(t, 3, 1, "")
	g, err := Check(root, 3)
	if err != nil || g == nil || !reflect.DeepEqual(g.ChangelogChapters, []int{2, 3}) || g.First != 2 {
		t.Fatalf("gap %+v, err %v", g, err)
	}
	root, dir := fixture(t, 2, 0, `{"chapter":1,"ops":[]}`+"\n"+`{"chapter":2,"ops":[{"op": "foreshadow","path":"F-001","value":"planted"}]}`+"\n")
	g, err = Check(root, 2)
	if err != nil || g == nil || !reflect.DeepEqual(g.Missing, []string{layout.GlobalForeshadow}) || g.First != 2 {
		t.Fatalf("gap %+v, err %v", g, err)
	}
	write(t, dir, layout.GlobalForeshadow, `{"foreshadowing":[]}`)
	if g, err := Check(root, 2); err != nil || g != nil {
		t.Fatalf("gap %+v, err %v", g, err)
	}
}

// More than five missing files: the message names five and the count.
func TestLongListIsShortened(t *testing.T) {
	root, _ := fixture(t, 0, -1, "")
	e := Require(root, 4)
	if e == nil || !strings.HasSuffix(errs.Coerce(e).Message("zh"), "chapters/chapter-003.md 等 8 项") {
		t.Fatalf("%v", e)
	}
}

// A dropped foreshadow op, or one on a line that is not a commit line,
// does not hide a committed one further down.
func TestForeshadowAfterADroppedOne(t *testing.T) {
	cl := `{"chapter":1,"ops":[],"dropped":[{"op":{"op":"foreshadow"}}]}` + "\n" +
		`not json "op":"foreshadow"` + "\n" +
		`{"chapter":2,"ops":[]}` + "\n" +
		`{"chapter":3,"ops":[{"op":"foreshadow","path":"F-1","value":"planted"}]}` + "\n"
	root, _ := fixture(t, 3, 0, cl)
	g, err := Check(root, 3)
	if err != nil || g == nil || !reflect.DeepEqual(g.Missing, []string{layout.GlobalForeshadow}) || g.First != 3 {
		t.Fatalf("gap %+v, err %v", g, err)
	}
}

// The streamed read (global.json present) and the whole-file read give
// the same chapters and lowest line: lines longer than the 64 KiB buffer,
// blank and foreign lines, CRLF, no final newline, chapters past last.
func TestChangelogStreamSameAsWhole(t *testing.T) {
	long := `{"chapter":3,"ops":[` + strings.Repeat(`{"op":"set","path":"characters.a.note","value":"x"},`, 3000) + `{}]}`
	body := "{\"chapter\":2,\"ops\":[]}\r\n\n" + long + "\n" + `{"ops":[],"chapter":5}` + "\nnot json\n" +
		strings.Repeat(`{"chapter":4,"ops":[]}`+"\n", 2000) + `{"chapter":9,"ops":[]}`
	dir := t.TempDir()
	write(t, dir, layout.Changelog, body)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := scanChangelog(root, 6, false)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := scanChangelog(root, 6, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(streamed.chapters, whole.chapters) || streamed.lowest != whole.lowest || streamed.lowest != 2 {
		t.Fatalf("streamed %v/%d, whole %v/%d", streamed.chapters, streamed.lowest, whole.chapters, whole.lowest)
	}
	if want := []bool{false, false, true, true, true, true, false}; !slices.Equal(streamed.chapters, want) {
		t.Fatalf("chapters %v, want %v", streamed.chapters, want)
	}
}
