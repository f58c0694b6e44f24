package manifest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
)

// Contract is the part of an L3 chapter contract the packets use.
type Contract struct {
	Rel              string
	CharacterNames   []string        // preconditions.character_states keys, file order; nil when absent or empty
	StorylineContext any             // json.RawMessage or *OMap
	ConcurrentState  json.RawMessage // storyline_context.concurrent_state (or a top-level one)
	TransitionHint   json.RawMessage
	NextStoryline    string
}

func contractErr(rel, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Contract, "章节契约 "+rel+" "+zh, "chapter contract "+rel+" "+en, args...).With("file", rel).
		Hint("修正章节契约使其与大纲一致（或回到卷规划重新生成）", "fix the chapter contract so it agrees with the outline (or re-plan the volume)")
}

// loadContract reads volumes/vol-VV/chapter-contracts/chapter-NNN.json and
// checks it agrees with the outline. Without a .json, the plugin's
// Markdown contract (chapter-NNN.md) is read instead; no contract at all →
// nil, nil.
func loadContract(root *project.Root, volume, chapter int, storyline string) (*Contract, error) {
	rel := layout.Contract(volume, chapter)
	if !root.Exists(rel) {
		if md := layout.ContractMarkdown(volume, chapter); root.Exists(md) {
			return loadMarkdownContract(root, md, chapter, storyline)
		}
		return nil, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := jsonio.Decode(data, rel, &raw); err != nil {
		if errs.Is(err, errs.Schema) {
			return nil, contractErr(rel, "必须是 JSON 对象", "must be a JSON object")
		}
		return nil, err
	}
	if raw == nil {
		return nil, contractErr(rel, "必须是 JSON 对象", "must be a JSON object")
	}
	ct := &Contract{Rel: rel}

	var ch any
	if json.Unmarshal(raw["chapter"], &ch) != nil || raw["chapter"] == nil {
		return nil, contractErr(rel, "缺少 chapter 字段", "has no chapter field")
	}
	n, ok := jsonio.Int(ch)
	if !ok {
		return nil, contractErr(rel, "的 chapter 必须是整数，实际为 %s", "chapter must be an integer, got %s", string(raw["chapter"]))
	}
	if n != chapter {
		return nil, contractErr(rel, "的 chapter (%d) 与章号 %d 不一致", "chapter (%d) does not match chapter %d", n, chapter).
			With("contract_chapter", n).With("chapter", chapter)
	}
	var sid string
	if json.Unmarshal(raw["storyline_id"], &sid) != nil || sid == "" {
		return nil, contractErr(rel, "缺少字符串 storyline_id", "has no string storyline_id")
	}
	if sid != storyline {
		return nil, contractErr(rel, "的 storyline_id (%s) 与大纲的 Storyline (%s) 不一致",
			"storyline_id (%s) does not match the outline's Storyline (%s)", sid, storyline).
			With("contract_storyline", sid).With("outline_storyline", storyline)
	}
	var objectives []any
	if json.Unmarshal(raw["objectives"], &objectives) != nil {
		return nil, contractErr(rel, "的 objectives 必须是数组", "objectives must be a list")
	}
	required := false
	for _, o := range objectives {
		if m, isObj := o.(map[string]any); isObj && m["required"] == true {
			required = true
		}
	}
	if !required {
		return nil, contractErr(rel, "没有 required:true 的目标（objectives）", "has no objective with required:true")
	}

	if pre := raw["preconditions"]; len(pre) > 0 && !isNull(pre) {
		var p map[string]json.RawMessage
		if json.Unmarshal(pre, &p) != nil {
			return nil, contractErr(rel, "的 preconditions 必须是对象", "preconditions must be an object")
		}
		if cs := p["character_states"]; len(cs) > 0 && !isNull(cs) {
			kvs, err := orderedObject(cs)
			if err != nil {
				return nil, contractErr(rel, "的 preconditions.character_states 必须是对象（键为角色名）", "preconditions.character_states must be an object keyed by display name")
			}
			for _, p := range kvs {
				ct.CharacterNames = append(ct.CharacterNames, p.k)
			}
		}
	}
	if sc := raw["storyline_context"]; len(sc) > 0 && !isNull(sc) {
		ct.StorylineContext = sc
		// concurrent_state is surfaced on its own (dormant lines cut to one
		// line), so the copy inside storyline_context is left out.
		if kvs, err := orderedObject(sc); err == nil {
			m := &OMap{}
			for _, p := range kvs {
				if p.k == "concurrent_state" {
					if cs := p.v.(json.RawMessage); !isNull(cs) {
						ct.ConcurrentState = cs
					}
					continue
				}
				m.Set(p.k, p.v)
			}
			ct.StorylineContext = m
		}
	}
	if cs := raw["concurrent_state"]; len(cs) > 0 && !isNull(cs) {
		ct.ConcurrentState = cs
	}
	if th := raw["transition_hint"]; len(th) > 0 && !isNull(th) {
		ct.TransitionHint = th
		var h map[string]any
		if json.Unmarshal(th, &h) == nil {
			if next, isStr := h["next_storyline"].(string); isStr && next != "" {
				if !project.IsSlug(next) {
					return nil, project.CheckSlug(next, "transition_hint.next_storyline", rel)
				}
				ct.NextStoryline = next
			}
		}
	}
	return ct, nil
}

// loadMarkdownContract reads a plugin Markdown contract (SPEC §22) with
// the JSON contract's checks: its chapter and 故事线 agree with the
// outline, and it has at least one acceptance item (the required
// objectives). The packets pass it by path.
func loadMarkdownContract(root *project.Root, rel string, chapter int, storyline string) (*Contract, error) {
	text, err := root.ReadText(rel)
	if err != nil {
		return nil, err
	}
	md := outline.ParseContract(text)
	if md.Chapter == 0 {
		return nil, contractErr(rel, "缺少章节标题（## 第 %d 章：章名）", "has no chapter heading (## 第 %d 章：title)", chapter)
	}
	if md.Chapter != chapter {
		return nil, contractErr(rel, "的章号 (%d) 与章号 %d 不一致", "chapter (%d) does not match chapter %d", md.Chapter, chapter).
			With("contract_chapter", md.Chapter).With("chapter", chapter)
	}
	if md.StorylineID == "" {
		return nil, contractErr(rel, "缺少故事线（- **故事线**：storyline_id）", "has no storyline line (- **故事线**：storyline_id)")
	}
	if md.StorylineID != storyline {
		return nil, contractErr(rel, "的故事线 (%s) 与大纲的 Storyline (%s) 不一致",
			"storyline (%s) does not match the outline's Storyline (%s)", md.StorylineID, storyline).
			With("contract_storyline", md.StorylineID).With("outline_storyline", storyline)
	}
	if len(md.Acceptance) == 0 {
		return nil, contractErr(rel, "没有验收标准（### 验收标准 下的编号条目），也就没有必须达成的目标",
			"has no acceptance items (numbered items under ### 验收标准), so no required objective")
	}
	return &Contract{Rel: rel, CharacterNames: md.Characters}, nil
}

func isNull(r json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(r), []byte("null")) }

// orderedObject splits a JSON object into its members in file order.
func orderedObject(raw json.RawMessage) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, errs.New(errs.Schema, "不是对象", "not an object")
	}
	var out []kv
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kv{kt.(string), v})
	}
	return out, nil
}

// concurrentState keeps the contract's concurrent_state, reducing dormant
// lines to their first line: a dormant line contributes one line of
// context, never its full state.
func concurrentState(raw json.RawMessage, dormant func(string) bool) any {
	kvs, err := orderedObject(raw)
	if err != nil {
		return raw
	}
	m := &OMap{}
	for _, p := range kvs {
		v := p.v.(json.RawMessage)
		if dormant(p.k) {
			var s string
			if json.Unmarshal(v, &s) == nil {
				first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
				m.Set(p.k, strings.TrimSpace(first))
				continue
			}
		}
		m.Set(p.k, v)
	}
	return m
}
