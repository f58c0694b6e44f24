package foreshadow

import (
	"reflect"
	"strings"
	"testing"
)

// Every F-id the chapter's plan names is a task with the action the plan
// gives it (SPEC §24): 埋设/埋下 plant, 推进 advance, 回收 resolve, else
// advance; the verb carries over an enumeration (、) but not a sentence.
func TestNamedInPlan(t *testing.T) {
	got := NamedInPlan("埋下 F-001（第七盏灯复燃）、F-002，推进 F-003；F-004 仍在暗处。回收F-005(残玉的来历)\nplant F-006, resolve F-007，F-001 再提一次")
	want := []Named{
		{ID: "F-001", Action: ActionPlant, Description: "第七盏灯复燃"},
		{ID: "F-002", Action: ActionPlant},
		{ID: "F-003", Action: ActionAdvance},
		{ID: "F-004", Action: ActionAdvance},
		{ID: "F-005", Action: ActionResolve, Description: "残玉的来历"},
		{ID: "F-006", Action: ActionPlant},
		{ID: "F-007", Action: ActionResolve},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got := NamedInPlan("无"); got != nil {
		t.Fatalf("no ids: %+v", got)
	}
}

func TestWithPlan(t *testing.T) {
	global := parseItems(t, true,
		`{"id":"F-001","description":"灯","scope":"long","status":"planted","planted_chapter":1,"target_resolve_range":[8,20],"history":[{"chapter":1,"action":"planted","detail":"d"}]}`,
		`{"id":"F-002","description":"残玉","scope":"long","status":"planted","planted_chapter":2,"target_resolve_range":[30,40]}`)
	tasks, _ := PacketTasks(global, nil, 9, 1) // F-001 only: F-002's range is later
	out := WithPlan(tasks, []Named{{ID: "F-003", Action: ActionPlant, Description: "柳言的目光"}, {ID: "F-002", Action: ActionAdvance}, {ID: "F-001", Action: ActionResolve}}, global, nil)
	var lines []string
	for _, o := range out {
		b, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	want := []string{
		`{"id":"F-001","description":"灯","scope":"long","status":"planted","planted_chapter":1,"target_resolve_range":[8,20],"action":"resolve"}`,
		`{"id":"F-002","description":"残玉","scope":"long","status":"planted","planted_chapter":2,"target_resolve_range":[30,40],"action":"advance"}`,
		`{"id":"F-003","description":"柳言的目光","action":"plant"}`,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}
