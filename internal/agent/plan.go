package agent

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
)

// planBundle is plot-architect's one JSON answer: the whole staged volume
// plan (SPEC §6.1).
type planBundle struct {
	Outline       *string           `json:"outline"`
	Schedule      map[string]any    `json:"storyline_schedule"`
	Foreshadowing json.RawMessage   `json:"foreshadowing"`
	Contracts     []json.RawMessage `json:"chapter_contracts"`
	// NewCharacters are characters the contracts need that the project
	// does not have yet: {"characters/active/{slug}.json|md": content}.
	NewCharacters map[string]json.RawMessage `json:"new_characters"`
}

// planDir is the staging directory the packet declares for the plan
// (the directory of its outline output), else the layout's.
func planDir(p *Packet) string {
	if o, ok := p.Output(ViaFile, func(s string) bool { return strings.HasSuffix(s, "/"+layout.VolumeOutlineFile) }); ok {
		return strings.TrimSuffix(o.Path, "/"+layout.VolumeOutlineFile)
	}
	return layout.StagingVolumeDir(p.Volume)
}

// parsePlan splits the planner's bundle into outline.md,
// storyline-schedule.json, foreshadowing.json and one
// chapter-contracts/chapter-NNN.json per contract. Only the shape is
// checked here; `novel-commit volume` validates the plan as a whole.
func parsePlan(p *Packet, answer []byte, source string) (*Result, error) {
	var b planBundle
	if err := jsonio.Decode(answer, source, &b); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	fs := bytes.TrimSpace(b.Foreshadowing)
	switch {
	case b.Outline == nil || strings.TrimSpace(*b.Outline) == "":
		return nil, answerErr(p, source, "缺少非空的 outline（Markdown 卷大纲）", "lacks a non-empty outline (the Markdown volume outline)")
	case b.Schedule == nil:
		return nil, answerErr(p, source, "缺少 storyline_schedule 对象", "lacks the storyline_schedule object")
	case len(fs) == 0 || (fs[0] != '{' && fs[0] != '['):
		return nil, answerErr(p, source, "缺少 foreshadowing（对象 {\"foreshadowing\":[…]} 或数组）", "lacks foreshadowing (an object {\"foreshadowing\":[…]} or a list)")
	}
	dir := planDir(p)
	schedule, err := jsonio.Marshal(b.Schedule)
	if err != nil {
		return nil, answerErr(p, source, "的 storyline_schedule 无法编码", "has a storyline_schedule that cannot be encoded")
	}
	fsv, err := decodeNumbers(fs)
	if err != nil {
		return nil, answerErr(p, source, "的 foreshadowing 不是有效的 JSON", "has foreshadowing that is not valid JSON")
	}
	foreshadowing, err := jsonio.Marshal(fsv)
	if err != nil {
		return nil, answerErr(p, source, "的 foreshadowing 无法编码", "has foreshadowing that cannot be encoded")
	}
	files := []File{
		{Path: dir + "/" + layout.VolumeOutlineFile, Data: text(*b.Outline)},
		{Path: dir + "/" + layout.VolumeScheduleFile, Data: schedule},
		{Path: dir + "/" + layout.VolumeForeshadowFile, Data: foreshadowing},
	}
	seen := map[int]bool{}
	for i, raw := range b.Contracts {
		c, data, err := decodeContract(p, source, i, raw)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, answerErr(p, source, "的 chapter_contracts 中第 "+strconv.Itoa(c)+" 章出现了两次", "has two chapter_contracts for chapter "+strconv.Itoa(c)).
				With("chapter", c)
		}
		seen[c] = true
		files = append(files, File{Path: dir + "/" + layout.VolumeContractsDir + "/" + layout.ContractFile(c), Data: data})
	}
	chars, err := newCharacterFiles(p, source, dir, b.NewCharacters)
	if err != nil {
		return nil, err
	}
	return &Result{Files: append(files, chars...)}, nil
}

// newCharacterFiles stages a planner's new_characters (the outline step's
// or a contracts batch's, SPEC §25) under dir/characters/, where the
// volume commit validates them with the rest of the plan.
func newCharacterFiles(p *Packet, source, dir string, chars map[string]json.RawMessage) ([]File, error) {
	names := make([]string, 0, len(chars))
	for f := range chars {
		names = append(names, f)
	}
	sort.Strings(names)
	var files []File
	for _, f := range names {
		if !setupAllowed(CharacterWeaver, f) {
			return nil, schemaErr(answerErr(p, source, "的 new_characters 中有不允许的路径 "+f+"（只能是 characters/active/{slug}.json 或 .md）",
				"has a new_characters path it may not write: "+f+" (only characters/active/{slug}.json or .md)").With("path", f))
		}
		data, err := setupContent(f, chars[f])
		if err != nil {
			return nil, answerErr(p, source, "的 new_characters 中 "+f+" 的内容"+err.Error(), "has new_characters content for "+f+" that "+err.Error()).With("path", f)
		}
		files = append(files, File{Path: dir + "/characters/" + path.Base(f), Data: data})
	}
	return files, nil
}

// decodeNumbers decodes JSON keeping numbers exactly as written.
func decodeNumbers(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

// decodeContract reads chapter_contracts[i] of a planner's answer: an
// object with an integer chapter ≥ 1, re-encoded canonically.
func decodeContract(p *Packet, source string, i int, raw json.RawMessage) (int, []byte, error) {
	idx := "chapter_contracts[" + strconv.Itoa(i) + "]"
	v, err := decodeNumbers(raw)
	ct, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return 0, nil, answerErr(p, source, "的 "+idx+" 不是对象", "has "+idx+" that is not an object").With("index", i)
	}
	c, ok := jsonio.Int(ct["chapter"])
	if !ok || c < 1 {
		return 0, nil, answerErr(p, source, "的 "+idx+".chapter 不是 ≥ 1 的整数", "has "+idx+".chapter that is not an integer ≥ 1").With("index", i)
	}
	data, err := jsonio.Marshal(ct)
	if err != nil {
		return 0, nil, answerErr(p, source, "的章节契约无法编码", "has a chapter contract that cannot be encoded")
	}
	return c, data, nil
}
