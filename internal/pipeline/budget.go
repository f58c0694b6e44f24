package pipeline

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/settings"
)

// BudgetWindow is how many of the last committed chapters the cost of
// the next chapter is projected from (SPEC §18: their mean).
const BudgetWindow = 5

// Budget is `make … continue BUDGET=12.5 [BUDGET_CURRENCY=CNY]`: what one
// run may spend. Spent counts the chapter logs of the chapters committed
// since the run started (Since is last_completed_chapter then) and the
// lines of logs/steps-run.jsonl this run wrote (a continuity auditor's
// review, any other agent run of the same locked run), in one currency;
// amounts in other currencies are never converted.
type Budget struct {
	Amount   float64
	Currency string // "" until resolved from llm.prices
	Since    int
}

var amountRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ParseBudget checks BUDGET (a positive decimal amount; E_USAGE
// otherwise). BUDGET_CURRENCY is checked against llm.prices when the
// budget is first used.
func ParseBudget(amount, currency string, since int) (*Budget, error) {
	a, err := strconv.ParseFloat(amount, 64)
	if !amountRE.MatchString(amount) || err != nil || a <= 0 || math.IsInf(a, 0) {
		return nil, errs.Newf(errs.Usage, "BUDGET=%q 不是正的十进制金额（例如 BUDGET=12.5）", "BUDGET=%q is not a positive decimal amount (e.g. BUDGET=12.5)", amount).
			With("variable", "BUDGET").With("value", amount).
			Hint("用 make -f pipeline.mk continue N=… BUDGET=12.5 给出本次运行最多花费的金额", "give the most this run may spend: make -f pipeline.mk continue N=… BUDGET=12.5")
	}
	if since < 0 {
		since = 0
	}
	return &Budget{Amount: a, Currency: currency, Since: since}, nil
}

// resolveCurrency picks the budget's currency: BUDGET_CURRENCY, else the
// one currency of llm.prices. No prices means no cost is ever known, so a
// budget could never act: that is refused rather than ignored.
func (e *Env) resolveCurrency(b *Budget) error {
	llm, err := settings.LoadLLM(e.Root, e.Getenv)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	for _, p := range llm.Prices {
		set[p.Currency] = true
	}
	var curs []string
	for c := range set {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	switch {
	case len(curs) > 0 && b.Currency != "":
		if set[b.Currency] {
			return nil
		}
		return errs.Newf(errs.Usage, "BUDGET_CURRENCY=%q 不是 llm.prices 里用的货币（有：%s）", "BUDGET_CURRENCY=%q is not a currency llm.prices uses (it has: %s)",
			b.Currency, strings.Join(curs, ", ")).With("variable", "BUDGET_CURRENCY").With("value", b.Currency).With("currencies", curs).
			Hint("写 settings.json llm.prices 里用的货币代码", "use a currency as written in settings.json llm.prices")
	case len(curs) == 0:
		return errs.New(errs.Config, "设置了 BUDGET，但 settings.json 的 llm.prices 里没有任何价格：费用无从计算，预算无法执行",
			"BUDGET is set but settings.json has no llm.prices: no cost can be computed, so the budget cannot be kept").
			With("file", layout.Settings).With("key", "llm.prices").
			Hint("在 settings.json 的 llm.prices 里写上所用模型的价格（见 README“使用真实模型”），或去掉 BUDGET",
				"add the prices of the models you use under llm.prices in settings.json (README, \"Use a real model\"), or drop BUDGET")
	case len(curs) == 1:
		b.Currency = curs[0]
		return nil
	}
	return errs.Newf(errs.Usage, "llm.prices 里有多种货币（%s）：请用 BUDGET_CURRENCY 指明预算的货币", "llm.prices uses several currencies (%s): say which one the budget is in with BUDGET_CURRENCY",
		strings.Join(curs, ", ")).With("currencies", curs).
		Hint("例如 make -f pipeline.mk continue N=… BUDGET=12.5 BUDGET_CURRENCY="+curs[0], "e.g. make -f pipeline.mk continue N=… BUDGET=12.5 BUDGET_CURRENCY="+curs[0])
}

// chapterCost is the cost of committed chapter c in cur (ok false when its
// log is missing, unreadable or has no cost in cur).
func (e *Env) chapterCost(c int, cur string) (float64, bool) {
	rel := layout.ChapterLog(c)
	if !e.Root.IsFile(rel) {
		return 0, false
	}
	data, err := e.Root.ReadFile(rel)
	if err != nil {
		return 0, false
	}
	lg, err := runlog.ParseChapterLog(data, rel, c)
	if err != nil {
		return 0, false
	}
	v, ok := lg.Cost[cur]
	return v, ok
}

// stepsCost is what this locked run spent in cur on agent runs that are
// not chapter stages: the steps-run lines carrying its run id. Outside a
// lock no line can be told to be this run's, so none counts.
func (e *Env) stepsCost(cur string) float64 {
	id := e.runID()
	if id == "" {
		return 0
	}
	lines, _ := runlog.ReadSteps(e.Root)
	sum := 0.0
	for _, l := range lines {
		if l.Run == id {
			sum += l.Cost[cur]
		}
	}
	return runlog.Round(sum)
}

// checkBudget refuses (E_BUDGET, exit 3) to start chapter c when the
// budget is spent or the projected cost of a chapter — the mean cost of
// the last BudgetWindow committed chapters that have one — is more than
// what remains. With no cost history yet there is no projection and only
// the spent amount is checked.
func (e *Env) checkBudget(b *Budget, c, lastCompleted int) error {
	if err := e.resolveCurrency(b); err != nil {
		return err
	}
	spent := 0.0
	for k := b.Since + 1; k <= lastCompleted; k++ {
		if v, ok := e.chapterCost(k, b.Currency); ok {
			spent += v
		}
	}
	other := e.stepsCost(b.Currency)
	spent = runlog.Round(spent + other)
	var sum float64
	var used []int
	for k := lastCompleted; k >= 1 && k > lastCompleted-BudgetWindow; k-- {
		if v, ok := e.chapterCost(k, b.Currency); ok {
			sum += v
			used = append(used, k)
		}
	}
	remaining := runlog.Round(b.Amount - spent)
	projected := -1.0
	if len(used) > 0 {
		projected = runlog.Round(sum / float64(len(used)))
	}
	if remaining > 0 && projected <= remaining {
		return nil
	}
	amt := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + " " + b.Currency }
	why, whyEn := "预算已用完", "the budget is spent"
	if remaining > 0 {
		why = fmt.Sprintf("预计花费 %s（最近 %d 章的均值）超过剩余预算 %s", amt(projected), len(used), amt(remaining))
		whyEn = fmt.Sprintf("its projected cost %s (mean of the last %d chapters) exceeds the remaining budget %s", amt(projected), len(used), amt(remaining))
	}
	spentZh, spentEn := amt(spent), amt(spent)
	if other > 0 {
		spentZh += "，其中章节以外的代理运行 " + amt(other)
		spentEn += ", of which agent runs outside chapters " + amt(other)
	}
	err := errs.New(errs.Budget, fmt.Sprintf("第 %d 章没有开始：%s（预算 %s，本次已花费 %s）", c, why, amt(b.Amount), spentZh),
		fmt.Sprintf("chapter %d was not started: %s (budget %s, spent in this run %s)", c, whyEn, amt(b.Amount), spentEn)).
		With("chapter", c).With("budget", b.Amount).With("currency", b.Currency).With("spent", spent).With("spent_other_runs", other).
		With("remaining", remaining).With("projected", projected).With("projected_from", used).
		Hint("提高 BUDGET 后重新运行 make -f pipeline.mk continue（已提交的章节不受影响），或在 novel-report 里查看各章费用",
			"re-run make -f pipeline.mk continue with a higher BUDGET (committed chapters stay as they are), or see the cost per chapter in novel-report")
	if projected < 0 {
		err.With("projected", nil)
	}
	return e.block(err)
}
