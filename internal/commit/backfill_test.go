package commit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/commit"
)

// backfillProject is the ten-chapter project's start with chapter 1
// imported (chapters/, logs/import.json) and the summarizer's products
// for it staged.
func backfillProject(t *testing.T) string {
	t.Helper()
	dir := newSeqProject(t)
	in := chapterInputs(1)
	files := map[string]string{
		"chapters/chapter-001.md": in["staging/chapters/chapter-001.md"],
		"logs/import.json":        `{"schema_version":1,"source":"book.txt","encoding":"utf-8","imported_at":"2026-01-01T00:00:00Z","chapters":[{"chapter":1,"title":"灯","file":"chapters/chapter-001.md","paragraphs":1}],"preamble_lines":0,"toc_lines":0}`,
	}
	for _, rel := range []string{"staging/summaries/chapter-001-summary.md", "staging/state/chapter-001-delta.json",
		"staging/state/chapter-001-crossref.json", "staging/storylines/main-arc/memory.md"} {
		files[rel] = in[rel]
	}
	writeFiles(t, dir, files)
	return dir
}

// TestBackfillCommit: an imported chapter is committed as it is — the
// same state, changelog, foreshadowing and memory as a normal commit of
// that chapter, no eval and no chapter log — and a backfill killed after
// any step is finished by the next `backfill --chapter 1`.
func TestBackfillCommit(t *testing.T) {
	bin := buildCommit(t)
	ref := newSeqProject(t)
	commitChapters(t, bin, ref, 1, 1)
	base := backfillProject(t)
	dir := copyTree(t, base)
	code, out := novel(bin, dir, nil, "backfill", "--chapter", "1", "--jq", "[.gate_decision, .state_version, .orchestrator_state, .applied_ops]")
	if code != 0 || strings.TrimSpace(out) != `["backfill",1,"WRITING",5]` {
		t.Fatalf("backfill: exit %d\n%s", code, out)
	}
	for _, rel := range []string{"state/current-state.json", "state/changelog.jsonl", "state/baseline.json", "foreshadowing/global.json",
		"summaries/chapter-001-summary.md", "state/chapter-001-crossref.json", "storylines/main-arc/memory.md",
		"storylines/main-arc/history/memory-000.md", "chapters/chapter-001.md"} {
		if got, want := readOpt(t, filepath.Join(dir, rel)), readOpt(t, filepath.Join(ref, rel)); got != want {
			t.Fatalf("%s after backfill differs from a commit of the chapter:\n%s", rel, diffLines(want, got))
		}
	}
	for _, rel := range []string{"evaluations/chapter-001-eval.json", "logs/chapter-001-log.json", "staging/commit-001.journal.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Fatalf("backfill left %s (%v)", rel, err)
		}
	}
	if cp := readFile(t, filepath.Join(dir, ".checkpoint.json")); !strings.Contains(cp, `"last_completed_chapter": 1`) {
		t.Fatalf("checkpoint after backfill:\n%s", cp)
	}
	if code, out := novel(bin, dir, nil, "backfill", "--chapter", "2"); code != 1 || !strings.Contains(out, `"code":"E_STATE"`) {
		t.Fatalf("backfill of a chapter that was not imported: exit %d\n%s", code, out)
	}

	want := tree(t, dir)
	for _, step := range commit.Steps {
		t.Run(step, func(t *testing.T) {
			d := copyTree(t, base)
			if code, out := novel(bin, d, []string{"NOVEL_CRASH_AT=" + step}, "backfill", "--chapter", "1"); code != 137 {
				t.Fatalf("crash at %s: exit %d, want 137\n%s", step, code, out)
			}
			code, out := novel(bin, d, nil, "backfill", "--chapter", "1")
			if step == commit.StepCleanup {
				if code != 1 || !strings.Contains(out, `"code":"E_CHECKPOINT"`) {
					t.Fatalf("backfill again after a finished one: exit %d\n%s", code, out)
				}
			} else if code != 0 {
				t.Fatalf("resume after %s: exit %d\n%s", step, code, out)
			}
			if got := tree(t, d); got != want {
				t.Fatalf("tree after crash at %s + resume differs:\n%s", step, diffLines(want, got))
			}
		})
	}
}
