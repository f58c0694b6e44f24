package products

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Validate checks the products of step st itself (SPEC §3.2), without the
// write-boundary walk (that belongs to the boundary package). The first
// failing product's own error is returned (E_MISSING_FILE, E_INVALID_JSON,
// E_SCHEMA, E_PATH, E_IO), with a hint naming the step to rerun.
func Validate(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings) error {
	if st.Volume {
		return errs.Newf(errs.Usage, "%s 的产物由 novel-commit volume 校验", "the products of %s are validated by novel-commit volume", st.String()).
			With("step", st.String()).Hint("运行 novel-commit volume --volume "+layout.PadVol(st.Number)+" --dry-run",
			"run novel-commit volume --volume "+layout.PadVol(st.Number)+" --dry-run")
	}
	c := st.Chapter
	var err error
	switch st.Stage {
	case stepid.Draft, stepid.Refine, stepid.Polish:
		err = CheckChapter(root, c)
	case stepid.Summarize:
		err = checkSummarize(root, cp, c)
	case stepid.Gate, stepid.Commit:
		return errs.Newf(errs.Usage, "%s 是确定性步骤，没有代理产物可校验", "%s is a deterministic step with no agent products to validate", st.String()).
			With("step", st.String()).Hint("gate 由 novel-gate decide 执行，commit 由 novel-commit --dry-run 检查",
			"gate is run by novel-gate decide; commit is checked by novel-commit --dry-run")
	default:
		return errs.Newf(errs.Usage, "暂不支持校验 %s", "cannot validate %s", st.String()).With("step", st.String())
	}
	if err != nil {
		return rerun(err, st)
	}
	return nil
}

// Lenient reports whether chapter c's stage was read from a plugin-era
// value, in which case a missing crossref reads as {}.
func Lenient(cp *checkpoint.Checkpoint, c int) bool {
	return cp != nil && cp.PluginStage != "" && cp.Inflight == c
}

func checkSummarize(root *project.Root, cp *checkpoint.Checkpoint, c int) error {
	if err := CheckSummary(root, c); err != nil {
		return err
	}
	d, err := ReadDelta(root, c)
	if err != nil {
		return err
	}
	if _, err := ReadCrossref(root, c, Lenient(cp, c)); err != nil {
		return err
	}
	return CheckMemory(root, d.StorylineID)
}
