package step

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/stepid"
)

// Fail records a failed step: last_error and ERROR_RETRY, keeping stage
// and inflight. A second failure keeps the state recorded by the first,
// so retry still returns to where the work was.
func Fail(cp *checkpoint.Checkpoint, st stepid.Step, message, now string) {
	prev := cp.State
	if prev == checkpoint.ErrorRetry {
		prev = ""
		if cp.LastError != nil {
			prev = cp.LastError.PreviousState
		}
	}
	cp.LastError = &checkpoint.LastError{Step: st.String(), Message: message, At: now, PreviousState: prev}
	cp.State = checkpoint.ErrorRetry
}

// Retry leaves ERROR_RETRY: back to previous_state (absent or unusable:
// CHAPTER_REWRITE when revisions are under way, else WRITING), and
// last_error is removed.
func Retry(cp *checkpoint.Checkpoint) error {
	if cp.State != checkpoint.ErrorRetry {
		return errs.Newf(errs.State, "当前编排状态为 %s，不是 ERROR_RETRY，无需 retry", "orchestrator state is %s, not ERROR_RETRY; there is nothing to retry", cp.State).
			With("orchestrator_state", cp.State).Hint("运行 novel-step next 查看下一步", "run novel-step next to see the next step")
	}
	prev := ""
	if cp.LastError != nil {
		prev = cp.LastError.PreviousState
	}
	switch prev {
	case checkpoint.QuickStart, checkpoint.VolPlanning, checkpoint.Writing, checkpoint.ChapterRewrite, checkpoint.VolReview:
	default:
		prev = checkpoint.Writing
		if cp.RevisionCount > 0 {
			prev = checkpoint.ChapterRewrite
		}
	}
	cp.State = prev
	cp.LastError = nil
	return nil
}

// VolumeNext leaves VOL_REVIEW for the planning of the next volume.
func VolumeNext(cp *checkpoint.Checkpoint) error {
	if cp.State != checkpoint.VolReview {
		return errs.Newf(errs.State, "当前编排状态为 %s，只有卷末回顾（VOL_REVIEW）可以进入下一卷", "orchestrator state is %s; only VOL_REVIEW can move on to the next volume", cp.State).
			With("orchestrator_state", cp.State).Hint("运行 novel-step next 查看下一步", "run novel-step next to see the next step")
	}
	cp.CurrentVolume++
	cp.State = checkpoint.VolPlanning
	return nil
}
