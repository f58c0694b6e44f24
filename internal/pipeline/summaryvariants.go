package pipeline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/stepid"
)

// VariantOutcome is what `novel-agent pipeline amend|backfill` prints:
// per chapter, how many summarizer runs it took and the commit's result.
type VariantOutcome struct {
	Mode     string            `json:"mode"`
	Chapters []VariantChapter  `json:"chapters"`
	Commits  []json.RawMessage `json:"commits"`
}

// VariantChapter is one summarized and committed chapter.
type VariantChapter struct {
	Chapter int    `json:"chapter"`
	Action  string `json:"action"` // summarized, reused (staged products already valid)
	Runs    int    `json:"agent_runs"`
}

// Amend re-summarizes committed chapter c after the author edited it and
// commits the result with novel-commit amend (SPEC §23).
func (e *Env) Amend(c int, agentCmd string) (*VariantOutcome, error) {
	out := &VariantOutcome{Mode: stepid.ModeAmend, Chapters: []VariantChapter{}, Commits: []json.RawMessage{}}
	if err := e.variantChapter(out, c, agentCmd); err != nil {
		return nil, err
	}
	return out, nil
}

// Backfill summarizes and commits every imported chapter above
// last_completed_chapter, in order (SPEC §23); after it the pipeline
// continues with the chapter after the last imported one.
func (e *Env) Backfill(agentCmd string) (*VariantOutcome, error) {
	out := &VariantOutcome{Mode: stepid.ModeBackfill, Chapters: []VariantChapter{}, Commits: []json.RawMessage{}}
	chapters, err := commit.ImportedChapters(e.Root)
	if err != nil {
		return nil, err
	}
	for _, c := range chapters {
		cp, err := checkpoint.Load(e.Root)
		if err != nil {
			return nil, err
		}
		if c <= cp.LastCompleted {
			continue // backfilled by an earlier run
		}
		if err := e.variantChapter(out, c, agentCmd); err != nil {
			return nil, err
		}
	}
	if len(out.Chapters) == 0 {
		fmt.Fprintf(e.Stderr, "[回填] 没有待回填的导入章节 / every imported chapter is already backfilled\n")
	}
	return out, nil
}

// variantChapter runs one chapter the way Volume runs a plan: staged
// products that already pass the commit's dry run are committed as they
// are; otherwise the packet is written, the executor runs, the products
// are validated by the dry run, and a failed attempt is retried once.
func (e *Env) variantChapter(out *VariantOutcome, c int, agentCmd string) error {
	mode := out.Mode
	label := fmt.Sprintf("[第%03d章] %s", c, mode)
	rec := VariantChapter{Chapter: c, Action: "reused"}
	failure, err := e.variantValid(mode, c)
	if err != nil {
		return err
	}
	if failure != nil {
		rec.Action = "summarized"
		st := stepid.Chapter(c, stepid.Summarize)
		// The variant's packet file is named by its mode (manifest.VariantPath).
		pk, _, err := e.writePacket("", st.String(), "--mode", mode)
		if err != nil {
			return err
		}
		var outputs []string
		for _, o := range pk.ExpectedOutputs {
			outputs = append(outputs, o.Path)
		}
		packet := manifest.VariantPath(c, mode)
		for attempt := 1; attempt <= 2 && failure != nil; attempt++ {
			start := time.Now()
			run, err := e.beginStep(st.String(), mode, attempt)
			if err != nil {
				return err
			}
			exit, _, _, err := run.execute(agentCmd, packet, label)
			if err != nil {
				return err
			}
			rec.Runs++
			if exit != 0 {
				failure = errs.Newf(errs.Agent, "第 %d 章的 %s 摘要重试后仍失败：执行器退出码 %d", "the %[2]s summary of chapter %[1]d failed again after a retry: the executor exited with status %[3]d", c, mode, exit).
					With("chapter", c).With("packet", packet).With("exit", exit).
					Hint("检查执行器后重新运行 make -f pipeline.mk "+mode+e.chapterArg(mode, c), "check the executor, then re-run make -f pipeline.mk "+mode+e.chapterArg(mode, c))
				fmt.Fprintf(e.Stderr, "%s ✗ 第 %d 次执行失败 / attempt %d failed: 执行器退出码 %d\n", label, attempt, attempt, exit)
				if err := run.end(failure); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(e.Stderr, "%s summarize ✓ %ss\n", label, e.wholeSeconds(start))
			// Files the executor wrote outside staging/ are never committed
			// over: the run stops with the boundary error naming them.
			// Its outputs go too, so a re-run summarizes again.
			if _, err := boundary.Check(e.Root, st, mode); err != nil {
				e.remove(outputs...)
				return run.finish(nil, err)
			}
			failure, err = e.variantValid(mode, c)
			if err := run.finish(failure, err); err != nil {
				return err
			}
			if failure != nil {
				fmt.Fprintf(e.Stderr, "%s validate ✗ 第 %d 次的摘要未通过校验 / attempt %d was refused: %s\n", label, attempt, attempt, failure.Message("zh"))
			}
		}
		if failure != nil {
			return failure
		}
	}
	raw, err := e.must("novel-commit", mode, "--chapter", strconv.Itoa(c))
	if err != nil {
		return err
	}
	out.Chapters = append(out.Chapters, rec)
	out.Commits = append(out.Commits, json.RawMessage(raw))
	fmt.Fprintf(e.Stderr, "%s commit ✓\n", label)
	return nil
}

func (e *Env) chapterArg(mode string, c int) string {
	if mode == stepid.ModeAmend {
		return " C=" + strconv.Itoa(c)
	}
	return ""
}

// variantValid asks novel-commit amend|backfill --dry-run whether the
// staged products can be committed: a refusal of the products (exit 1)
// is the failure, anything else (state, lock, no import log) the error.
func (e *Env) variantValid(mode string, c int) (*errs.Error, error) {
	if pending := layout.CommitJournal(c); mode == stepid.ModeBackfill && e.Root.Exists(pending) {
		return nil, nil // an interrupted backfill commit: novel-commit resumes it
	}
	if mode == stepid.ModeAmend && e.Root.Exists(layout.AmendJournal(c)) {
		return nil, nil
	}
	res, err := e.toolQuiet("novel-commit", mode, "--chapter", strconv.Itoa(c), "--dry-run")
	if err != nil {
		return nil, err
	}
	switch {
	case res.Exit == 0:
		return nil, nil
	case res.Exit == errs.ExitFailed && res.Err != nil && productError(res.Err):
		return res.Err, nil
	}
	return nil, res.Err
}

// productError tells a refusal of the summarizer's products (missing,
// malformed, wrong storyline or base version) from one of the project.
func productError(e *errs.Error) bool {
	switch e.Code {
	case errs.MissingFile, errs.InvalidJSON, errs.Schema, errs.Contract, errs.StateVersion:
		return true
	}
	return false
}
