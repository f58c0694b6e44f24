package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/settings"
)

func TestFeedbackShowsWarningsAndTenChapterReminders(t *testing.T) {
	raw := `{"chapter":10,"word_count":3120,"overall_final":3.85,"gate_decision":"pass","revision_count":2,
"dropped_ops":[{"op":{"op":"set","path":"x"},"reason":"unknown entity"},{"op":"not json","reason":"op is not valid JSON"},
 {"op":{"op":"a"},"reason":"r3"},{"op":{"op":"b"},"reason":"r4"}],
"warnings":["项目中有 3 个未登记实体（甲、乙、丙），请在 characters/active/ 中建档 / 3 unknown entities are logged in logs/unknown-entities.jsonl; add them to characters/active/"],
"periodic":{"quality_brief":{"mean_score":3.9,"lowest":[{"chapter":8,"overall":3.2},{"chapter":10,"overall":3.85}],"open_high_risk":["F-003","F-007"]},
 "inventories":{"planned_not_planted":1,"overdue":2,"dormant":3,"resolved_in_window":4,"broken_bridges":5,"rhythm_warnings":["main 已 12 章未出现"],
  "files":["logs/foreshadowing/latest.json","logs/storylines/rhythm-latest.json"]},
 "full_review":{"message":"m","range":[1,10]}}}`
	var r commit.Output
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Feedback(&r, []lint.Check{{ID: "dashes", Count: 2, Detail: "破折号 2 处"}}), "\n")
	want := `第 10 章已生成（3120 字），评分 3.9/5.0，门控 pass，修订 2 次
  ⚠ 丢弃了 4 个状态操作（见 state/changelog.jsonl 的 dropped）：
    {"op":"set","path":"x"} — unknown entity
    not json — op is not valid JSON
    {"op":"a"} — r3
    … 另 1 个
  ⚠ 项目中有 3 个未登记实体（甲、乙、丙），请在 characters/active/ 中建档 / 3 unknown entities are logged in logs/unknown-entities.jsonl; add them to characters/active/
  ⚠ lint dashes ×2：破折号 2 处
  近 5 章质量：平均 3.90，最低 第 8 章 3.2、第 10 章 3.9；逾期伏笔：F-003、F-007
  10 章盘点：计划未埋 1 · 逾期 2 · 休眠 3 · 窗口内回收 4 · 断桥 5 → logs/foreshadowing/latest.json、logs/storylines/rhythm-latest.json
    main 已 12 章未出现
  提醒：已提交 10 章，建议全面审阅第 1–10 章`
	if got != want {
		t.Fatalf("feedback:\n%s\nwant:\n%s", got, want)
	}
	if s := SummaryPart(&r); s != "Ch 10: 3120字 3.9 pass ↻2" {
		t.Fatalf("summary part %q", s)
	}
}

func TestGateReason(t *testing.T) {
	th := settings.Thresholds{Pass: 4, Polish: 3.5, Revise: 3, Review: 2}
	base := func(d string, x float64) *gate.Result {
		r := &gate.Result{Decision: d, OverallFinal: x, MaxRevisions: 2}
		r.Config.GateThresholds = th
		return r
	}
	high := base(gate.Revise, 4.3)
	high.HasHighConfidenceViolation = true
	high.Violations.High = []gate.Violation{{}}
	capped := base(gate.Review, 4.3)
	capped.HasHighConfidenceViolation, capped.RevisionCount = true, 2
	capped.Violations.High = []gate.Violation{{}, {}}
	linted := base(gate.Revise, 4.5)
	linted.Lint = &gate.LintBlock{Errors: []string{"heading", "meta_leak"}}
	forced := base(gate.Pass, 3.2)
	forced.ForcePassed = true
	logic := base(gate.Review, 4.5)
	logic.BlockedBy, logic.LogicReview = "logic_review", &gate.LogicSummary{OverallScore: 60, MinScore: 75}
	for _, c := range []struct {
		r    *gate.Result
		want string
	}{
		{high, "gate → revise 4.3（1 个高置信违规）"},
		{capped, "gate → review 4.3（2 个高置信违规；已达修订上限 2）"},
		{linted, "gate → revise 4.5（2 个 lint 错误）"},
		{forced, "gate → pass 3.2（已达修订上限 2，分数可接受，强制通过）"},
		{logic, "gate → review 4.5（逻辑审查阻断：60 分 < 75）"},
		{base(gate.Review, 2.5), "gate → review 2.5（< 修订线 3）"},
		{base(gate.Rewrite, 1.5), "gate → rewrite 1.5（< 审阅线 2）"},
	} {
		if got := GateLine(c.r); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
