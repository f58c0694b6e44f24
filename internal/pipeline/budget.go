package pipeline

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
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

var amountRE = lazyre.New(`^[0-9]+(\.[0-9]+)?$`)

// ParseBudget checks BUDGET (a positive decimal amount; E_USAGE
// otherwise). BUDGET_CURRENCY is checked against llm.prices when the
// budget is first used.
func ParseBudget(amount, currency string, since int) (*Budget, error) {
	a, err := strconv.ParseFloat(amount, 64)
	if !amountRE().MatchString(amount) || err != nil || a <= 0 || math.IsInf(a, 0) {
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
// log is missing, unreadable or has no cost in cur); estimated is true
// when part of it comes from estimated usage (SPEC §26).
func (e *Env) chapterCost(c int, cur string) (cost float64, estimated, ok bool) {
	rel := layout.ChapterLog(c)
	if !e.Root.IsFile(rel) {
		return 0, false, false
	}
	data, err := e.Root.ReadFile(rel)
	if err != nil {
		return 0, false, false
	}
	lg, err := runlog.ParseChapterLog(data, rel, c)
	if err != nil {
		return 0, false, false
	}
	v, ok := lg.Cost[cur]
	return v, lg.EstimatedRequests > 0, ok
}

// stepsCost is what this locked run spent in cur on agent runs that are
// not chapter stages: the steps-run lines carrying its run id. Outside a
// lock no line can be told to be this run's, so none counts.
func (e *Env) stepsCost(cur string) (float64, bool) {
	id := e.runID()
	if id == "" {
		return 0, false
	}
	lines, _ := runlog.ReadSteps(e.Root)
	sum, estimated := 0.0, false
	for _, l := range lines {
		if l.Run == id {
			sum += l.Cost[cur]
			estimated = estimated || l.Estimated() > 0
		}
	}
	return runlog.Round(sum), estimated
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
	if err := e.checkExecutorCost(); err != nil {
		return err
	}
	spent := 0.0
	approx := false
	for k := b.Since + 1; k <= lastCompleted; k++ {
		if v, est, ok := e.chapterCost(k, b.Currency); ok {
			spent += v
			approx = approx || est
		}
	}
	other, otherEst := e.stepsCost(b.Currency)
	approx = approx || otherEst
	spent = runlog.Round(spent + other)
	var sum float64
	var used []int
	for k := lastCompleted; k >= 1 && k > lastCompleted-BudgetWindow; k-- {
		if v, est, ok := e.chapterCost(k, b.Currency); ok {
			sum += v
			used = append(used, k)
			approx = approx || est
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
	exact := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + " " + b.Currency }
	amt := exact
	if approx {
		// Part of the cost comes from estimated usage (SPEC §26): say so.
		amt = func(x float64) string { return "≈" + exact(x) }
	}
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
	err := errs.New(errs.Budget, fmt.Sprintf("第 %d 章没有开始：%s（预算 %s，本次已花费 %s）", c, why, exact(b.Amount), spentZh),
		fmt.Sprintf("chapter %d was not started: %s (budget %s, spent in this run %s)", c, whyEn, exact(b.Amount), spentEn)).
		With("chapter", c).With("budget", b.Amount).With("currency", b.Currency).With("spent", spent).With("spent_other_runs", other).
		With("remaining", remaining).With("projected", projected).With("projected_from", used).With("estimated", approx).
		Hint("提高 BUDGET 后重新运行 make -f pipeline.mk continue（已提交的章节不受影响），或在 novel-report 里查看各章费用",
			"re-run make -f pipeline.mk continue with a higher BUDGET (committed chapters stay as they are), or see the cost per chapter in novel-report")
	if projected < 0 {
		err.With("projected", nil)
	}
	return e.block(err)
}

// checkExecutorCost refuses a budget whose executor cannot report a cost
// (SPEC §26), before anything runs: the command backend reports no usage
// at all, and an openai executor whose model has no price in llm.prices
// has a null cost on every request. Either way the budget would let every
// chapter through, silently.
func (e *Env) checkExecutorCost() error {
	backend := agentBackend(e.Getenv("AGENT"))
	switch backend {
	case "command":
		return errs.New(errs.Config, "设置了 BUDGET，但执行器是 command 后端（"+e.Getenv("AGENT")+"）：命令不报告用量，费用无从计算，预算无法执行",
			"BUDGET is set but the executor is the command backend ("+e.Getenv("AGENT")+"): a command reports no usage, so no cost can be computed and the budget cannot be kept").
			With("agent", e.Getenv("AGENT")).With("backend", backend).
			Hint("有预算的运行请用 AGENT=\"novel-agent --backend openai\"（并在 settings.json 的 llm.prices 写上价格），或去掉 BUDGET",
				"run a budgeted continue with AGENT=\"novel-agent --backend openai\" (and prices under llm.prices in settings.json), or drop BUDGET")
	case "openai":
		o, err := agent.OpenAIConfig(e.Root, e.Getenv)
		if err != nil {
			return err
		}
		for _, m := range o.Models() {
			if _, ok := o.LLM.Prices[m]; !ok {
				return errs.Newf(errs.Config, "设置了 BUDGET，但 settings.json 的 llm.prices 里没有模型 %s 的价格：它的请求费用无从计算，预算无法执行",
					"BUDGET is set but settings.json llm.prices has no price for the model %s: its requests have no cost, so the budget cannot be kept", m).
					With("file", layout.Settings).With("key", "llm.prices."+m).With("model", m).
					Hint("在 settings.json 的 llm.prices 里加上 "+m+" 的价格（input_per_mtok、output_per_mtok、currency），或去掉 BUDGET",
						"add the price of "+m+" under llm.prices in settings.json (input_per_mtok, output_per_mtok, currency), or drop BUDGET")
			}
		}
	}
	return nil
}

// agentBackend is the --backend of a novel-agent executor command ("" for
// any other executor, which reports its usage its own way).
func agentBackend(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 || !strings.HasSuffix(f[0], "novel-agent") {
		return ""
	}
	for i, a := range f {
		if a == "--backend" && i+1 < len(f) {
			return f[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--backend="); ok {
			return v
		}
	}
	return ""
}
