package journal

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// Every kind finds its own journal by the layout path it writes, and
// reads back the arg as the user types it.
func TestKindsFindTheirLayoutPaths(t *testing.T) {
	cases := []struct {
		k    Kind
		arg  string
		file string
	}{
		{Commit, "3", "staging/commit-003.journal.json"},
		{Amend, "12", "staging/amend-012.journal.json"},
		{Volume, "2", "staging/volume-02.journal.json"},
		{VolumeReview, "2", "staging/volume-02-review.journal.json"},
		{Setup, "world", "staging/setup-world.journal.json"},
		{Migrate, "", "staging/migrate.journal.json"},
		{Rollback, "4", "staging/rollback.journal.json"},
	}
	for _, c := range cases {
		root := newRoot(t)
		if got := c.k.Path(c.arg); got != c.file {
			t.Fatalf("%s.Path(%q) = %s, want %s", c.k, c.arg, got, c.file)
		}
		if err := root.WriteFile(c.file, []byte(`{"to":4}`)); err != nil {
			t.Fatal(err)
		}
		for k := range kinds {
			ps, err := list(root, k)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if k == c.k {
				want = 1
			}
			if len(ps) != want || (want == 1 && ps[0] != (Pending{Kind: c.k, Arg: c.arg, File: c.file})) {
				t.Fatalf("%s journal %s: List(%s) = %+v", c.k, c.file, k, ps)
			}
		}
		if !c.k.Unfinished(root, c.arg) {
			t.Fatalf("%s.Unfinished(%q) = false", c.k, c.arg)
		}
	}
}

// The refusal names the first blocking journal in the kind's order, in
// one wording; a kind's own journal on the same arg is resumed, on
// another arg refused.
func TestRefuse(t *testing.T) {
	root := newRoot(t)
	write := func(rel string) {
		t.Helper()
		if err := root.WriteFile(rel, []byte(`{"to":2}`)); err != nil {
			t.Fatal(err)
		}
	}
	write("staging/commit-004.journal.json")
	if err := Commit.Refuse(root, "4"); err != nil {
		t.Fatalf("own journal refused: %v", err)
	}
	err := Commit.Refuse(root, "5")
	e := errs.As(err)
	if e == nil || e.Code != errs.State || e.Exit != errs.ExitFailed ||
		e.Zh != "第 4 章的提交尚未完成（staging/commit-004.journal.json）" ||
		e.En != "the commit of chapter 4 is unfinished (staging/commit-004.journal.json)" ||
		e.HintZh != "先运行 novel-commit --chapter 4 完成它，再重新运行本命令" ||
		e.HintEn != "run novel-commit --chapter 4 first to finish it, then run this command again" ||
		e.Details["journal"] != "staging/commit-004.journal.json" || e.Details["transaction"] != "commit" {
		t.Fatalf("refusal = %#v", err)
	}
	if err := Volume.Refuse(root, "1"); err != nil {
		t.Fatalf("a commit journal does not block a volume commit: %v", err)
	}
	write("staging/rollback.journal.json")
	e = errs.As(Commit.Refuse(root, "4"))
	if e == nil || e.En != "the rollback to chapter 2 is unfinished (staging/rollback.journal.json)" {
		t.Fatalf("rollback first: %#v", e)
	}
	e = errs.As(Blocked(root, Amend, Commit))
	if e == nil || e.Details["transaction"] != "commit" {
		t.Fatalf("Blocked = %#v", e)
	}
	if err := Blocked(root, Amend); err != nil {
		t.Fatalf("Blocked(amend) = %v", err)
	}
	// A rollback journal too damaged to name its chapter still refuses.
	if err := root.WriteFile("staging/rollback.journal.json", []byte("{")); err != nil {
		t.Fatal(err)
	}
	e = errs.As(Volume.Refuse(root, "1"))
	if e == nil || e.HintEn != "run novel-commit rollback --to C first to finish it, then run this command again" {
		t.Fatalf("damaged rollback journal: %#v", e)
	}
}

// The dry-run document is the header, then the result's own fields in
// their order; result fields named like the header give way.
func TestDryRunJSON(t *testing.T) {
	res := struct {
		Chapter int    `json:"chapter"`
		DryRun  bool   `json:"dry_run"`
		Note    string `json:"note"`
	}{3, false, "<a & b>"}
	data, err := DryRun{Resume: true, Plan: []PlanStep{{Name: "journal", Writes: []string{"x"}}}, Result: res}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dry_run":true,"resume":true,"plan":[{"name":"journal","writes":["x"]}],"chapter":3,"note":"<a & b>"}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
}
