package manifest

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// Via values of expected outputs.
const (
	ViaFile   = "file"
	ViaStdout = "stdout"
)

func (b *builder) outlineInline() {
	b.in.Set("chapter_title", b.blk.Title)
	b.in.Set("chapter_outline_block", b.blk.Text)
	b.in.Set("storyline_id", b.blk.StorylineID)
	b.in.Set("volume_range", b.volumeRange())
}

func (b *builder) hardRules() error {
	lines, _, err := loadHardRules(b.root)
	if err != nil {
		return err
	}
	b.in.Set("hard_rules_list", lines)
	return nil
}

func (b *builder) entityMap() error {
	chars, err := b.characters()
	if err != nil {
		return err
	}
	m, err := b.mayAppear(chars)
	if err != nil {
		return err
	}
	b.in.Set(keyEntityMap, m)
	return nil
}

// globalForeshadowing is foreshadowing/global.json's light items (only
// selected items are parsed in full), read once per packet: the tasks and
// the recall both need it, and a long book's file is megabytes.
func (b *builder) globalForeshadowing() ([]foreshadow.Item, error) {
	if !b.globalDone {
		g, err := foreshadow.LoadGlobalLight(b.root)
		if err != nil {
			return nil, err
		}
		b.global, b.globalDone = g, true
	}
	return b.global, nil
}

// foreshadowing sets foreshadowing_tasks, trimmed for a packet (no
// history, at most foreshadow.MaxOverdueTasks overdue items) plus the
// items the chapter's plan names with their action, and for the writer
// foreshadow_reminders.
func (b *builder) foreshadowing(reminders bool) error {
	global, err := b.globalForeshadowing()
	if err != nil {
		return err
	}
	plan, err := foreshadow.LoadPlan(b.root, b.vol)
	if err != nil {
		return err
	}
	items, dropped := foreshadow.PacketTasks(global, plan, b.c, b.vol)
	if dropped > 0 {
		b.warn("另有 %d 条逾期伏笔未放入指令包（只保留逾期最久的 %d 条）；完整列表见 novel-foreshadow query",
			"%d more overdue foreshadowing items are left out (only the %d longest overdue are kept); see novel-foreshadow query for all",
			dropped, foreshadow.MaxOverdueTasks)
	}
	named, err := b.plannedForeshadowing()
	if err != nil {
		return err
	}
	items = foreshadow.WithPlan(items, named, global, plan)
	b.in.Set("foreshadowing_tasks", items)
	if reminders {
		b.foreshadowReminders(global)
	}
	return nil
}

// plannedForeshadowing is every F-id the chapter's outline block
// (Foreshadowing line) or contract names, with the action named there
// (SPEC §24); the block's line wins over the contract for the same id.
func (b *builder) plannedForeshadowing() ([]foreshadow.Named, error) {
	if b.blk == nil {
		return nil, nil // amend and backfill read a committed chapter, not its plan
	}
	text := b.blk.Keys["Foreshadowing"]
	if b.contract != nil {
		ct, err := b.root.ReadText(b.contract.Rel)
		if err != nil {
			return nil, err
		}
		text += "\n" + ct
	}
	return foreshadow.NamedInPlan(text), nil
}

// styleInline adds the blacklist (the full effective word list for the
// writer and refiner, SPEC §19: the file's update_log never reaches a
// model) and the active drift directives; profile adds the style profile
// and drift files.
func (b *builder) styleInline(profile bool) error {
	bl, err := b.blacklist()
	if err != nil {
		return err
	}
	if bl != nil {
		words := bl.Words
		if words == nil {
			words = []string{}
		}
		b.in.Set(keyBlacklistWords, words)
	}
	dirs, active, err := loadDrift(b.root)
	if err != nil {
		return err
	}
	if active {
		if dirs == nil {
			dirs = []string{}
		}
		b.in.Set("style_drift_directives", dirs)
	}
	if profile {
		b.pathIf("style_profile", layout.StyleProfile)
		if active {
			b.pathIf("style_drift", layout.StyleDrift)
		}
	}
	return nil
}

// platformInline gives the writer and the refiner the word-count profile
// the lint holds their text to (SPEC §20), once the project chose a
// platform or the author named a length (settings words_per_chapter or
// the brief's 每章字数, SPEC §24); without either, short chapters are only
// warned about and the prompt's default applies.
func (b *builder) platformInline() error {
	p, err := platform.Load(b.root, b.set.Platform, b.set.WordsPerChapter)
	if err != nil {
		return err
	}
	if p.Chosen || p.AuthorWords > 0 {
		b.in.Set("platform_profile", p)
	}
	return nil
}

// writer is chapter-writer: draft mode, or revision mode while the chapter
// is being revised (it then reads the archived round r{K-1}).
func (b *builder) writer() error {
	revising := b.cp.Stage == checkpoint.Revising && b.cp.Inflight == b.c
	mode := stepid.ModeDraft
	if revising {
		mode = stepid.ModeRevision
		// A revise whose fixes all point at passages of the draft is a
		// targeted fix: the writer answers replacements (SPEC §24).
		if b.fixModeEligible(b.cp.RevisionCount - 1) {
			mode = stepid.ModeFix
		}
	}
	b.agent(mode)
	b.outlineInline()
	b.storylineInline()
	if th := b.transitionHint(); th != nil {
		b.in.Set("transition_hint", th)
	}
	if err := b.hardRules(); err != nil {
		return err
	}
	if err := b.canonChanges(); err != nil {
		return err
	}
	if err := b.entityMap(); err != nil {
		return err
	}
	if err := b.foreshadowing(true); err != nil {
		return err
	}
	if err := b.styleInline(false); err != nil {
		return err
	}
	b.in.Set("quote_style", b.set.QuoteStyle)
	if err := b.platformInline(); err != nil {
		return err
	}
	if err := b.previousChapter(); err != nil {
		return err
	}
	if err := b.volumeCast(); err != nil {
		return err
	}
	if err := b.stateSlice("", false); err != nil {
		return err
	}
	// Where the clock stood: the writer continues from it (SPEC §25).
	if err := b.storyTime(false); err != nil {
		return err
	}
	if err := b.continuityNotes(); err != nil {
		return err
	}
	if err := b.styleSamples(); err != nil {
		return err
	}
	// The writer's outline ends at its own chapter: a writer shown the
	// next chapters spends them (SPEC §19, §24).
	b.outlineWindows(WriterOutlineBack, false)
	b.pathIf("project_brief", layout.Brief)
	if b.contract != nil {
		b.ps.Set("chapter_contract", b.contract.Rel)
	}
	b.pathIf("world_rules", layout.WorldRules)
	b.pathIf("style_profile", layout.StyleProfile)
	b.storylinePaths()
	b.pathsIf("recent_summaries", b.recentSummaries())
	slugs, err := b.characterPaths(false)
	if err != nil {
		return err
	}
	if err := b.profiles(slugs); err != nil {
		return err
	}
	if revising {
		if err := b.revisionContext(); err != nil {
			return err
		}
	}
	if err := b.recall(); err != nil {
		return err
	}
	b.output(layout.StagingChapter(b.c), true, ViaFile)
	return nil
}

// revisionContext adds the gate's fixes and the previous draft and eval
// from staging/revisions/chapter-NNN/r{K-1}/.
func (b *builder) revisionContext() error {
	k := b.cp.RevisionCount - 1
	if k < 0 {
		return errs.Newf(errs.Checkpoint, "第 %d 章处于 revising，但 revision_count 为 0，找不到上一轮的归档",
			"chapter %d is revising but revision_count is 0, so there is no archived round", b.c).
			With("file", layout.Checkpoint).
			Hint("重新运行 novel-gate decide --apply，或用 novel-step abandon 放弃本章", "re-run novel-gate decide --apply, or abandon the chapter with novel-step abandon")
	}
	gateRel := gate.ArchivePath(b.c, k, layout.StagingGate(b.c))
	fixes := []any{}
	high := []any{}
	var failed any = []any{}
	if b.has(gateRel) {
		data, err := b.root.ReadFile(gateRel)
		if err != nil {
			return err
		}
		g, err := gate.ParseGateFile(data, gateRel, b.c)
		if err != nil {
			return err
		}
		for _, f := range g.RequiredFixes {
			fixes = append(fixes, f)
		}
		for _, v := range g.Violations.High {
			high = append(high, v)
		}
		if len(g.FailedDimensions) > 0 {
			failed = g.FailedDimensions
		}
		b.ps.Set("previous_gate", gateRel)
	} else {
		b.warn("上一轮归档中没有门控文件 %s，修订指令包不含 required_fixes", "the archived round has no gate file %s; the revision packet has no required_fixes", gateRel)
	}
	b.in.Set("required_fixes", fixes)
	b.in.Set("high_confidence_violations", high)
	b.in.Set("failed_dimensions", failed)
	if !b.pathIf("chapter_draft", gate.ArchivePath(b.c, k, layout.StagingChapter(b.c))) {
		b.warn("上一轮归档中没有草稿 %s", "the archived round has no draft %s", gate.ArchivePath(b.c, k, layout.StagingChapter(b.c)))
	}
	b.pathIf("previous_eval", gate.ArchivePath(b.c, k, layout.StagingEval(b.c)))
	b.pathIf("previous_eval_secondary", gate.ArchivePath(b.c, k, layout.StagingEvalSecondary(b.c)))
	b.pathIf("previous_logic_review", gate.ArchivePath(b.c, k, layout.StagingLogicReview(b.c)))
	return nil
}

// summarizer extracts summary, delta, crossref and memory from the draft.
func (b *builder) summarizer() error {
	b.agent(stepid.ModeSummarize)
	sid := b.blk.StorylineID
	b.in.Set("storyline_id", sid)
	b.in.Set("chapter_outline_block", b.blk.Text)
	if err := b.entityMap(); err != nil {
		return err
	}
	if err := b.foreshadowing(false); err != nil {
		return err
	}
	draft := layout.StagingChapter(b.c)
	text := ""
	if b.has(draft) {
		var err error
		text, err = products.ChapterText(b.root, draft)
		if err != nil {
			return err
		}
		hints, found, bad := DraftHints(text)
		switch {
		case bad:
			b.warn("草稿 %s 末尾的 hints 代码块无法解析为 {\"hints\":[…]}，已忽略", "the hints block at the end of %s is not {\"hints\":[…]}; ignored", draft)
		case found:
			b.in.Set("hints", hints)
		}
		b.ps.Set("chapter_draft", draft)
	} else {
		b.warn("草稿 %s 尚不存在", "the draft %s does not exist yet", draft)
	}
	if err := b.stateSlice(text, true); err != nil {
		return err
	}
	b.pathIf("storyline_memory", layout.Memory(sid))
	b.output(layout.StagingSummary(b.c), true, ViaFile)
	// The delta's fields, unknown_entities among them: the delta is where
	// the commit reads unregistered names from (SPEC §24).
	b.in.Set("delta_fields", []string{"chapter", "base_state_version", "storyline_id", "ops", "unknown_entities"})
	// A foreshadow op quotes its evidence verbatim (SPEC §25): validate
	// refuses it otherwise, and recall shows the quote at the payoff.
	b.in.Set("foreshadow_op_fields", []string{"op", "path", "value", "detail", "evidence", "description"})
	b.output(layout.StagingDelta(b.c), true, ViaFile)
	b.output(layout.StagingCrossref(b.c), true, ViaFile)
	b.output(layout.StagingMemory(sid), true, ViaFile)
	return nil
}

// refiner is style-refiner, refine or polish (polish adds the gate's
// failed dimensions).
func (b *builder) refiner() error {
	mode := stepid.ModeRefine
	if b.st.Stage == stepid.Polish {
		mode = stepid.ModePolish
	}
	b.agent(mode)
	chapter := layout.StagingChapter(b.c)
	b.ps.Set("chapter_draft", chapter)
	if !b.has(chapter) {
		b.warn("待润色的正文 %s 尚不存在", "the chapter to refine, %s, does not exist yet", chapter)
	}
	if err := b.styleInline(true); err != nil {
		return err
	}
	b.in.Set("quote_style", b.set.QuoteStyle)
	if err := b.platformInline(); err != nil {
		return err
	}
	if err := b.styleSamples(); err != nil {
		return err
	}
	if mode == stepid.ModePolish {
		g, err := gate.LoadGateFile(b.root, b.c)
		if err != nil {
			return err
		}
		var failed, fixes any = []any{}, []any{}
		if g == nil {
			b.warn("缺少门控文件 %s，润色指令包不含 failed_dimensions", "missing gate file %s; the polish packet has no failed_dimensions", layout.StagingGate(b.c))
		} else {
			if len(g.FailedDimensions) > 0 {
				failed = g.FailedDimensions
			}
			if len(g.RequiredFixes) > 0 {
				fixes = g.RequiredFixes
			}
		}
		b.in.Set("failed_dimensions", failed)
		// What the polish must act on (SPEC §24): the judges' fixes and
		// the lint warnings the gate recorded.
		b.in.Set("required_fixes", fixes)
	}
	b.output(chapter, true, ViaFile)
	return nil
}

// SecondaryJudgeFocus is the second judge's own instruction, inline in its
// packet so its request differs from the primary's in substance.
const SecondaryJudgeFocus = "你是第二评审，看不到第一评审的分数。先逐条核对合同（l1 世界规则、l2 人物合同、l3 情节目标与伏笔、ls 故事线约束）" +
	"有没有被违背，再查连续性错误：与上一章结尾接不上、已死或不在场的人物出场说话、状态（伤势、位置、物品）前后矛盾、视角越界。" +
	"找到的每一处都写进 contract_verification，并在相应维度扣分；确认没有问题之后再按锚点给其余维度打分。"

// judge is quality-judge, primary or secondary (key chapters only).
func (b *builder) judge() error {
	key, err := b.keyChapter()
	if err != nil {
		return err
	}
	secondary := b.opt.Role == stepid.ModeSecondary
	if secondary && !key {
		return errs.Newf(errs.Usage, "第 %d 章不是关键章，不需要第二评审（--role secondary）",
			"chapter %d is not a key chapter; it has no second judge (--role secondary)", b.c).
			Hint("关键章是卷首、卷末或汇流事件内的章节；普通章节去掉 --role", "key chapters are a volume's first and last chapters and those inside convergence events; drop --role")
	}
	if secondary {
		b.agent(stepid.ModeSecondary)
		b.p.Agent.ModelHint = "strong"
	} else {
		b.agent(stepid.ModePrimary)
	}
	b.in.Set("chapter_outline_block", b.blk.Text)
	b.in.Set("storyline_id", b.blk.StorylineID)
	if secondary {
		// The second judge is an independent check, not the first asked
		// twice (SPEC §24): it never sees the primary's scores and starts
		// where a lenient judge looks last.
		b.in.Set("judge_focus", SecondaryJudgeFocus)
	}
	if err := b.hardRules(); err != nil {
		return err
	}
	if err := b.canonChanges(); err != nil {
		return err
	}
	b.in.Set("key_chapter", key)
	b.in.Set("dual_judge", key)
	b.p.KeyChapter = &key
	// The rubric the judge prompt describes; the executor stamps it into
	// the eval so the gate knows it may recompute the overall (SPEC §18).
	b.in.Set("rubric_version", eval.RubricVersion)
	// The weights the eval must score (every positive one), checked by
	// validate and the executor (SPEC §24).
	b.in.Set("rubric", b.set.Weights())
	chapter := layout.StagingChapter(b.c)
	if err := b.judgedText(chapter); err != nil {
		return err
	}
	cont, err := loadContinuity(b.root)
	if err != nil {
		return err
	}
	if cont != nil {
		b.in.Set("continuity_report_summary", cont)
	}
	if err := b.storyTime(true); err != nil {
		return err
	}
	if err := b.continuityNotes(); err != nil {
		return err
	}
	b.ps.Set("chapter_draft", chapter)
	b.pathIf("crossref", layout.StagingCrossref(b.c))
	if b.contract != nil {
		b.ps.Set("chapter_contract", b.contract.Rel)
	}
	b.pathIf("world_rules", layout.WorldRules)
	if _, err := b.characterPaths(true); err != nil {
		return err
	}
	b.pathIf("storyline_spec", layout.StorylineSpec)
	b.pathsIf("recent_summaries", b.recentSummaries())
	b.pathIf("style_profile", layout.StyleProfile)
	if err := b.styleSamples(); err != nil {
		return err
	}
	if err := b.previousTail(); err != nil {
		return err
	}
	b.outlineWindows(ReviewOutlineBack, true)
	if err := b.recall(); err != nil {
		return err
	}
	out := layout.StagingEval(b.c)
	if secondary {
		out = layout.StagingEvalSecondary(b.c)
	}
	b.output(out, true, ViaStdout)
	return nil
}

// judgedText sets what the judge packet derives from the chapter it
// judges: the blacklist and lint findings, the rules in play and the
// cast's knows.
func (b *builder) judgedText(chapter string) error {
	bl, err := b.blacklist()
	if err != nil {
		return err
	}
	if b.has(chapter) {
		text, err := products.ChapterText(b.root, chapter)
		if err != nil {
			return err
		}
		var words []string
		if bl != nil {
			words = bl.Words
		}
		b.in.Set("blacklist_lint", textmeasure.CountBlacklist(words, text, textmeasure.WordCount(text)))
		// The judge reads the deterministic findings instead of guessing them.
		cfg, err := lint.NewConfig(b.root, b.set, words)
		if err != nil {
			return err
		}
		chars, err := b.characters()
		if err != nil {
			return err
		}
		if cfg.Terms, err = lint.LoadTermsOf(b.root, chars); err != nil {
			return err
		}
		prev, err := lint.PreviousChapter(b.root, b.c)
		if err != nil {
			return err
		}
		b.in.Set("lint", lint.Run(lint.Input{Chapter: b.c, File: chapter, Stage: lint.StageRefine, Text: text, Previous: prev}, cfg))
		if err := b.rulesInPlay(text); err != nil {
			return err
		}
		return b.castKnows(text)
	}
	b.warn("待评审的正文 %s 尚不存在，无法计算 blacklist_lint", "the chapter to judge, %s, does not exist yet; no blacklist_lint", chapter)
	return b.rulesInPlay("")
}

// logicReviewer checks the chapter's logic against outline, contract,
// recent summaries, state, world rules and the cast's contracts.
func (b *builder) logicReviewer() error {
	b.agent(stepid.ModeReview)
	if b.set.LogicReviewPolicy != settings.PolicyBlocking {
		b.warn("logic_review_policy 为 %s：逻辑审查报告不会阻塞门控", "logic_review_policy is %s: the logic review report does not block the gate", b.set.LogicReviewPolicy)
	}
	b.in.Set("chapter_outline_block", b.blk.Text)
	b.in.Set("storyline_id", b.blk.StorylineID)
	b.ps.Set("chapter_draft", layout.StagingChapter(b.c))
	b.outlineWindows(ReviewOutlineBack, true)
	if b.contract != nil {
		b.ps.Set("chapter_contract", b.contract.Rel)
	}
	b.pathsIf("recent_summaries", b.recentSummaries())
	// Its prompt checks abilities against the contracts and events against
	// the hard rules (SPEC §24 "every input the prompts promise").
	b.pathIf("world_rules", layout.WorldRules)
	text, err := b.stagingText()
	if err != nil {
		return err
	}
	if err := b.rulesInPlay(text); err != nil {
		return err
	}
	if err := b.storyTime(true); err != nil {
		return err
	}
	if _, err := b.characterPaths(false); err != nil {
		return err
	}
	if err := b.previousTail(); err != nil {
		return err
	}
	if err := b.stateSlice("", false); err != nil {
		return err
	}
	b.output(layout.StagingLogicReview(b.c), true, ViaStdout)
	return nil
}

// gate is the deterministic gate decision.
func (b *builder) gate() error {
	key, err := b.keyChapter()
	if err != nil {
		return err
	}
	n := itoa(b.c)
	b.p.Agent = Agent{Name: "novel-gate", Kind: KindDeterministic, Mode: "decide"}
	b.p.Command = []string{"novel-gate", "decide", "--chapter", n, "--apply"}
	b.p.Next = []string{"novel-step next"}
	b.in.Set("key_chapter", key)
	b.p.KeyChapter = &key
	b.in.Set("logic_review_policy", b.set.LogicReviewPolicy)
	b.pathIf("eval", layout.StagingEval(b.c))
	if key {
		b.pathIf("eval_secondary", layout.StagingEvalSecondary(b.c))
	}
	if b.set.LogicReviewPolicy == settings.PolicyBlocking {
		b.pathIf("logic_review", layout.StagingLogicReview(b.c))
	}
	b.output(layout.StagingGate(b.c), true, ViaFile)
	return nil
}

// commit is the deterministic chapter commit.
func (b *builder) commit() error {
	n := itoa(b.c)
	sid := b.blk.StorylineID
	b.p.Agent = Agent{Name: "novel-commit", Kind: KindDeterministic, Mode: stepid.Commit}
	b.p.Command = []string{"novel-commit", "--chapter", n}
	b.p.Next = []string{"novel-step next"}
	b.in.Set("storyline_id", sid)
	b.pathIf("chapter_draft", layout.StagingChapter(b.c))
	b.pathIf("summary", layout.StagingSummary(b.c))
	b.pathIf("delta", layout.StagingDelta(b.c))
	b.pathIf("crossref", layout.StagingCrossref(b.c))
	b.pathIf("storyline_memory", layout.StagingMemory(sid))
	b.pathIf("eval", layout.StagingEval(b.c))
	b.pathIf("eval_secondary", layout.StagingEvalSecondary(b.c))
	b.pathIf("gate", layout.StagingGate(b.c))
	for _, p := range []string{layout.Chapter(b.c), layout.Summary(b.c), layout.Eval(b.c), layout.Crossref(b.c),
		layout.Memory(sid), layout.CurrentState, layout.Changelog, layout.ChapterLog(b.c)} {
		b.output(p, true, ViaFile)
	}
	return nil
}
