package products

import (
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
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
// description (no phantom items).
//
// want is the version the delta must be based on: the state's own for a
// chapter in flight (-1 reads it), the packet's base_state_version for an
// amend or backfill, whose delta is based on the state before the chapter.
func CheckDeltaForCommit(root *project.Root, vol int, d *Delta, want int) error {
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
		if known[op.Path] {
			continue
		}
		desc, _ := val.(map[string]any)["description"].(string)
		if op.Value != stateops.Planted || strings.TrimSpace(desc) == "" {
			return (schemaErr(d.File,
				"的 ops[%d] 指向未知伏笔 %s（global.json 与卷计划里都没有）：新伏笔只能以 planted 埋设并写明 description",
				"ops[%d] names the unknown foreshadowing item %s (neither in global.json nor in the volume plan): a new item must be planted with a description",
				i, op.Path).With("field", "ops").With("op_index", i).With("id", op.Path))
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
