package revision

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

func pend(n int, status string) string {
	return `{"chapter_number":` + itoa(n) + `,"status":"` + status + `","triggered_by":"logic_review","revision_notes":"n","created_at":"2026-01-01T00:00:00Z","decision_at":null}`
}

func itoa(n int) string { b, _ := jsonio.MarshalLine(n); return string(b[:len(b)-1]) }

func TestCheckBlocksAfterSmallestPending(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"chapters/chapter-005-revision.json": pend(5, "pending"),
		"chapters/chapter_003_revision.json": pend(3, "pending"),
		"chapters/chapter-002-revision.json": pend(2, "accepted"),
		"chapters/chapter-003.md":            "text",
		".checkpoint.json":                   `{"schema_version":2,"last_completed_chapter":3,"current_volume":1,"orchestrator_state":"WRITING","pipeline_stage":"committed","inflight_chapter":null,"revision_count":0}`,
	})
	p, err := Pending(root)
	if err != nil || len(p) != 2 || p[0].ChapterNumber != 3 || p[1].ChapterNumber != 5 {
		t.Fatal(p, err)
	}
	for _, c := range []int{1, 2, 3} {
		if err := Check(root, c); err != nil {
			t.Fatalf("chapter %d refused: %v", c, err)
		}
	}
	err = Check(root, 4)
	e := errs.As(err)
	if e == nil || e.Code != errs.PendingRevision || e.Exit != 3 {
		t.Fatal(err)
	}
	if e.Zh != "必须先处理第 3 章的 pending 修订" {
		t.Fatal(e.Zh)
	}
	d := e.Details
	if d["blocked_chapter"] != 3 || d["target_chapter"] != 4 || d["revision_status_file"] != "chapters/chapter_003_revision.json" || d["triggered_by"] != "logic_review" {
		t.Fatal(d)
	}
	if _, ok := d["logic_review_report_file"]; ok {
		t.Fatal("report key must be absent without a report")
	}
	acts := d["next_actions"].([]Action)
	if len(acts) != 3 || acts[0].Action != "review" || acts[1].Action != "accept" || acts[2].Action != "rollback" {
		t.Fatal(acts)
	}
}

func TestFailClosed(t *testing.T) {
	bad := map[string]string{
		"mismatch": `{"chapter_number":7,"status":"pending"}`,
		"empty":    ``,
		"trunc":    `{"chapter_number":3,"status":"pen`,
		"array":    `[1,2]`,
		"utf8":     "{\"status\":\"\xff\"}",
		"unknown":  `{"chapter_number":3,"status":"Pending"}`,
		"nostatus": `{"chapter_number":3}`,
		"badtype":  `{"chapter_number":"3","status":"pending"}`,
	}
	for name, body := range bad {
		root := testkit.Project(t, map[string]string{"chapters/chapter-003-revision.json": body})
		for _, target := range []int{1, 3, 9} {
			err := Check(root, target)
			e := errs.As(err)
			if e == nil || e.Code != errs.Schema || e.Exit != 1 || e.Details["file"] != "chapters/chapter-003-revision.json" {
				t.Fatalf("%s target %d: %v", name, target, err)
			}
		}
	}
	// A directory in place of the file also fails closed.
	root := testkit.Project(t, map[string]string{"chapters/chapter-003-revision.json/x": "{}"})
	if !errs.Is(Check(root, 1), errs.Schema) {
		t.Fatal("directory not refused")
	}
}

func TestNearNamesAndWidth(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"chapters/chapter-003-revision.json.bak": pend(3, "pending"),
		"chapters/chapter-003-revision.json~":    pend(3, "pending"),
		"chapters/chapter-0003-revision.json":    pend(3, "pending"),
		"chapters/chapter-03-revision.json":      pend(3, "pending"),
		"chapters/xchapter-004-revision.json":    pend(4, "pending"),
		"chapters/chapter-1000-revision.json":    pend(1000, "pending"),
		"chapters/chapter-1000.md":               "x",
	})
	if err := Check(root, 1000); err != nil {
		t.Fatal(err)
	}
	e := errs.As(Check(root, 1001))
	if e == nil || e.Details["blocked_chapter"] != 1000 {
		t.Fatal(e)
	}
}

func TestHyphenWinsOverUnderscore(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"chapters/chapter-003-revision.json": pend(3, "accepted"),
		"chapters/chapter_003_revision.json": pend(3, "pending"),
	})
	if err := Check(root, 9); err != nil {
		t.Fatal(err)
	}
	s, err := Load(root, 3)
	if err != nil || s.Status != StatusAccepted || s.File != "chapters/chapter-003-revision.json" {
		t.Fatal(s, err)
	}
}

func TestSaveMigratesUnderscoreAndKeepsFields(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"chapters/chapter_003_revision.json":    `{"chapter_number":3,"status":"pending","revision_notes":"x","issues":[],"revised_chapter":null,"created_at":"t0"}`,
		"reviews/chapter-003-logic-review.json": `{}`,
	})
	s, err := Load(root, 3)
	if err != nil || s.TriggeredBy != Consistency {
		t.Fatal(s, err)
	}
	if f := Payload(root, s, 4, InFlight)["logic_review_report_file"]; f != "reviews/chapter-003-logic-review.json" {
		t.Fatal(f)
	}
	changed, err := SetStatus(root, 3, StatusRejected, "abandoned", "t1")
	if err != nil || !changed {
		t.Fatal(err)
	}
	if root.Exists("chapters/chapter_003_revision.json") {
		t.Fatal("underscore form left behind")
	}
	var got map[string]any
	if err := root.ReadJSON("chapters/chapter-003-revision.json", &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"chapter_number": jsonNum("3"), "status": "rejected", "triggered_by": "consistency", "revision_notes": "x",
		"created_at": "t0", "decision_at": "t1", "decision_note": "abandoned", "logic_review_report_file": nil, "gate_file": nil,
		"issues": []any{}, "revised_chapter": nil}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%#v", got)
	}
	changed, _ = SetStatus(root, 3, StatusRejected, "abandoned", "t2")
	if changed {
		t.Fatal("not idempotent")
	}
	if s, _ := Load(root, 4); s != nil {
		t.Fatal("missing file must be nil")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(pend(3, "pending")))
	f.Add([]byte(`{"chapter_number":3,"status":"accepted","observed_score":4}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse(data, "chapters/chapter-003-revision.json", 3)
		if err == nil {
			if s.ChapterNumber != 3 || (s.Status != StatusPending && s.Status != StatusAccepted && s.Status != StatusRejected) {
				t.Fatalf("accepted %+v", s)
			}
			if _, err := jsonio.Marshal(s.Map()); err != nil {
				t.Fatal(err)
			}
		} else if e := errs.As(err); e == nil || e.Code != errs.Schema {
			t.Fatalf("want E_SCHEMA, got %v", err)
		}
	})
}

func jsonNum(s string) any { var v any; jsonio.Decode([]byte(s), "n", &v); return v }

// A rollback is offered only for a committed chapter (it undoes committed
// chapters); revise, rejudge and regen only for the chapter in flight.
func TestNextActionsByStanding(t *testing.T) {
	names := func(acts []Action) string {
		var out []string
		for _, a := range acts {
			out = append(out, a.Action+"="+a.Command)
		}
		return strings.Join(out, "; ")
	}
	cases := []struct {
		standing Standing
		want     string
	}{
		{InFlight, "review=novel-gate show --chapter 3; accept=novel-gate resolve --chapter 3 --accept; revise=novel-gate resolve --chapter 3 --revise; rejudge=novel-gate resolve --chapter 3 --rejudge; regen=novel-gate resolve --chapter 3 --regen"},
		{Committed, "review=novel-gate show --chapter 3; accept=novel-gate resolve --chapter 3 --accept; rollback=novel-commit rollback --to 3"},
		{Elsewhere, "review=novel-gate show --chapter 3; accept=novel-gate resolve --chapter 3 --accept"},
	}
	for _, c := range cases {
		if got := names(nextActions(3, c.standing)); got != c.want {
			t.Errorf("standing %d:\n got %s\nwant %s", c.standing, got, c.want)
		}
	}
	inflight := &checkpoint.Checkpoint{LastCompleted: 2, Inflight: 3, Stage: checkpoint.Judged}
	idle := &checkpoint.Checkpoint{LastCompleted: 3, Stage: checkpoint.Committed}
	if StandingOf(inflight, 3) != InFlight || StandingOf(idle, 3) != Committed || StandingOf(idle, 5) != Elsewhere || StandingOf(inflight, 2) != Committed {
		t.Fatal("StandingOf")
	}
}
