package gate

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/settings"
)

// Issue #27's repro: a key chapter gated polish at 3.95 with no dimension
// below 3.5 got failed_dimensions [] and no required_fixes — both judges'
// fixes were dropped. A polish now carries both judges' fixes, the lint
// warnings, and the two lowest dimensions.
func TestPolishHasSomethingToPolish(t *testing.T) {
	primary := ev(t, `{"chapter":3,"overall":4.0,"scores":{"pacing":{"score":4,"reason":"稍慢"},"tonal_variance":{"score":3.5,"reason":"同调"},"character":{"score":4.5,"reason":"好"}},
 "required_fixes":[{"target":"第3段","instruction":"删去重复的交代"}]}`)
	secondary := ev(t, `{"chapter":3,"overall":3.95,"scores":{"pacing":{"score":4,"reason":"稍慢"},"tonal_variance":{"score":3.5,"reason":"同调"},"character":{"score":4,"reason":"好"}},
 "required_fixes":[{"target":"结尾","instruction":"结尾的总结句改成动作"},{"target":"第3段","instruction":"删去重复的交代"}]}`)
	p, _ := platform.Builtin(platform.General)
	text := "# 第3章 灯\n\n" + strings.Repeat("他不禁笑了。", 500) + "\n"
	rep := lint.Run(lint.Input{Chapter: 3, File: "staging/chapters/chapter-003.md", Stage: lint.StageRefine, Text: text},
		lint.Config{Profile: p, QuoteStyle: settings.QuoteCorner, Blacklist: []string{"不禁"}})
	r := Decide(Input{Chapter: 3, Primary: primary, Secondary: secondary, KeyChapter: true, Settings: settings.Defaults(), Lint: rep})
	if r.Decision != Polish || r.EvalUsed != "secondary" {
		t.Fatalf("decision %s %s", r.Decision, r.EvalUsed)
	}
	want := []eval.Fix{{Target: "第3段", Instruction: "删去重复的交代"}, {Target: "结尾", Instruction: "结尾的总结句改成动作"}}
	if len(r.RequiredFixes) != 3 || r.RequiredFixes[0] != want[0] || r.RequiredFixes[1] != want[1] ||
		r.RequiredFixes[2].Target != "lint:blacklist" || !strings.HasPrefix(r.RequiredFixes[2].Instruction, "黑名单命中 500 次") {
		t.Fatalf("required_fixes %+v", r.RequiredFixes)
	}
	if len(r.FailedDimensions) != 2 || r.FailedDimensions[0].Name != "tonal_variance" || r.FailedDimensions[1].Name != "character" {
		t.Fatalf("failed_dimensions %+v, want the two lowest of the used eval", r.FailedDimensions)
	}
}

// A polish without any judge fix falls back to the two lowest dimensions'
// feedback; the fixes never exceed MaxFixes.
func TestPolishFixesFallbackAndCap(t *testing.T) {
	e := ev(t, `{"chapter":3,"overall":3.7,"scores":{"pacing":{"score":3,"reason":"拖沓"},"immersion":{"score":4,"reason":"可感"}}}`)
	r := Decide(Input{Chapter: 3, Primary: e, Settings: settings.Defaults()})
	if r.Decision != Polish || len(r.RequiredFixes) != 2 || r.RequiredFixes[0] != (eval.Fix{Target: "pacing", Instruction: "拖沓"}) {
		t.Fatalf("%+v", r.RequiredFixes)
	}
	var many []string
	for i := 0; i < 12; i++ {
		many = append(many, `{"target":"t","instruction":"改第`+string(rune('A'+i))+`处"}`)
	}
	e = ev(t, `{"chapter":3,"overall":3.7,"required_fixes":[`+strings.Join(many, ",")+`]}`)
	if r := Decide(Input{Chapter: 3, Primary: e, Settings: settings.Defaults()}); len(r.RequiredFixes) != maxFixes {
		t.Fatalf("%d fixes, want %d", len(r.RequiredFixes), maxFixes)
	}
}
