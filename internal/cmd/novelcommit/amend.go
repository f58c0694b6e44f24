package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
)

type amendCmd struct {
	Chapter int  `type:"chapter" name:"chapter" required:"" help:"The committed chapter whose edited text was summarized again (staging products from make … amend C=N)."`
	DryRun  bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

func (a *amendCmd) Run(ctx *cli.Context) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	env := commit.Env{Root: root, Settings: s, Now: now, Crash: journal.CrashHook(ctx.Getenv)}
	if err := commit.PendingRollbackError(root); err != nil {
		return err
	}
	if err := commit.PendingCommitError(root, "修订", "amend"); err != nil {
		return err
	}
	pending, err := commit.PendingAmend(root)
	if err != nil {
		return err
	}
	if pending != 0 && pending != a.Chapter {
		return errs.Newf(errs.State, "第 %d 章的修订尚未完成（%s）", "the amend of chapter %d is unfinished (%s)", pending, layout.AmendJournal(pending)).
			With("journal", layout.AmendJournal(pending)).WithExit(errs.ExitFailed).
			Hint("先运行 novel-commit amend --chapter "+strconv.Itoa(pending)+" 完成它", "run novel-commit amend --chapter "+strconv.Itoa(pending)+" first to finish it")
	}
	resume := pending == a.Chapter
	return journaled[*commit.AmendJournal, *commit.AmendOutput]{
		resume:  resume,
		load:    func() (*commit.AmendJournal, error) { return commit.LoadAmendJournal(root, a.Chapter) },
		prepare: func() (*commit.AmendJournal, error) { return commit.PrepareAmend(env, a.Chapter) },
		dryRun: func(j *commit.AmendJournal) (any, []journal.PlanStep) {
			return commit.AmendDryRun{DryRun: true, Resume: resume, Plan: j.Plan, AmendOutput: j.Output}, j.Plan
		},
		read: (*commit.AmendJournal).Read,
		execute: func(j *commit.AmendJournal, fresh bool) (*commit.AmendOutput, error) {
			return commit.ExecuteAmend(env, j, fresh)
		},
		text: func(out *commit.AmendOutput) string {
			if out.StateKept {
				return "第 " + strconv.Itoa(out.Chapter) + " 章已修订（" + strconv.Itoa(out.WordCount) + " 字）；该章由其他工具提交，状态已在基线中，保持不变（新 delta 保存在 " +
					out.BackupDir + "/），state_version " + strconv.Itoa(out.StateVersion)
			}
			return "第 " + strconv.Itoa(out.Chapter) + " 章已修订（" + strconv.Itoa(out.WordCount) + " 字），后续章节丢弃 " +
				strconv.Itoa(len(out.LaterDropped)) + " 个不再适用的操作，state_version " + strconv.Itoa(out.StateVersion)
		},
	}.run(ctx, root, s, a.DryRun)
}
