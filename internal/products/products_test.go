package products

import (
	"reflect"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

func TestOwnName(t *testing.T) {
	for name, want := range map[string]bool{
		"chapter-048.md":              true,
		"chapter-048-eval.json":       true,
		"chapter-048.pre-refine.md":   true,
		"chapter-0481.md":             false,
		"chapter-04.md":               false,
		"chapter-048":                 true,
		"chapter-047-draft.packet.js": false,
	} {
		if got := ownName(name, "chapter-048"); got != want {
			t.Errorf("ownName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseDelta(t *testing.T) {
	ok := `{"chapter":48,"base_state_version":47,"storyline_id":"main-arc","ops":[{"op":"set","path":"characters.lin-feng.hp","value":3}],
	"unknown_entities":[{"name":"黑衣人","context":"雨夜出现"}]}`
	d, err := ParseDelta([]byte(ok), "d.json", 48)
	if err != nil {
		t.Fatal(err)
	}
	if d.BaseStateVersion != 47 || d.StorylineID != "main-arc" || len(d.Ops) != 1 ||
		!reflect.DeepEqual(d.UnknownEntities, []UnknownEntity{{Name: "黑衣人", Context: "雨夜出现"}}) {
		t.Fatalf("unexpected delta %+v", d)
	}
	bad := map[string]string{
		`[]`:   errs.Schema,
		`null`: errs.Schema,
		`{"chapter":47,"base_state_version":1,"storyline_id":"a","ops":[]}`:                                      errs.Schema,
		`{"chapter":48,"base_state_version":1.5,"storyline_id":"a","ops":[]}`:                                    errs.Schema,
		`{"chapter":48,"base_state_version":-1,"storyline_id":"a","ops":[]}`:                                     errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"../x","ops":[]}`:                                   errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"Main","ops":[]}`:                                   errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"a","ops":{}}`:                                      errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"a"}`:                                               errs.Schema,
		`{"chapter":"48","base_state_version":1,"storyline_id":"a","ops":[]}`:                                    errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"a","ops":[],"unknown_entities":[{"context":"x"}]}`: errs.Schema,
		`{"chapter":48,"base_state_version":1,"storyline_id":"a","ops":[],"unknown_entities":"x"}`:               errs.Schema,
		`{"chapter":48,`: errs.InvalidJSON,
		``:               errs.InvalidJSON,
	}
	for in, code := range bad {
		if _, err := ParseDelta([]byte(in), "d.json", 48); !errs.Is(err, code) {
			t.Errorf("ParseDelta(%s) = %v, want %s", in, err, code)
		}
	}
}

func FuzzParseDelta(f *testing.F) {
	f.Add([]byte(`{"chapter":1,"base_state_version":0,"storyline_id":"a","ops":[]}`))
	f.Add([]byte(`{"unknown_entities":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDelta(data, "d.json", 1)
		if err == nil && (d.Chapter != 1 || !project.IsSlug(d.StorylineID) || d.Ops == nil) {
			t.Fatalf("accepted an invalid delta: %+v", d)
		}
		if err != nil && errs.As(err) == nil {
			t.Fatalf("untyped error %v", err)
		}
	})
}

func TestStagingFiles(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"staging/chapters/chapter-048.md":                     "正文",
		"staging/chapters/chapter-048.pre-refine.md":          "正文",
		"staging/chapters/chapter-0481.md":                    "别章",
		"staging/chapters/chapter-049.md":                     "下一章",
		"staging/state/chapter-048-delta.json":                `{"chapter":48,"base_state_version":1,"storyline_id":"main-arc","ops":[]}`,
		"staging/storylines/main-arc/memory.md":               "记忆",
		"staging/storylines/side/memory.md":                   "别线",
		"staging/revisions/chapter-048/r0/chapter-048.md":     "旧稿",
		"staging/manifests/chapter-048-draft.packet.json":     "{}",
		"staging/logs/chapter-048-run.jsonl":                  "",
		"staging/commit-048.journal.json":                     "{}",
		"staging/evaluations/chapter-048-eval.secondary.json": "{}",
	})
	got, err := StagingFiles(root, 48)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"staging/chapters/chapter-048.md",
		"staging/chapters/chapter-048.pre-refine.md",
		"staging/evaluations/chapter-048-eval.secondary.json",
		"staging/logs/chapter-048-run.jsonl",
		"staging/manifests/chapter-048-draft.packet.json",
		"staging/revisions/chapter-048/r0/chapter-048.md",
		"staging/state/chapter-048-delta.json",
		"staging/storylines/main-arc/memory.md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("StagingFiles = %q\nwant %q", got, want)
	}
}
