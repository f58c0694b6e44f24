package products

import (
	"encoding/json"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// ChapterStoryline is the storyline chapter c of volume v belongs to
// (SPEC §3.2): the contract's storyline_id (the JSON contract, else the
// plugin's Markdown one's 故事线), else the outline block's Storyline; source names the file it came from. ok is false when neither
// tells (no contract and no usable outline block): the packets report
// those problems, the delta's storyline is then taken as given.
func ChapterStoryline(root *project.Root, v, c int) (id, source string, ok bool) {
	if v < 1 {
		return "", "", false
	}
	if rel := layout.Contract(v, c); root.IsFile(rel) {
		var ct struct {
			StorylineID string `json:"storyline_id"`
		}
		if data, err := root.ReadFile(rel); err == nil && json.Unmarshal(data, &ct) == nil && project.IsSlug(ct.StorylineID) {
			return ct.StorylineID, rel, true
		}
	} else if rel := layout.ContractMarkdown(v, c); root.IsFile(rel) {
		if text, err := root.ReadText(rel); err == nil {
			if id := outline.ParseContract(text).StorylineID; project.IsSlug(id) {
				return id, rel, true
			}
		}
	}
	o, err := outline.Load(root, v)
	if err != nil {
		return "", "", false
	}
	blk, err := o.Block(c)
	if err != nil {
		return "", "", false
	}
	return blk.StorylineID, o.File, true
}

// CheckDeltaStoryline refuses a delta whose storyline_id is not the
// chapter's storyline with E_CONTRACT: committing it would replace another
// storyline's memory with this chapter's.
func CheckDeltaStoryline(root *project.Root, cp *checkpoint.Checkpoint, d *Delta) error {
	v := 0
	if cp != nil {
		v = cp.CurrentVolume
	}
	want, source, ok := ChapterStoryline(root, v, d.Chapter)
	if !ok || want == d.StorylineID {
		return nil
	}
	st := stepid.Chapter(d.Chapter, stepid.Summarize).String()
	return errs.Newf(errs.Contract, "%s 的 storyline_id 为 %s，但第 %d 章属于故事线 %s（%s）",
		"%s has storyline_id %s, but chapter %d belongs to storyline %s (%s)", d.File, d.StorylineID, d.Chapter, want, source).
		With("file", d.File).With("field", "storyline_id").With("value", d.StorylineID).With("expected", want).
		With("source", source).With("step", st).
		Hint("重新运行 "+st+"（novel instructions "+st+"），或把 delta 的 storyline_id 改为 "+want+" 并把记忆写到 "+layout.StagingMemory(want),
			"rerun "+st+" (novel instructions "+st+"), or set the delta's storyline_id to "+want+" and write the memory to "+layout.StagingMemory(want))
}
