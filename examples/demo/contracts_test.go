package demo_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/eval"
)

var headingRE = regexp.MustCompile(`^# 第(\d+)章 (\S.{0,29})\n`)

// TestRecordingsObeyPrompts checks the recordings do what the role prompts
// ask of a real model (SPEC §18, §20): every chapter version opens with
// `# 第N章 标题` for its own chapter and writes dialogue in 「」; every
// judge eval follows the suite's rubric — rubric_version, all nine
// dimensions scored 1..5 with a reason and evidence quoted verbatim from
// the chapter it judged — and its overall is what the gate recomputes.
func TestRecordingsObeyPrompts(t *testing.T) {
	chapters, _ := filepath.Glob(filepath.Join(replayDir, "chapter-*", "*.md"))
	evals, _ := filepath.Glob(filepath.Join(replayDir, "chapter-*", "quality-judge.*.json"))
	if len(chapters) < 15 || len(evals) < 11 {
		t.Fatalf("found %d chapter and %d judge recordings", len(chapters), len(evals))
	}
	for _, path := range chapters {
		c := chapterOfDir(t, path)
		text := string(readFile(t, path))
		m := headingRE.FindStringSubmatch(text)
		if m == nil || m[1] != strconv.Itoa(c) {
			t.Errorf("%s: first line is not `# 第%d章 标题`", path, c)
		}
		if strings.ContainsAny(text, "“”") {
			t.Errorf("%s: dialogue in curly quotes; the project's style is 「」", path)
		}
		if strings.Count(text, "「") < 5 || strings.Count(text, "「") != strings.Count(text, "」") {
			t.Errorf("%s: 「 %d, 」 %d: dialogue should be in balanced 「」", path, strings.Count(text, "「"), strings.Count(text, "」"))
		}
	}
	weights := map[string]float64{}
	for _, d := range eval.Rubric {
		weights[d.Name] = d.Weight
	}
	for _, path := range evals {
		c := chapterOfDir(t, path)
		var raw struct {
			RubricVersion string  `json:"rubric_version"`
			Overall       float64 `json:"overall"`
			Scores        map[string]struct {
				Score    *float64        `json:"score"`
				Reason   string          `json:"reason"`
				Evidence json.RawMessage `json:"evidence"`
			} `json:"scores"`
		}
		decodeJSON(t, path, &raw)
		if raw.RubricVersion != eval.RubricVersion {
			t.Errorf("%s: rubric_version %q, want %q", path, raw.RubricVersion, eval.RubricVersion)
		}
		if len(raw.Scores) != len(eval.Rubric) {
			t.Errorf("%s: %d dimensions, want the rubric's %d", path, len(raw.Scores), len(eval.Rubric))
		}
		// The judge reads the refined chapter of the same round.
		round := strings.TrimSuffix(filepath.Base(path)[strings.LastIndex(filepath.Base(path), ".r")+1:], ".json")
		judged := string(readFile(t, filepath.Join(filepath.Dir(path), "style-refiner.refine."+round+".md")))
		for _, d := range eval.Rubric {
			s, ok := raw.Scores[d.Name]
			switch {
			case !ok:
				t.Errorf("%s: no %s", path, d.Name)
				continue
			case s.Score == nil || *s.Score < 1 || *s.Score > 5 || *s.Score*2 != float64(int(*s.Score*2)):
				t.Errorf("%s: %s score %v, want 1..5 in steps of .5", path, d.Name, s.Score)
			case strings.TrimSpace(s.Reason) == "":
				t.Errorf("%s: %s has no reason", path, d.Name)
			}
			var quotes []string
			var one string
			if json.Unmarshal(s.Evidence, &one) == nil {
				quotes = []string{one}
			} else if json.Unmarshal(s.Evidence, &quotes) != nil {
				t.Errorf("%s: %s evidence is neither a string nor a list of strings", path, d.Name)
			}
			if len(quotes) == 0 {
				t.Errorf("%s: %s has no evidence", path, d.Name)
			}
			for _, q := range quotes {
				if strings.TrimSpace(q) == "" || !strings.Contains(judged, q) {
					t.Errorf("%s: %s evidence %q is not quoted verbatim from the judged chapter", path, d.Name, q)
				}
			}
		}
		e := loadEval(t, path, c)
		if e == nil {
			continue
		}
		if got, ok := e.Weighted(weights); !ok || got != raw.Overall {
			t.Errorf("%s: the gate recomputes %v (recomputed %v); the recording says %v", path, got, ok, raw.Overall)
		}
	}
}

func chapterOfDir(t *testing.T, path string) int {
	t.Helper()
	var c int
	if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(path)), "chapter-%d", &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}
