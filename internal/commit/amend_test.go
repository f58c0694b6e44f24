package commit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/commit"
)

// editedInputs is chapter 3 as the author rewrote it: 陆照 is now badly
// hurt (hp becomes a word, so the later chapters' hp increments no longer
// apply), F-B is planted instead of F-A advancing, and a new unknown name.
func editedInputs() map[string]string {
	in := chapterInputs(3)
	in["staging/chapters/chapter-003.md"] = "# 第3章\n\n陆照重伤倒地。第3章改写后的正文。\n"
	in["staging/summaries/chapter-003-summary.md"] = "第3章改写后的摘要。\n"
	in["staging/state/chapter-003-delta.json"] = `{"chapter":3,"base_state_version":2,"storyline_id":"main-arc","ops":[` +
		`{"op":"set","path":"characters.lu-zhao.hp","value":"重伤"},{"op":"set","path":"characters.lu-zhao.location","value":"医馆"},` +
		`{"op":"set","path":"bad"},{"op":"foreshadow","path":"F-B","value":"planted","detail":"改写"}],` +
		`"unknown_entities":[{"name":"医师","context":"救治"}]}`
	in["staging/state/chapter-003-crossref.json"] = `{"chapter":3,"checks":["edited"]}`
	in["staging/storylines/main-arc/memory.md"] = "main-arc 第3章改写后的记忆。\n"
	return in
}

var amendCompared = []string{
	"chapters/chapter-003.md", "summaries/chapter-003-summary.md", "state/chapter-003-crossref.json",
	"state/current-state.json", "state/changelog.jsonl", "state/baseline.json", "foreshadowing/global.json",
	"logs/unknown-entities.jsonl", "storylines/main-arc/memory.md", "storylines/main-arc/history/memory-003.md",
	"storylines/side-line/memory.md", "storylines/main-arc/history/memory-000.md", ".checkpoint.json",
	"logs/chapter-003-log.json",
}

// TestAmendEqualsFreshCommit: six chapters committed, chapter 3 edited
// by hand and re-summarized, then amended, give the summary, memory,
// changelog, state, foreshadowing and unknown-entity log of a project
// that committed the edited chapter 3 in the first place; the later
// chapters' hp increments are dropped and listed; rebuild --check passes.
func TestAmendEqualsFreshCommit(t *testing.T) {
	bin := buildCommit(t)
	ref := newSeqProject(t)
	commitChapters(t, bin, ref, 1, 2)
	writeFiles(t, ref, editedInputs())
	commitStaged(t, bin, ref, 3)
	commitChapters(t, bin, ref, 4, 6)

	dir := newSeqProject(t)
	commitChapters(t, bin, dir, 1, 6)
	amendStage(t, dir)
	code, out := novel(bin, dir, nil, "amend", "--chapter", "3", "--jq", "[.applied_ops, (.dropped_ops|length), [.later_dropped[]|.chapter], .memory_replaced, .state_version, .backup_dir]")
	if code != 0 {
		t.Fatalf("amend: exit %d\n%s", code, out)
	}
	if got := strings.TrimSpace(out); got != `[3,1,[4,5,6],"storylines/main-arc/history/memory-003.md",6,"staging/amended/chapter-003"]` {
		t.Fatalf("amend output = %s", got)
	}
	for _, rel := range amendCompared {
		if got, want := readOpt(t, filepath.Join(dir, rel)), readOpt(t, filepath.Join(ref, rel)); got != want {
			t.Fatalf("%s after amend differs from a fresh commit of the edited chapter:\n%s", rel, diffLines(want, got))
		}
	}
	if code, out := novel(bin, dir, nil, "rebuild", "--check"); code != 0 {
		t.Fatalf("rebuild --check after amend: exit %d\n%s", code, out)
	}
	// The replaced files are kept, and nothing of the amend is left in staging.
	if got := readFile(t, filepath.Join(dir, "staging/amended/chapter-003/summaries/chapter-003-summary.md")); got != "第3章摘要。\n" {
		t.Fatalf("kept old summary = %q", got)
	}
	for _, rel := range []string{"staging/amend", "staging/amend-003.journal.json", "staging/state/chapter-003-delta.json", "staging/summaries/chapter-003-summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Fatalf("%s left behind after the amend (%v)", rel, err)
		}
	}
}

// TestAmendCrashAfterEveryStep: an amend killed after any step is
// finished by the next `amend --chapter C`, giving the same tree.
func TestAmendCrashAfterEveryStep(t *testing.T) {
	bin := buildCommit(t)
	base := newSeqProject(t)
	commitChapters(t, bin, base, 1, 4)
	amendStage(t, base)
	ref := copyTree(t, base)
	if code, out := novel(bin, ref, nil, "amend", "--chapter", "3"); code != 0 {
		t.Fatalf("uninterrupted amend: exit %d\n%s", code, out)
	}
	want := tree(t, ref)
	for _, step := range commit.AmendSteps {
		t.Run(step, func(t *testing.T) {
			dir := copyTree(t, base)
			if code, out := novel(bin, dir, []string{"NOVEL_CRASH_AT=" + step}, "amend", "--chapter", "3"); code != 137 {
				t.Fatalf("crash at %s: exit %d, want 137\n%s", step, code, out)
			}
			if step != commit.StepCleanup {
				// While the journal exists the other state writers wait for it.
				for _, args := range [][]string{{"--chapter", "5"}, {"rollback", "--to", "2"}} {
					if code, out := novel(bin, dir, nil, args...); code != 1 || !strings.Contains(out, "amend --chapter 3") {
						t.Fatalf("%v during an unfinished amend: exit %d\n%s", args, code, out)
					}
				}
			}
			code, out := novel(bin, dir, nil, "amend", "--chapter", "3")
			if step == commit.StepCleanup {
				if code != 1 || !strings.Contains(out, `"code":"E_MISSING_FILE"`) {
					t.Fatalf("amend again after a finished one: exit %d\n%s", code, out)
				}
			} else if code != 0 {
				t.Fatalf("resume after %s: exit %d\n%s", step, code, out)
			}
			if got := tree(t, dir); got != want {
				t.Fatalf("tree after crash at %s + resume differs:\n%s", step, diffLines(want, got))
			}
		})
	}
}

// TestAmendRefusals: an uncommitted chapter, missing products and a
// delta on another storyline are refused before any write.
func TestAmendRefusals(t *testing.T) {
	bin := buildCommit(t)
	dir := newSeqProject(t)
	commitChapters(t, bin, dir, 1, 3)
	before := tree(t, dir)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"amend", "--chapter", "4"}, 1, `"code":"E_STATE"`},
		{[]string{"amend", "--chapter", "2"}, 1, `"file":"staging/summaries/chapter-002-summary.md"`},
	} {
		if code, out := novel(bin, dir, nil, c.args...); code != c.code || !strings.Contains(out, c.want) {
			t.Fatalf("%v: exit %d, want %d with %s\n%s", c.args, code, c.code, c.want, out)
		}
	}
	amendStage(t, dir)
	writeFiles(t, dir, map[string]string{"staging/state/chapter-003-delta.json": `{"chapter":3,"base_state_version":2,"storyline_id":"side-line","ops":[]}`})
	staged := tree(t, dir)
	if code, out := novel(bin, dir, nil, "amend", "--chapter", "3"); code != 1 || !strings.Contains(out, `"code":"E_CONTRACT"`) {
		t.Fatalf("delta on another storyline: exit %d\n%s", code, out)
	}
	if got := tree(t, dir); got != staged || before == staged {
		t.Fatalf("a refused amend wrote something:\n%s", diffLines(staged, got))
	}
}

// amendStage is the author's edit of chapter 3 plus the summarizer's
// products for it (what make … amend C=3 leaves before novel-commit amend).
func amendStage(t *testing.T, dir string) {
	t.Helper()
	in := editedInputs()
	files := map[string]string{"chapters/chapter-003.md": in["staging/chapters/chapter-003.md"]}
	for _, rel := range []string{"staging/summaries/chapter-003-summary.md", "staging/state/chapter-003-delta.json",
		"staging/state/chapter-003-crossref.json", "staging/storylines/main-arc/memory.md"} {
		files[rel] = in[rel]
	}
	writeFiles(t, dir, files)
}

// commitStaged commits chapter k from the staging files already written.
func commitStaged(t *testing.T, bin, dir string, k int) {
	t.Helper()
	cp := readFile(t, filepath.Join(dir, ".checkpoint.json"))
	cp = strings.Replace(cp, `"inflight_chapter": null`, `"inflight_chapter": 3`, 1)
	cp = strings.Replace(cp, `"pipeline_stage": "committed"`, `"pipeline_stage": "judged"`, 1)
	writeFiles(t, dir, map[string]string{".checkpoint.json": cp})
	if code, out := novel(bin, dir, nil, "--chapter", "3"); code != 0 {
		t.Fatalf("commit %d: exit %d\n%s", k, code, out)
	}
}

func readOpt(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "(missing)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAmendLatestOnStoryline: chapter 4 is side-line's newest chapter,
// so the amend replaces the storyline's memory itself (the memory kept
// before chapter 4 stays in history/) — again as a fresh commit would.
func TestAmendLatestOnStoryline(t *testing.T) {
	bin := buildCommit(t)
	in := chapterInputs(4)
	in["staging/summaries/chapter-004-summary.md"] = "第4章改写后的摘要。\n"
	in["staging/state/chapter-004-delta.json"] = `{"chapter":4,"base_state_version":3,"storyline_id":"side-line","ops":[` +
		`{"op":"set","path":"factions.night-guard.alert","value":"戒严"},{"op":"foreshadow","path":"F-C","value":"planted","detail":"改写"}]}`
	in["staging/storylines/side-line/memory.md"] = "side-line 第4章改写后的记忆。\n"
	in["staging/chapters/chapter-004.md"] = "# 第4章\n\n夜巡戒严。\n"

	ref := newSeqProject(t)
	commitChapters(t, bin, ref, 1, 3)
	writeFiles(t, ref, in)
	cp := readFile(t, filepath.Join(ref, ".checkpoint.json"))
	cp = strings.Replace(strings.Replace(cp, `"inflight_chapter": null`, `"inflight_chapter": 4`, 1), `"pipeline_stage": "committed"`, `"pipeline_stage": "judged"`, 1)
	writeFiles(t, ref, map[string]string{".checkpoint.json": cp})
	if code, out := novel(bin, ref, nil, "--chapter", "4"); code != 0 {
		t.Fatalf("commit 4: exit %d\n%s", code, out)
	}

	dir := newSeqProject(t)
	commitChapters(t, bin, dir, 1, 4)
	files := map[string]string{"chapters/chapter-004.md": in["staging/chapters/chapter-004.md"]}
	for _, rel := range []string{"staging/summaries/chapter-004-summary.md", "staging/state/chapter-004-delta.json",
		"staging/state/chapter-004-crossref.json", "staging/storylines/side-line/memory.md"} {
		files[rel] = in[rel]
	}
	writeFiles(t, dir, files)
	code, out := novel(bin, dir, nil, "amend", "--chapter", "4", "--jq", "[.memory_replaced, .later_dropped]")
	if code != 0 || strings.TrimSpace(out) != `["storylines/side-line/memory.md",[]]` {
		t.Fatalf("amend 4: exit %d\n%s", code, out)
	}
	for _, rel := range []string{"storylines/side-line/memory.md", "storylines/side-line/history/memory-002.md", "summaries/chapter-004-summary.md",
		"state/current-state.json", "state/changelog.jsonl", "foreshadowing/global.json", "logs/unknown-entities.jsonl", "logs/chapter-004-log.json"} {
		if got, want := readOpt(t, filepath.Join(dir, rel)), readOpt(t, filepath.Join(ref, rel)); got != want {
			t.Fatalf("%s after amend differs from a fresh commit:\n%s", rel, diffLines(want, got))
		}
	}
	if got := readFile(t, filepath.Join(dir, "staging/amended/chapter-004/storylines/side-line/memory.md")); got != "side-line 第4章后的记忆。\n" {
		t.Fatalf("kept old memory = %q", got)
	}
}
