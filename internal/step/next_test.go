package step

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// nextFixtures are the project and product files of the next-step
// testscript (testscripts/novel-step/next.txtar), so this table and that
// script judge the same files.
func nextFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testscripts", "novel-step", "next.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	return files
}

// Where each product fixture goes for chapter 3 of project p.
var nextPlace = map[string]string{
	"chapter":  layout.StagingChapter(3),
	"summary":  "staging/summaries/chapter-003-summary.md",
	"delta":    "staging/state/chapter-003-delta.json",
	"crossref": "staging/state/chapter-003-crossref.json",
	"memory":   "staging/storylines/main-arc/memory.md",
	"eval":     "staging/evaluations/chapter-003-eval.json",
	"review":   "staging/reviews/chapter-003-logic-review.json",
	"gate":     "staging/evaluations/chapter-003-gate.json",
	"journal":  layout.CommitJournal(3),
}

// TestComputeNext is the next-step table (SPEC §3 rules 0-6) row by row:
// a checkpoint fixture, the chapter's staging products (kind=fixture),
// the logic-review policy, and the step and reason next must give.
func TestComputeNext(t *testing.T) {
	fx := nextFixtures(t)
	all := "chapter=chapter summary=summary delta=delta crossref=crossref memory=memory"
	cases := []struct {
		name, cp, products, policy string
		step, reason               string
	}{
		{"rule 4: idle, nothing staged", "", "", "", "chapter:003:draft", ReasonFresh},
		{"rule 4: an empty staging chapter is missing", "", "chapter=empty.md", "", "chapter:003:draft", ReasonFresh},
		{"rule 4: a staged chapter while idle is drafting", "", "chapter=chapter", "", "chapter:003:summarize", ReasonMissingSummary},
		{"a stale committed inflight record is idle", "cp-committed", "chapter=chapter", "", "chapter:003:summarize", ReasonMissingSummary},
		{"rule 6: drafting without the chapter", "cp-drafting", "", "", "chapter:003:draft", ReasonMissingChapter},
		{"rule 6: chapter, no summarize products", "cp-drafting", "chapter=chapter", "", "chapter:003:summarize", ReasonMissingSummary},
		{"rule 6: no memory", "cp-drafting", "chapter=chapter summary=summary delta=delta crossref=crossref", "", "chapter:003:summarize", ReasonMissingSummary},
		{"rule 6: a delta of another chapter is missing", "cp-drafting", all + " delta=delta-wrong-chapter", "", "chapter:003:summarize", ReasonMissingSummary},
		{"rule 6: a delta on an older state", "cp-drafting", all + " delta=delta-stale", "", "chapter:003:summarize", ReasonStaleDelta},
		{"rule 6: drafting with every product", "cp-drafting", all, "", "chapter:003:refine", ReasonReadyRefine},
		{"rule 6: drafted with every product", "cp-drafted", all, "", "chapter:003:refine", ReasonReadyRefine},
		{"rule 6: refined, no eval", "cp-refined", all, "", "chapter:003:judge", ReasonMissingEval},
		{"rule 6: an invalid eval is missing", "cp-refined", all + " eval=eval-bad", "", "chapter:003:judge", ReasonMissingEval},
		{"rule 6: a valid eval", "cp-refined", all + " eval=eval-wrapped", "", "chapter:003:gate", ReasonReadyGate},
		{"rule 6: blocking policy, no report", "cp-refined", all + " eval=eval-wrapped", settings.PolicyBlocking, "chapter:003:logic-review", ReasonMissingLogic},
		{"rule 6: blocking policy, invalid report", "cp-refined", all + " eval=eval-wrapped review=review-bad", settings.PolicyBlocking, "chapter:003:logic-review", ReasonMissingLogic},
		{"rule 6: blocking policy, report", "cp-refined", all + " eval=eval-wrapped review=review", settings.PolicyBlocking, "chapter:003:gate", ReasonReadyGate},
		{"rule 6: gate pass", "cp-refined", all + " eval=eval-wrapped gate=gate-pass", "", "chapter:003:commit", ReasonReadyCommit},
		{"rule 6: gate accepted", "cp-refined", all + " eval=eval-wrapped gate=gate-accepted", "", "chapter:003:commit", ReasonReadyCommit},
		{"rule 6: a polish not applied is gated again", "cp-refined", all + " eval=eval-wrapped gate=gate-polish", "", "chapter:003:gate", ReasonReadyGate},
		{"rule 5: polishing", "cp-polishing", all + " eval=eval-wrapped gate=gate-polish", "", "chapter:003:polish", ReasonPolishing},
		{"rule 5: polishing, already polished", "cp-polishing", all + " eval=eval-wrapped gate=gate-polished", "", "chapter:003:commit", ReasonReadyCommit},
		{"rule 5: revising", "cp-revising", all + " eval=eval-wrapped", "", "chapter:003:draft", ReasonRevising},
		{"plugin stage summarized reads as judged", "cp-plugin", "chapter=chapter summary=summary delta=delta memory=memory eval=eval-wrapped", "", "chapter:003:gate", ReasonReadyGate},
		{"our own stage needs the crossref", "cp-refined", "chapter=chapter summary=summary delta=delta memory=memory eval=eval-wrapped", "", "chapter:003:summarize", ReasonMissingSummary},
		{"plugin refining reads as drafted", "cp-refining", all, "", "chapter:003:refine", ReasonReadyRefine},
		{"plugin direct_fixing reads as revising", "cp-direct-fixing", all, "", "chapter:003:draft", ReasonRevising},
		{"rule 0: a commit journal wins", "cp-refined", all + " journal=journal", "", "chapter:003:commit", ReasonResumeCommit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := nextProject(t, fx, c.cp, c.products)
			cp, err := checkpoint.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			s := settings.Defaults()
			if c.policy != "" {
				s.LogicReviewPolicy = c.policy
			}
			n, err := computeNext(root, cp, s, "")
			if err != nil {
				t.Fatalf("computeNext: %v", err)
			}
			if n.Step != c.step || n.Reason != c.reason {
				t.Fatalf("got %s %s, want %s %s", n.Step, n.Reason, c.step, c.reason)
			}
		})
	}
}

// nextProject writes project p of the fixtures with two committed
// chapters, the checkpoint fixture fx/CP.json (p's own when cp is ""),
// and each kind=fixture product (fixture fx/NAME.json or fx/NAME.md) in
// its place.
func nextProject(t *testing.T, fx map[string][]byte, cp, products string) *project.Root {
	t.Helper()
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		t.Helper()
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range fx {
		if rel, ok := strings.CutPrefix(name, "p/"); ok {
			write(rel, data)
		}
	}
	for c := 1; c <= 2; c++ { // the testscript's `committed p 2`
		write(layout.Chapter(c), fmt.Appendf(nil, "# 第%d章\n\n夜色渐深。\n", c))
		write(layout.Summary(c), fmt.Appendf(nil, "# 第%d章摘要\n\n夜色渐深。\n", c))
	}
	if cp != "" {
		write(layout.Checkpoint, fixture(t, fx, cp))
	}
	for _, p := range strings.Fields(products) {
		kind, name, _ := strings.Cut(p, "=")
		write(nextPlace[kind], fixture(t, fx, name))
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func fixture(t *testing.T, fx map[string][]byte, name string) []byte {
	t.Helper()
	for _, n := range []string{"fx/" + name, "fx/" + name + ".json", "fx/" + name + ".md"} {
		if data, ok := fx[n]; ok {
			return data
		}
	}
	t.Fatalf("no fixture %s in next.txtar", name)
	return nil
}

// TestNextProposesAudit: on the agent route (the caller of next is the
// model) the continuity-auditor step audit:NNN follows a commit whose
// maintenance wrote the window's continuity report, unless settings say
// deterministic, the review is stored already, or the caller went on to
// the next chapter (the audit never blocks: SPEC §21, §25).
func TestNextProposesAudit(t *testing.T) {
	fx := nextFixtures(t)
	report := []byte(`{"scope":"sliding_window","chapter_range":[1,2],"issues":[]}` + "\n")
	cases := []struct {
		name, cp, products, executor, settings string
		files                                  []string
		step, reason                           string
	}{
		{"agent route after a 5th-chapter commit", "", "", "agent", "", []string{layout.ContinuityReport(2)}, "audit:002", ReasonContinuityAudit},
		{"MCP client", "", "", "mcp", "", []string{layout.ContinuityReport(2)}, "audit:002", ReasonContinuityAudit},
		{"the pipeline runs its own review", "", "", "", "", []string{layout.ContinuityReport(2)}, "chapter:003:draft", ReasonFresh},
		{"replay", "", "", "replay", "", []string{layout.ContinuityReport(2)}, "chapter:003:draft", ReasonFresh},
		{"the author chose deterministic", "", "", "agent", "deterministic", []string{layout.ContinuityReport(2)}, "chapter:003:draft", ReasonFresh},
		{"settings ask for it for every executor", "", "", "replay", "agent", []string{layout.ContinuityReport(2)}, "audit:002", ReasonContinuityAudit},
		{"no audit ran at this commit", "", "", "agent", "", nil, "chapter:003:draft", ReasonFresh},
		{"the review is stored", "", "", "agent", "", []string{layout.ContinuityReport(2), layout.AgentAuditReport(2)}, "chapter:003:draft", ReasonFresh},
		{"the caller went on: a staged next chapter", "", "chapter=chapter", "agent", "", []string{layout.ContinuityReport(2)}, "chapter:003:summarize", ReasonMissingSummary},
		{"a chapter in flight", "cp-drafting", "chapter=chapter", "agent", "", []string{layout.ContinuityReport(2)}, "chapter:003:summarize", ReasonMissingSummary},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := nextProject(t, fx, c.cp, c.products)
			for _, rel := range c.files {
				if err := root.WriteFile(rel, report); err != nil {
					t.Fatal(err)
				}
			}
			cp, err := checkpoint.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			s := settings.Defaults()
			if c.settings != "" {
				s.ContinuityAudit, s.ContinuityAuditSet = c.settings, true
			}
			n, err := computeNext(root, cp, s, c.executor)
			if err != nil {
				t.Fatalf("computeNext: %v", err)
			}
			if n.Step != c.step || n.Reason != c.reason {
				t.Fatalf("got %s %s, want %s %s", n.Step, n.Reason, c.step, c.reason)
			}
			if c.reason == ReasonContinuityAudit && (n.Chapter != 2 || n.Role != "") {
				t.Fatalf("audit step: chapter %d role %q", n.Chapter, n.Role)
			}
		})
	}
}
