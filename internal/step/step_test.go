package step

import (
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

func TestFailRetry(t *testing.T) {
	cp := &checkpoint.Checkpoint{State: checkpoint.ChapterRewrite, Inflight: 4, Stage: checkpoint.Drafting, RevisionCount: 1}
	st := stepid.Chapter(4, stepid.Summarize)
	Fail(cp, st, "boom", "2026-01-01T00:00:00Z")
	Fail(cp, st, "boom again", "2026-01-01T00:01:00Z")
	if cp.State != checkpoint.ErrorRetry || cp.LastError.PreviousState != checkpoint.ChapterRewrite || cp.LastError.Message != "boom again" {
		t.Fatalf("after two failures: %+v %+v", cp, cp.LastError)
	}
	if cp.Stage != checkpoint.Drafting || cp.Inflight != 4 {
		t.Fatalf("fail must keep stage and inflight: %+v", cp)
	}
	if err := Retry(cp); err != nil || cp.State != checkpoint.ChapterRewrite || cp.LastError != nil {
		t.Fatalf("retry: %v %+v", err, cp)
	}
	if err := Retry(cp); !errs.Is(err, errs.State) {
		t.Fatalf("retry outside ERROR_RETRY: %v", err)
	}
	cp = &checkpoint.Checkpoint{State: checkpoint.ErrorRetry, LastError: &checkpoint.LastError{PreviousState: "BOGUS"}}
	if Retry(cp); cp.State != checkpoint.Writing {
		t.Fatalf("unknown previous state should fall back to WRITING, got %s", cp.State)
	}
}

func TestVolumeNext(t *testing.T) {
	cp := &checkpoint.Checkpoint{State: checkpoint.VolReview, CurrentVolume: 2}
	if err := VolumeNext(cp); err != nil || cp.CurrentVolume != 3 || cp.State != checkpoint.VolPlanning {
		t.Fatalf("%v %+v", err, cp)
	}
	if err := VolumeNext(cp); !errs.Is(err, errs.State) {
		t.Fatalf("second volume --next: %v", err)
	}
}

// The stage-order refusals that name no chapter number used to feed the
// wanted chapter into the stage's %s ("%!s(int=3)…%!(EXTRA …)").
func TestLegalRefusalMessages(t *testing.T) {
	root, _ := project.New(t.TempDir())
	cases := []struct {
		stage, step string
		zh, en      string
	}{
		{checkpoint.Revising, stepid.Summarize,
			"无法推进 chapter:003:summarize：修订中（revising）只能推进 draft（pipeline_stage=revising）",
			"cannot advance chapter:003:summarize: while revising only draft can be advanced (pipeline_stage revising)"},
		{checkpoint.Polishing, stepid.Judge,
			"无法推进 chapter:003:judge：润色中（polishing）只能推进 polish（pipeline_stage=polishing）",
			"cannot advance chapter:003:judge: while polishing only polish can be advanced (pipeline_stage polishing)"},
		{checkpoint.Refined, stepid.Polish,
			"无法推进 chapter:003:polish：polish 只能在门控结论为 polish（pipeline_stage=polishing）后推进（pipeline_stage=refined）",
			"cannot advance chapter:003:polish: polish can be advanced only after a gate decision of polish (pipeline_stage polishing) (pipeline_stage refined)"},
		{checkpoint.Drafted, stepid.Draft, "", ""},
	}
	for _, c := range cases {
		cp := &checkpoint.Checkpoint{State: checkpoint.Writing, LastCompleted: 2, Inflight: 3, Stage: c.stage}
		_, err := legal(root, cp, stepid.Chapter(3, c.step))
		if c.zh == "" {
			if err != nil {
				t.Errorf("%s at %s: %v", c.step, c.stage, err)
			}
			continue
		}
		e := errs.As(err)
		if e == nil || e.Code != errs.StageOrder || e.Zh != c.zh || e.En != c.en {
			t.Errorf("%s at %s:\n got %v\n zh  %q\nwant %q\n en  %q", c.step, c.stage, err, e.Zh, c.zh, c.en)
		}
	}
	// The chapter-order refusal keeps its chapter number.
	cp := &checkpoint.Checkpoint{State: checkpoint.Writing, LastCompleted: 2, Inflight: 3, Stage: checkpoint.Judged}
	_, err := legal(root, cp, stepid.Chapter(4, stepid.Draft))
	if e := errs.As(err); e == nil || e.En != "cannot advance chapter:004:draft: only chapter 3 can be advanced (pipeline_stage judged)" {
		t.Errorf("order refusal: %v", err)
	}
}
