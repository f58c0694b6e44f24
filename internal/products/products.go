// Package products reads and validates the staging products of a chapter
// (SPEC §3.2): the chapter text, the Summarizer's summary, delta, crossref
// and storyline memory, the judge evals and the logic review report. Every
// reader goes through project.Root, so a product that is a symlink leaving
// the project is E_PATH, and a storyline id that is not a slug never
// becomes part of a path.
package products

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// rerun points a product error at the step that produces the file, so the
// user knows what to do next. The original hint is replaced only for
// missing or malformed products, never for E_PATH/E_IO, and never when
// the check already named the exact command (details.next_command: the
// secondary judge's packet needs --role secondary, which the generic
// rerun line cannot know).
func rerun(err error, st stepid.Step) error {
	e := errs.As(err)
	if e == nil {
		return err
	}
	if _, exact := e.Details["next_command"]; exact {
		e.With("step", st.String())
		return e
	}
	switch e.Code {
	case errs.MissingFile, errs.InvalidJSON, errs.Schema:
		e.Hint("修正该文件，或重新运行 "+st.String()+"（novel instructions "+st.String()+"）",
			"fix the file, or rerun "+st.String()+" (novel instructions "+st.String()+")")
		e.With("step", st.String())
	}
	return e
}

func schemaErr(rel, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, rel+" "+zh, rel+" "+en, args...).With("file", rel)
}

// ChapterText reads a Markdown file as UTF-8 text (BOM stripped). Invalid
// UTF-8 is E_SCHEMA with the line and column of the first bad byte.
func ChapterText(root *project.Root, rel string) (string, error) {
	return root.ReadText(rel)
}

// nonEmptyText reads rel and requires text after trimming whitespace.
func nonEmptyText(root *project.Root, rel string) (string, error) {
	text, err := ChapterText(root, rel)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", schemaErr(rel, "为空（去除空白后没有内容）", "is empty (nothing but whitespace)")
	}
	return text, nil
}

// CheckSummary validates the staging summary: valid UTF-8, not empty.
func CheckSummary(root *project.Root, chapter int) error {
	_, err := nonEmptyText(root, layout.StagingSummary(chapter))
	return err
}

// UnknownEntity is a name the Summarizer could not map to a known entity.
type UnknownEntity struct {
	Name          string `json:"name"`
	Context       string `json:"context"`
	SuggestedType string `json:"suggested_type,omitempty"`
}

// ParseUnknownEntity reads one unknown_entities entry (a delta's, or a
// line of logs/unknown-entities.jsonl): an object whose name is "name",
// or "mention" in the plugin's {mention, context, suggested_type} shape
// (SPEC §22). ok is false when it is not an object with a non-empty name.
func ParseUnknownEntity(raw []byte) (UnknownEntity, bool) {
	var e struct {
		Name          *string `json:"name"`
		Mention       *string `json:"mention"`
		Context       *string `json:"context"`
		SuggestedType *string `json:"suggested_type"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return UnknownEntity{}, false
	}
	var u UnknownEntity
	switch {
	case e.Name != nil && strings.TrimSpace(*e.Name) != "":
		u.Name = *e.Name
	case e.Mention != nil && strings.TrimSpace(*e.Mention) != "":
		u.Name = *e.Mention
	default:
		return UnknownEntity{}, false
	}
	if e.Context != nil {
		u.Context = *e.Context
	}
	if e.SuggestedType != nil {
		u.SuggestedType = *e.SuggestedType
	}
	return u, true
}

// Delta is the Summarizer's state delta for one chapter.
type Delta struct {
	Chapter          int               `json:"chapter"`
	BaseStateVersion int               `json:"base_state_version"`
	StorylineID      string            `json:"storyline_id"`
	Ops              []json.RawMessage `json:"ops"`
	UnknownEntities  []UnknownEntity   `json:"unknown_entities,omitempty"`
	// File is the project-relative path the delta was read from.
	File string `json:"-"`
}

// ReadDelta reads and validates staging/state/chapter-NNN-delta.json.
func ReadDelta(root *project.Root, chapter int) (*Delta, error) {
	rel := layout.StagingDelta(chapter)
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return ParseDelta(data, rel, chapter)
}

// ParseDelta validates delta bytes (rel names the file in errors): an
// object with chapter == C, an integer base_state_version ≥ 0, a slug
// storyline_id, an ops array, and optional unknown_entities objects with a
// non-empty name (or mention). Individual ops are not judged here: the commit drops bad
// ones with a reason (SPEC §8.2).
func ParseDelta(data []byte, rel string, chapter int) (*Delta, error) {
	var raw map[string]json.RawMessage
	if err := decodeObject(data, rel, &raw); err != nil {
		return nil, err
	}
	d := &Delta{File: rel}
	var ok bool
	if d.Chapter, ok = jsonio.RawInt(raw["chapter"]); !ok {
		return nil, schemaErr(rel, "的 chapter 必须是整数", "field chapter must be an integer").With("field", "chapter")
	}
	if d.Chapter != chapter {
		return nil, schemaErr(rel, "的 chapter 为 %d，应为 %d", "has chapter %d, want %d", d.Chapter, chapter).
			With("field", "chapter").With("value", d.Chapter).With("expected", chapter)
	}
	if d.BaseStateVersion, ok = jsonio.RawInt(raw["base_state_version"]); !ok || d.BaseStateVersion < 0 {
		return nil, schemaErr(rel, "的 base_state_version 必须是 ≥ 0 的整数", "field base_state_version must be an integer ≥ 0").
			With("field", "base_state_version")
	}
	sl, present := raw["storyline_id"]
	if !present || json.Unmarshal(sl, &d.StorylineID) != nil {
		return nil, schemaErr(rel, "的 storyline_id 必须是字符串", "field storyline_id must be a string").With("field", "storyline_id")
	}
	if err := project.CheckSlug(d.StorylineID, "storyline_id", rel); err != nil {
		return nil, err
	}
	ops, present := raw["ops"]
	if !present || json.Unmarshal(ops, &d.Ops) != nil || d.Ops == nil {
		return nil, schemaErr(rel, "的 ops 必须是数组", "field ops must be an array").With("field", "ops")
	}
	if ue, present := raw["unknown_entities"]; present && string(ue) != "null" {
		var items []json.RawMessage
		if json.Unmarshal(ue, &items) != nil {
			return nil, schemaErr(rel, "的 unknown_entities 必须是数组", "field unknown_entities must be an array").With("field", "unknown_entities")
		}
		for i, it := range items {
			u, ok := ParseUnknownEntity(it)
			if !ok {
				return nil, schemaErr(rel, "的 unknown_entities[%d] 必须是带非空 name（或 mention）字符串的对象", "field unknown_entities[%d] must be an object with a non-empty string name (or mention)", i).
					With("field", "unknown_entities")
			}
			d.UnknownEntities = append(d.UnknownEntities, u)
		}
	}
	return d, nil
}

// decodeObject decodes data into v and requires a JSON object (not null,
// array or scalar).
func decodeObject(data []byte, rel string, v *map[string]json.RawMessage) error {
	if err := jsonio.Decode(data, rel, v); err != nil {
		if errs.Is(err, errs.Schema) {
			var probe any
			if jsonio.Decode(data, rel, &probe) == nil {
				return schemaErr(rel, "必须是 JSON 对象，实际为 %s", "must be a JSON object, not %s", jsonio.TypeName(probe))
			}
		}
		return err
	}
	if *v == nil {
		return schemaErr(rel, "必须是 JSON 对象，实际为 null", "must be a JSON object, not null")
	}
	return nil
}

// ReadCrossref reads the staging crossref as a JSON object. When lenient
// (the chapter's stage came from a plugin-era checkpoint value, which
// predates the crossref) a missing file reads as {}.
func ReadCrossref(root *project.Root, chapter int, lenient bool) (json.RawMessage, error) {
	rel := layout.StagingCrossref(chapter)
	data, err := root.ReadFile(rel)
	if err != nil {
		if lenient && errs.Is(err, errs.MissingFile) {
			return json.RawMessage("{}"), nil
		}
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := decodeObject(data, rel, &raw); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSpace(data)), nil
}

// CheckMemory validates the storyline memory the Summarizer wrote:
// staging/storylines/{id}/memory.md exists as a file (id must be a slug).
func CheckMemory(root *project.Root, storylineID string) error {
	if err := project.CheckSlug(storylineID, "storyline_id", "storyline memory"); err != nil {
		return err
	}
	_, err := ChapterText(root, layout.StagingMemory(storylineID))
	return err
}
