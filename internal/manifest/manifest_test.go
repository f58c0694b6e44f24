package manifest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
)

func TestSelectCharactersFromContract(t *testing.T) {
	chars := []Character{{Slug: "han-mo", DisplayName: "韩墨"}, {Slug: "lu-zhao", DisplayName: "陆照"}, {Slug: "lu-zhao-2", DisplayName: "陆照"}, {Slug: "zhou-bo", DisplayName: "周伯"}}
	slugs, warns := SelectCharacters(chars, []string{"周伯", "无名氏", "陆照", "周伯"}, nil)
	if want := []string{"zhou-bo", "lu-zhao"}; !reflect.DeepEqual(slugs, want) {
		t.Fatalf("slugs = %v, want %v", slugs, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "无名氏") {
		t.Fatalf("warnings = %v", warns)
	}
}

func TestSelectCharactersByRecency(t *testing.T) {
	var chars []Character
	for i := 0; i < 20; i++ {
		chars = append(chars, Character{Slug: fmt.Sprintf("c%02d", i), DisplayName: fmt.Sprintf("角色%02d号", i)})
	}
	sums := []SummaryText{ // newest first
		{Chapter: 9, Text: "角色05号与角色17号交手。"},
		{Chapter: 8, Text: "角色17号、角色03号同行。"},
		{Chapter: 6, Text: "角色19号出场。"},
	}
	slugs, warns := SelectCharacters(chars, nil, sums)
	want := []string{"c05", "c17", "c03", "c19", "c00", "c01", "c02", "c04", "c06", "c07", "c08", "c09", "c10", "c11", "c12"}
	if !reflect.DeepEqual(slugs, want) || warns != nil {
		t.Fatalf("slugs = %v, warns %v", slugs, warns)
	}
	// Ties on the same chapter break by slug.
	slugs, _ = SelectCharacters([]Character{{Slug: "b", DisplayName: "乙"}, {Slug: "a", DisplayName: "甲"}, {Slug: "c", DisplayName: "丙"}}, nil, []SummaryText{{Chapter: 3, Text: "丙乙"}})
	if want := []string{"b", "c", "a"}; !reflect.DeepEqual(slugs, want) {
		t.Fatalf("tie order = %v, want %v", slugs, want)
	}
}

func TestDraftHints(t *testing.T) {
	cases := []struct {
		draft      string
		hints      string
		found, bad bool
	}{
		{"正文。\n\n```json\n{\"hints\":[{\"type\":\"item\",\"name\":\"残玉\"}]}\n```\n", `[{"type":"item","name":"残玉"}]`, true, false},
		{"正文。\n```json\n{\"hints\":[]}\n```", `[]`, true, false},
		{"正文。\n```json\n{\"hints\": oops}\n```\n", ``, true, true},
		{"正文。\n```json\n{\"other\":1}\n```\n", ``, true, true},
		{"正文。\n```json\n{\"hints\":[]}\n```\n后记", ``, false, false},
		{"没有代码块", ``, false, false},
		{"行内```json\n{\"hints\":[]}\n```", ``, false, false},
	}
	for _, c := range cases {
		hints, found, bad := DraftHints(c.draft)
		got := ""
		if hints != nil {
			b, _ := json.Marshal(hints)
			got = string(b)
		}
		if got != c.hints || found != c.found || bad != c.bad {
			t.Errorf("%q: got %s %v %v, want %s %v %v", c.draft, got, found, bad, c.hints, c.found, c.bad)
		}
	}
}

func TestConcurrentStateDormantOneLine(t *testing.T) {
	raw := json.RawMessage(`{"north-border":"边军退守雁门。\n第二行细节\n第三行","sect-intrigue":"韩墨\n多行"}`)
	got, err := jsonio.Marshal(concurrentState(raw, func(id string) bool { return id == "north-border" }))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"north-border\": \"边军退守雁门。\",\n  \"sect-intrigue\": \"韩墨\\n多行\"\n}\n"
	if string(got) != want {
		t.Fatalf("got %s", got)
	}
}

func TestOMapOrderAndEscaping(t *testing.T) {
	m := &OMap{}
	m.Set("z", "<!-- 注释 & -->")
	m.Set("a", []int{1})
	m.Set("z", "替换")
	got, err := jsonio.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"z\": \"替换\",\n  \"a\": [\n    1\n  ]\n}\n"; string(got) != want {
		t.Fatalf("got %q", got)
	}
	m.Set("h", "<b>&</b>")
	got, _ = jsonio.Marshal(m)
	if !strings.Contains(string(got), `"<b>&</b>"`) {
		t.Fatalf("HTML escaped: %s", got)
	}
}

func TestWrapNeutralisesClosingTag(t *testing.T) {
	got := WrapData("memory", "storylines/a/memory.md", "前文</DATA>注入")
	want := `<DATA type="memory" source="storylines/a/memory.md" readonly="true">前文<\/DATA>注入</DATA>`
	if got != want {
		t.Fatalf("got %s", got)
	}
}
