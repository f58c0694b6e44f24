package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/setupstep"
	"github.com/novelsuite/novel/internal/stepid"
)

// Setup agents (SPEC §17).
const (
	WorldBuilder    = "world-builder"
	CharacterWeaver = "character-weaver"
	StyleAnalyzer   = "style-analyzer"
)

// setupAllowed reports whether a setup agent may write the final path f
// (the paths its prompt names; everything else is refused).
func setupAllowed(agentName, f string) bool {
	dir, base := path.Split(f)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch agentName {
	case WorldBuilder:
		return f == layout.WorldRules || f == setupstep.Storylines || f == setupstep.StoryTime ||
			(dir == setupstep.WorldDir+"/" && path.Ext(base) == ".md" && project.IsSlug(stem))
	case CharacterWeaver:
		return dir == layout.CharactersActive+"/" && (path.Ext(base) == ".md" || path.Ext(base) == ".json") && project.IsSlug(stem)
	case StyleAnalyzer:
		return f == layout.StyleProfile || f == setupstep.StyleSamples
	case stepid.PlotArchitect: // setup:book
		return f == bookplan.File || f == bookplan.Doc
	}
	return false
}

// parseSetupFiles turns a setup agent's {"files":{path: content}} answer
// into staged files under staging/setup/, mirroring the final paths:
// Markdown values are strings, JSON values objects (a string holding a
// JSON object is accepted and decoded). Only the shape is checked here;
// `novel validate setup:X` checks the content.
func parseSetupFiles(p *Packet, answer []byte, source string) (*Result, error) {
	var b struct {
		Files map[string]json.RawMessage `json:"files"`
	}
	if err := jsonio.Decode(answer, source, &b); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	if len(b.Files) == 0 {
		return nil, answerErr(p, source, "缺少非空的 files 对象（{\"files\":{路径: 内容}}）", "lacks a non-empty files object ({\"files\":{path: content}})")
	}
	names := make([]string, 0, len(b.Files))
	for f := range b.Files {
		names = append(names, f)
	}
	sort.Strings(names)
	res := &Result{}
	for _, f := range names {
		if !setupAllowed(p.Agent.Name, f) {
			return nil, schemaErr(answerErr(p, source, "写了不允许的路径 "+f+"（只能写提示词列出的文件，文件名须为 slug）",
				"writes a path it may not write: "+f+" (only the files its prompt lists, slug file names)").With("path", f))
		}
		data, err := setupContent(f, b.Files[f])
		if err != nil {
			return nil, answerErr(p, source, "中 "+f+" 的内容"+err.Error(), "has content for "+f+" that "+err.Error()).With("path", f)
		}
		res.Files = append(res.Files, File{Path: setupstep.StagedPath(f), Data: data})
	}
	return res, nil
}

type shapeErr string

func (e shapeErr) Error() string { return string(e) }

// setupContent is the file content of one value: Markdown from a
// non-empty string, JSON from an object (canonical encoding, numbers as
// written).
func setupContent(f string, raw json.RawMessage) ([]byte, error) {
	if strings.HasSuffix(f, ".md") {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || strings.TrimSpace(s) == "" {
			return nil, shapeErr("必须是非空字符串 / must be a non-empty string")
		}
		return text(s), nil
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err == nil {
			trimmed = []byte(strings.TrimSpace(s))
		}
	}
	v, err := decodeNumbers(trimmed)
	if _, isObj := v.(map[string]any); err != nil || !isObj {
		return nil, shapeErr("必须是 JSON 对象 / must be a JSON object")
	}
	return jsonio.Marshal(v)
}

// liveSetup parses a live model's setup answer and validates its content
// as `novel validate setup:X` will (SPEC §17), so a bad answer (duplicate
// rule ids, no protagonist, …) is asked again with the validation error
// as feedback. The files are checked in a scratch copy of staging/setup/
// (with the committed cast, which the book plan's arcs must name);
// nothing is written to the project.
func liveSetup(root *project.Root, p *Packet, answer []byte, source string) (*Result, error) {
	res, err := ParseAnswer(p, answer, source)
	if err != nil {
		return nil, err
	}
	stage := strings.TrimPrefix(p.Step, "setup:")
	dir, err := os.MkdirTemp("", "novel-setup-check-")
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法创建临时目录：%v", "cannot create a temporary directory: %v", err)
	}
	defer os.RemoveAll(dir)
	scratch, err := project.New(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Files {
		if err := scratch.WriteFile(f.Path, f.Data); err != nil {
			return nil, err
		}
	}
	if stage == stepid.SetupBook {
		cast, err := root.List(layout.CharactersActive, ".json", false)
		if err != nil {
			return nil, err
		}
		for _, f := range cast {
			data, err := root.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := scratch.WriteFile(f, data); err != nil {
				return nil, err
			}
		}
	}
	if _, err := setupstep.Validate(scratch, stage); err != nil {
		return nil, invalid(p, source, err)
	}
	return res, nil
}
