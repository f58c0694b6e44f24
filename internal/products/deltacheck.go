package products

import (
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
)

// CheckDeltaForCommit refuses at the summarize step what the commit would
// otherwise refuse or silently drop (SPEC §24): a base_state_version that
// is not the state's state_version (E_STATE_VERSION), an op whose shape is
// invalid (E_SCHEMA naming the op index, with the commit's own reason),
// and a foreshadow op on an id that neither foreshadowing/global.json nor
// volume vol's plan knows unless it plants the item with a
// description (no phantom items); every foreshadow op must quote its
// evidence verbatim from the chapter (SPEC §25).
//
// want is the version the delta must be based on: the state's own for a
// chapter in flight (-1 reads it), the packet's base_state_version for an
// amend or backfill, whose delta is based on the state before the chapter.
func CheckDeltaForCommit(root *project.Root, vol int, d *Delta, want int) error {
	return checkDelta(root, vol, d, want, true)
}

// checkDelta is CheckDeltaForCommit; verbatim false checks the evidence
// quotes' length only (ValidatePrior).
func checkDelta(root *project.Root, vol int, d *Delta, want int, verbatim bool) error {
	// E_SCHEMA gets the step's rerun hint from Validate; the version
	// error is named here the same way.
	id := stepid.Chapter(d.Chapter, stepid.Summarize).String()
	v := want
	if v < 0 {
		var err error
		if v, err = stateops.StateVersion(root); err != nil {
			return err
		}
	}
	if d.BaseStateVersion != v {
		return errs.Newf(errs.StateVersion, "%s 的 base_state_version 为 %d，但当前状态 state_version 是 %d，提交时会被拒绝",
			"%s has base_state_version %d but the state is at state_version %d; the commit would refuse it", d.File, d.BaseStateVersion, v).
			With("file", d.File).With("base_state_version", d.BaseStateVersion).With("state_version", v).With("step", id).
			Hint("重新运行 "+id+"（novel instructions "+id+"），让 delta 基于当前状态",
				"rerun "+id+" (novel instructions "+id+") so the delta is based on the current state")
	}
	var known map[string]bool
	clockSet := false
	var texts *eval.QuoteTexts
	var textRel string
	for i, raw := range d.Ops {
		val, err := stateops.Decode(raw)
		if err != nil {
			return (schemaErr(d.File, "的 ops[%d] 不是有效的 JSON", "ops[%d] is not valid JSON", i).With("field", "ops").With("op_index", i))
		}
		op, reason := stateops.Validate(val)
		if reason != "" {
			return (schemaErr(d.File, "的 ops[%d] 无效，提交时会被丢弃：%s", "ops[%d] is invalid and the commit would drop it: %s", i, reason).
				With("field", "ops").With("op_index", i).With("reason", reason))
		}
		if op.Kind == stateops.Set && op.Path == stateops.StoryTimePath {
			clockSet = true
		}
		if op.Kind != stateops.Foreshadow {
			continue
		}
		if known == nil {
			if known, err = foreshadowIDs(root, vol); err != nil {
				return err
			}
		}
		if !known[op.Path] {
			desc, _ := val.(map[string]any)["description"].(string)
			if op.Value != stateops.Planted || strings.TrimSpace(desc) == "" {
				return (schemaErr(d.File,
					"的 ops[%d] 指向未知伏笔 %s（global.json 与卷计划里都没有）：新伏笔只能以 planted 埋设并写明 description",
					"ops[%d] names the unknown foreshadowing item %s (neither in global.json nor in the volume plan): a new item must be planted with a description",
					i, op.Path).With("field", "ops").With("op_index", i).With("id", op.Path))
			}
		}
		if texts == nil {
			if !verbatim {
				t := eval.NewQuoteTexts()
				texts = &t
			} else if texts, textRel, err = summarizedText(root, d.Chapter); err != nil {
				return err
			}
		}
		ev, _ := val.(map[string]any)["evidence"].(string)
		if err := checkEvidence(d.File, i, op.Path, ev, texts, textRel); err != nil {
			return err
		}
	}
	if clockSet {
		return nil
	}
	// Once the book has a story clock, every chapter says where it stands
	// (SPEC §25): a chapter that skips it leaves the next one guessing.
	has, err := stateops.HasStoryTime(root)
	if err != nil || !has {
		return err
	}
	return schemaErr(d.File, "没有设置故事时钟：本项目已有 %s，每章的 delta 都要有一条 {\"op\":\"set\",\"path\":\"%s\",\"value\":{\"day\":N,\"label\":\"…\"}}（时间没有推进也照写当前值）",
		"does not set the story clock: the project has a %s, so every chapter's delta needs {\"op\":\"set\",\"path\":\"%s\",\"value\":{\"day\":N,\"label\":\"…\"}} (the current value again when no time passed)",
		stateops.StoryTimePath, stateops.StoryTimePath).With("field", "ops").With("path", stateops.StoryTimePath)
}

// summarizedText is the chapter the summarizer read: the staging chapter
// while one is in flight, else the committed (amended or imported) one.
// Once the chapter is refined (or judged, or polished) the staging text
// is no longer the one summarized — a later advance re-validates the
// delta — so, as for a judge's quotes after the gate, only the length is
// checked then, and when there is no chapter at all.
func summarizedText(root *project.Root, c int) (*eval.QuoteTexts, string, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, "", err
	}
	if cp.Inflight == c && (cp.Stage == checkpoint.Refined || cp.Stage == checkpoint.Judged || cp.Stage == checkpoint.Polishing) {
		t := eval.NewQuoteTexts()
		return &t, "", nil
	}
	for _, rel := range []string{layout.StagingChapter(c), layout.Chapter(c)} {
		if !root.IsFile(rel) {
			continue
		}
		text, err := ChapterText(root, rel)
		if err != nil {
			return nil, "", err
		}
		t := eval.NewQuoteTexts(text)
		return &t, rel, nil
	}
	t := eval.NewQuoteTexts()
	return &t, "", nil
}

// checkEvidence checks a foreshadow op's evidence (SPEC §25): one sentence
// of the chapter, quoted verbatim within the judge's quote bounds.
func checkEvidence(file string, i int, id, ev string, texts *eval.QuoteTexts, textRel string) error {
	fail := func(zh, en string, args ...any) error {
		return schemaErr(file, "的 ops[%d]（伏笔 %s）"+zh, "ops[%d] (foreshadowing %s)"+en, append([]any{i, id}, args...)...).
			With("field", "ops").With("op_index", i).With("id", id)
	}
	if strings.TrimSpace(ev) == "" {
		return fail("缺少 evidence：摘录正文中体现这一伏笔的一句原文", " has no evidence: quote the sentence of the chapter that shows it")
	}
	n, found := texts.Check(ev)
	if n < eval.QuoteMin || n > eval.QuoteMax {
		return fail("的 evidence「%s」长度为 %d 字，应为 %d–%d 字的原文摘录", ": the evidence 「%s」 is %d characters long; quote %d–%d characters of the chapter",
			eval.Clip(ev), n, eval.QuoteMin, eval.QuoteMax)
	}
	if !found {
		return fail("的 evidence「%s」在正文 %s 中找不到（必须逐字摘录一句原文）", ": the evidence 「%s」 is not in the chapter %s (quote one sentence verbatim)",
			eval.Clip(ev), textRel)
	}
	return nil
}

// foreshadowIDs are the ids of the fact layer and of the current volume's plan.
func foreshadowIDs(root *project.Root, vol int) (map[string]bool, error) {
	ids := map[string]bool{}
	global, err := foreshadow.LoadGlobalLight(root)
	if err != nil {
		return nil, err
	}
	if vol < 1 {
		vol = 1
	}
	plan, err := foreshadow.LoadPlan(root, vol)
	if err != nil {
		return nil, err
	}
	for _, it := range append(global, plan...) {
		ids[it.ID] = true
	}
	return ids, nil
}
