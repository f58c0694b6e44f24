package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// pipeline.mk's own refusals: exact envelopes in both languages, valid
// JSON whatever the values, and the exit code make passes on.
func TestMakefileErrors(t *testing.T) {
	cases := []struct {
		e      *errs.Error
		exit   int
		zh, en string
	}{
		{BadNumber("V", `a"b`), 2,
			`{"error":{"code":"E_USAGE","message":"V 必须是 1 到 999999 的十进制整数，实际为 \"a\\\"b\"","hint":"只写数字，可以补零，例如 V=2 或 V=02","details":{"value":"a\"b","variable":"V"}}}`,
			`{"error":{"code":"E_USAGE","message":"V must be a decimal integer 1..999999, got \"a\\\"b\"","hint":"write digits only, zero padding allowed, e.g. V=2 or V=02","details":{"value":"a\"b","variable":"V"}}}`},
		{LockedOnly("_chapter"), 2,
			`{"error":{"code":"E_USAGE","message":"内部目标 _chapter 只能在 novel-lock run 下运行","hint":"运行 make -f pipeline.mk chapter 或 continue","details":{"target":"_chapter"}}}`,
			`{"error":{"code":"E_USAGE","message":"the inner target _chapter runs only under novel-lock run","hint":"run make -f pipeline.mk chapter or continue","details":{"target":"_chapter"}}}`},
		{NoVolume(), 2,
			`{"error":{"code":"E_USAGE","message":"volume 目标需要 V=卷号","hint":"例如 make -f pipeline.mk volume V=2","details":{"variable":"V"}}}`,
			`{"error":{"code":"E_USAGE","message":"the volume target needs V=VOLUME","hint":"e.g. make -f pipeline.mk volume V=2","details":{"variable":"V"}}}`},
		{NoChapter("/p"), 1,
			`{"error":{"code":"E_NO_PROJECT","message":"无法确定要写的章节（项目 /p）","hint":"用 PROJECT=dir 指定项目，或用 C=N 指定章节","details":{"project":"/p"}}}`,
			`{"error":{"code":"E_NO_PROJECT","message":"cannot tell which chapter to write (project /p)","hint":"name the project with PROJECT=dir, or the chapter with C=N","details":{"project":"/p"}}}`},
		{RoundsExhausted(7, 12), 1,
			`{"error":{"code":"E_STATE","message":"第 7 章在 12 轮后仍未完成","hint":"用 novel-step status 查看原因","details":{"chapter":7,"rounds":12}}}`,
			`{"error":{"code":"E_STATE","message":"chapter 7 is still unfinished after 12 rounds","hint":"run novel-step status to see why","details":{"chapter":7,"rounds":12}}}`},
		{PlanAgentFailed(2, "staging/manifests/volume-02-plan.packet.json"), 1,
			`{"error":{"code":"E_AGENT","message":"卷规划 volume:02:plan 的执行器连续两次失败","hint":"检查执行器后重新运行 make -f pipeline.mk volume V=2","details":{"packet":"staging/manifests/volume-02-plan.packet.json","step":"volume:02:plan"}}}`,
			`{"error":{"code":"E_AGENT","message":"the executor of the volume plan volume:02:plan failed twice","hint":"check the executor, then run make -f pipeline.mk volume V=2 again","details":{"packet":"staging/manifests/volume-02-plan.packet.json","step":"volume:02:plan"}}}`},
	}
	for _, c := range cases {
		for lang, want := range map[string]string{"zh": c.zh, "en": c.en} {
			got, err := json.Marshal(c.e.Envelope(lang))
			if err != nil || string(got) != want || !json.Valid(got) {
				t.Errorf("%s %s:\n got %s\nwant %s", c.e.Code, lang, got, want)
			}
		}
		if c.e.Exit != c.exit {
			t.Errorf("%s: exit %d, want %d", c.e.Code, c.e.Exit, c.exit)
		}
	}
}
