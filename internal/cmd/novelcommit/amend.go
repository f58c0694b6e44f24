package novelcommit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
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
	return journal.Command[*commit.AmendJournal, *commit.AmendOutput]{
		Kind:    journal.Amend,
		Arg:     strconv.Itoa(a.Chapter),
		Load:    func() (*commit.AmendJournal, error) { return commit.LoadAmendJournal(root, a.Chapter) },
		Prepare: func() (*commit.AmendJournal, error) { return commit.PrepareAmend(env, a.Chapter) },
		Plan:    func(j *commit.AmendJournal) ([]journal.PlanStep, *commit.AmendOutput) { return j.Plan, &j.Output },
		Read:    func(j *commit.AmendJournal) []byte { return j.Read() },
		Execute: func(j *commit.AmendJournal, fresh bool) (*commit.AmendOutput, error) {
			return commit.ExecuteAmend(env, j, fresh)
		},
		Text: func(out *commit.AmendOutput) string {
			if out.StateKept {
				return "第 " + strconv.Itoa(out.Chapter) + " 章已修订（" + strconv.Itoa(out.WordCount) + " 字）；该章由其他工具提交，状态已在基线中，保持不变（新 delta 保存在 " +
					out.BackupDir + "/），state_version " + strconv.Itoa(out.StateVersion)
			}
			return "第 " + strconv.Itoa(out.Chapter) + " 章已修订（" + strconv.Itoa(out.WordCount) + " 字），后续章节丢弃 " +
				strconv.Itoa(len(out.LaterDropped)) + " 个不再适用的操作，state_version " + strconv.Itoa(out.StateVersion)
		},
	}.Run(ctx, root, locker(ctx, root, s, 0), a.DryRun)
}
