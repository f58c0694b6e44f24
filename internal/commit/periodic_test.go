package commit

import (
	"reflect"
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// TestQualityBriefFinalScores: the brief takes each earlier chapter's
// final score as the report does (eval.ParseCommitted): the judges'
// overall_final, else the gate's, else the primary's overall; an eval
// that does not parse is left out.
func TestQualityBriefFinalScores(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"evaluations/chapter-001-eval.json": `{"chapter":1,"overall":4.5,"metadata":{"gate":{"overall_final":3.2},"judges":{"overall_final":3.1}}}`,
		"evaluations/chapter-002-eval.json": `{"chapter":2,"overall":4.5,"metadata":{"gate":{"decision":"pass","overall_final":3.4}}}`,
		"evaluations/chapter-003-eval.json": `{"chapter":3,"overall":3.9}`,
		"evaluations/chapter-004-eval.json": `{"chapter":4,"overall":`,
	})
	p := periodic(root, 5, 1, false, 4.0, nil)
	if p.QualityBrief == nil {
		t.Fatal("no quality brief at chapter 5")
	}
	want := []ChapterScore{{1, 3.1}, {2, 3.4}, {3, 3.9}, {5, 4.0}}
	if !reflect.DeepEqual(p.QualityBrief.Chapters, want) {
		t.Fatalf("chapters = %v, want %v", p.QualityBrief.Chapters, want)
	}
	if p.QualityBrief.MeanScore != 3.6 {
		t.Fatalf("mean = %v, want 3.6", p.QualityBrief.MeanScore)
	}
}
