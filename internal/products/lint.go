package products

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// lintStage is the lint stage of a chapter-writing step's text.
func lintStage(stage string) string {
	switch stage {
	case stepid.Refine:
		return lint.StageRefine
	case stepid.Polish:
		return lint.StagePolish
	}
	return lint.StageDraft
}

// LintChapter lints the staging chapter as the product of stage (draft,
// refine or polish). Neither the blacklist, the registered terms nor the
// previous chapter is read: only error checks decide validation, and none
// of them uses these (a bad file there must not make a draft "missing").
func LintChapter(root *project.Root, s settings.Settings, c int, stage string) (*lint.Report, error) {
	rel := layout.StagingChapter(c)
	text, err := nonEmptyText(root, rel)
	if err != nil {
		return nil, err
	}
	return LintText(root, s, c, stage, text)
}

// LintText lints text as the staging chapter written by stage (the
// executor lints a model's answer before writing it, SPEC §18).
func LintText(root *project.Root, s settings.Settings, c int, stage, text string) (*lint.Report, error) {
	cfg, err := lint.NewConfig(root, s, nil)
	if err != nil {
		return nil, err
	}
	return lint.Run(lint.Input{Chapter: c, File: layout.StagingChapter(c), Stage: lintStage(stage), Text: text}, cfg), nil
}

// LintChapterWarnings lints the staging chapter for the warnings shown
// after a commit: with the blacklist, the registered terms and the
// previous chapter, which the repetition check needs.
func LintChapterWarnings(root *project.Root, s settings.Settings, c int) (*lint.Report, error) {
	rel := layout.StagingChapter(c)
	text, err := nonEmptyText(root, rel)
	if err != nil {
		return nil, err
	}
	// With the project's blacklist: its warnings are among those that feed
	// polish and revision fixes and the post-commit lines (SPEC §24).
	// LoadConfig loads the registered terms too (once: they read every
	// character file and scan the whole state).
	cfg, err := lint.LoadConfig(root, s)
	if err != nil {
		return nil, err
	}
	prev, err := lint.PreviousChapter(root, c)
	if err != nil {
		return nil, err
	}
	return lint.Run(lint.Input{Chapter: c, File: rel, Stage: lint.StageRefine, Text: text, Previous: prev}, cfg), nil
}

// LintChapterGate is the gate's lint of the staging chapter: the error
// checks that block a pass and the warnings that feed polish and revision
// fixes, in one run with LintChapterWarnings's configuration (no error
// check uses its blacklist, terms or previous chapter). Its failures come
// in the order of a LintChapter at refine followed by
// LintChapterWarnings, the two reads it replaces.
func LintChapterGate(root *project.Root, s settings.Settings, c int) (*lint.Report, error) {
	rel := layout.StagingChapter(c)
	text, err := nonEmptyText(root, rel)
	if err != nil {
		return nil, err
	}
	if _, err := lint.NewConfig(root, s, nil); err != nil {
		return nil, err
	}
	cfg, err := lint.LoadConfig(root, s)
	if err != nil {
		return nil, err
	}
	prev, err := lint.PreviousChapter(root, c)
	if err != nil {
		return nil, err
	}
	return lint.Run(lint.Input{Chapter: c, File: rel, Stage: lintStage(stepid.Refine), Text: text, Previous: prev}, cfg), nil
}

// CheckChapterLinted validates staging/chapters/chapter-NNN.md (present,
// valid UTF-8, not empty after trimming) and applies the error-severity
// lints of SPEC §20: a chapter that is too short for the project's platform, has
// a wrong heading, model artefacts or bookkeeping leaks is E_LINT, so
// the executor's re-ask and the pipeline's retry fix it. A draft above the
// platform's maximum is an error only while it is the draft being written
// (SPEC §24): once cp shows later stages ran on it (the text may be refined),
// re-validating the draft step treats the length as the warning it is at
// refine, polish and commit.
func CheckChapterLinted(root *project.Root, s settings.Settings, cp *checkpoint.Checkpoint, c int, stage string) error {
	r, err := LintChapter(root, s, c, stage)
	if err != nil {
		return err
	}
	if stage == stepid.Draft && draftAccepted(cp, c) && r.WordCount > r.Platform.WordsMax {
		for i := range r.Checks {
			if r.Checks[i].ID == lint.Length && r.Checks[i].Count > 0 && r.Checks[i].Severity == lint.Error {
				r.Checks[i].Severity = lint.Warning
				r.Summary.Errors--
				r.Summary.Warnings++
			}
		}
	}
	return r.Refusal(stepid.Chapter(c, stage).String())
}

// draftAccepted reports whether chapter c's draft step is behind it: the
// chapter is in flight at a stage after drafting (not drafting, and not
// revising, where a new draft is being written).
func draftAccepted(cp *checkpoint.Checkpoint, c int) bool {
	if cp == nil || cp.Inflight != c {
		return false
	}
	return cp.Stage != checkpoint.Drafting && cp.Stage != checkpoint.Revising && cp.Stage != ""
}
