package bookplan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

const good = `{"target_chapters":30,
 "volumes":[
  {"volume":1,"title":"灯起","chapters":[1,10],"arc":"守灯到下山","goal":"查清第七盏灯","ending_state":"陆照北上"},
  {"volume":2,"title":"雪关","chapters":[11,30],"arc":"雪关求证","goal":"找到周伯","ending_state":"周伯归来"}],
 "ending":"长明殿重燃",
 "main_arcs":[{"character":"陆照","from":"怯懦的守灯人","to":"敢于担当的殿主"}]}`

var names = map[string]bool{"陆照": true, "周伯": true}

func TestParseGood(t *testing.T) {
	p, err := Parse([]byte(good), File, names)
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetChapters != 30 || len(p.Volumes) != 2 || p.Volumes[1].Chapters != [2]int{11, 30} || p.MainArcs[0].Character != "陆照" {
		t.Fatalf("parsed %+v", p)
	}
	pos, ok := p.PositionOf(1)
	want := Position{Volume: 1, Of: 2, Chapters: [2]int{1, 10}, Title: "灯起", Arc: "守灯到下山", Goal: "查清第七盏灯", Ending: "陆照北上",
		After: "第 2 卷《雪关》（第 11–30 章）：找到周伯"}
	if !ok || !reflect.DeepEqual(pos, want) {
		t.Fatalf("position 1 = %+v", pos)
	}
	if pos, _ := p.PositionOf(2); pos.After != "全书结局：长明殿重燃" {
		t.Fatalf("position 2 after = %q", pos.After)
	}
	if _, ok := p.PositionOf(3); ok {
		t.Fatal("volume 3 has no position")
	}
}

func TestParseRefusals(t *testing.T) {
	cases := []struct {
		name, from, to, code, field string
		detail                      string
		value                       any
	}{
		{"gap", `"chapters":[11,30]`, `"chapters":[13,30]`, errs.Outline, "volumes[1].chapters", "missing_chapters", []int{11, 12}},
		{"overlap", `"chapters":[11,30]`, `"chapters":[9,30]`, errs.Outline, "volumes[1].chapters", "expected_start", 11},
		{"short", `"target_chapters":30`, `"target_chapters":32`, errs.Outline, "volumes", "missing_chapters", []int{31, 32}},
		{"long", `"target_chapters":30`, `"target_chapters":28`, errs.Outline, "volumes", "extra_chapters", []int{29, 30}},
		{"numbering", `"volume":2`, `"volume":3`, errs.Outline, "volumes[1].volume", "volume", 2},
		{"unregistered", `"character":"陆照"`, `"character":"贺九"`, errs.Schema, "main_arcs[0].character", "value", "贺九"},
		{"no goal", `"goal":"找到周伯",`, ``, errs.Schema, "volumes[1].goal", "volume", 2},
		{"reversed range", `"chapters":[1,10]`, `"chapters":[10,1]`, errs.Schema, "volumes[0].chapters", "volume", 1},
		{"no ending", `"ending":"长明殿重燃"`, `"ending":" "`, errs.Schema, "ending", "file", File},
		{"no target", `"target_chapters":30`, `"target_chapters":0`, errs.Schema, "target_chapters", "file", File},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(good, c.from, c.to, 1)
			if in == good {
				t.Fatal("case changes nothing")
			}
			_, err := Parse([]byte(in), File, names)
			e := errs.As(err)
			if e == nil || e.Code != c.code || e.Details["field"] != c.field || e.Details["file"] != File {
				t.Fatalf("got %v (%#v)", err, e)
			}
			if got := e.Details[c.detail]; !reflect.DeepEqual(got, c.value) {
				t.Fatalf("%s = %#v, want %#v", c.detail, got, c.value)
			}
		})
	}
}

func TestParseBadJSON(t *testing.T) {
	_, err := Parse([]byte(`{"target_chapters":`), File, names)
	if e := errs.As(err); e == nil || e.Code != errs.InvalidJSON {
		t.Fatalf("got %v", err)
	}
}

func TestArchived(t *testing.T) {
	if got := Archived(3); got != "logs/book-plan/book-plan-v03.json" {
		t.Fatal(got)
	}
}
