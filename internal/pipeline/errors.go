package pipeline

import (
	"fmt"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/stepid"
)

// The refusals pipeline.mk itself reports (`novel-agent pipeline error
// KIND`). They used to be JSON lines written by hand in the make file,
// where an unescaped $(V) made invalid JSON and nothing was localized; here
// they go through the one error envelope like every tool's.

// Variables whose values are checked as numbers, with an example each
// (zh, en).
var numberVars = map[string][2]string{
	"C":          {"C=13 或 C=013", "C=13 or C=013"},
	"N":          {"N=5", "N=5"},
	"V":          {"V=2 或 V=02", "V=2 or V=02"},
	"MAX_ROUNDS": {"MAX_ROUNDS=12", "MAX_ROUNDS=12"},
}

// BadNumber is a make variable (C, N, V, MAX_ROUNDS) that is not a
// decimal 1..999999.
func BadNumber(name, value string) *errs.Error {
	ex, ok := numberVars[name]
	if !ok {
		ex = [2]string{name + "=1", name + "=1"}
	}
	return errs.New(errs.Usage,
		fmt.Sprintf("%s 必须是 1 到 %d 的十进制整数，实际为 %s", name, stepid.MaxNumber, strconv.Quote(value)),
		fmt.Sprintf("%s must be a decimal integer 1..%d, got %s", name, stepid.MaxNumber, strconv.Quote(value))).
		With("variable", name).With("value", value).
		Hint("只写数字，可以补零，例如 "+ex[0], "write digits only, zero padding allowed, e.g. "+ex[1])
}

// LockedOnly is an inner target run without the lock of novel-lock run.
func LockedOnly(target string) *errs.Error {
	return errs.New(errs.Usage, "内部目标 "+target+" 只能在 novel-lock run 下运行", "the inner target "+target+" runs only under novel-lock run").
		With("target", target).
		Hint("运行 make -f pipeline.mk chapter 或 continue", "run make -f pipeline.mk chapter or continue")
}

// NoVolume is the volume target without V.
func NoVolume() *errs.Error {
	return errs.New(errs.Usage, "volume 目标需要 V=卷号", "the volume target needs V=VOLUME").
		With("variable", "V").Hint("例如 make -f pipeline.mk volume V=2", "e.g. make -f pipeline.mk volume V=2")
}

// NoChapter is the chapter target when no chapter could be planned. The
// planner's own error is reported when it has one (not a project, a
// blocked project); this is the fallback.
func NoChapter(project string) *errs.Error {
	return errs.New(errs.NoProject, "无法确定要写的章节（项目 "+project+"）", "cannot tell which chapter to write (project "+project+")").
		With("project", project).
		Hint("用 PROJECT=dir 指定项目，或用 C=N 指定章节", "name the project with PROJECT=dir, or the chapter with C=N")
}

// RoundsExhausted is a chapter still unfinished after the driver's rounds.
func RoundsExhausted(chapter, rounds int) *errs.Error {
	return errs.Newf(errs.State, "第 %d 章在 %d 轮后仍未完成", "chapter %d is still unfinished after %d rounds", chapter, rounds).
		With("chapter", chapter).With("rounds", rounds).WithExit(errs.ExitFailed).
		Hint("用 novel-step status 查看原因", "run novel-step status to see why")
}

// PlanAgentFailed is a volume planner that failed twice.
func PlanAgentFailed(volume int, packet string) *errs.Error {
	st := stepid.Step{Volume: true, Number: volume, Stage: stepid.Plan}.String()
	return errs.Newf(errs.Agent, "卷规划 %s 的执行器连续两次失败", "the executor of the volume plan %s failed twice", st).
		With("step", st).With("packet", packet).
		Hint(fmt.Sprintf("检查执行器后重新运行 make -f pipeline.mk volume V=%d", volume),
			fmt.Sprintf("check the executor, then run make -f pipeline.mk volume V=%d again", volume))
}
