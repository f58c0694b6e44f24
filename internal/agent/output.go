package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Answer formats.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
)

// Format is the answer format an agent produces: Markdown for the chapter
// writers, JSON for the rest.
func Format(agentName string) string {
	switch agentName {
	case stepid.ChapterWriter, stepid.StyleRefiner:
		return FormatMarkdown
	}
	return FormatJSON
}

// File is one output to write.
type File struct {
	Path string
	Data []byte
}

// Result is a parsed, validated answer: the files to write and the JSON to
// print on stdout (nil when the packet has no stdout output).
type Result struct {
	Files  []File
	Stdout []byte
}

// Paths lists the files the result writes.
func (r *Result) Paths() []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.Path
	}
	return out
}

// ParseAnswer turns an agent's raw answer into the outputs the packet
// declares. source names the answer (a recording file, "model answer") in
// errors, which are E_AGENT so a backend can quote them in a re-ask.
func ParseAnswer(p *Packet, answer []byte, source string) (*Result, error) {
	answer = jsonio.StripBOM(answer)
	if !utf8.Valid(answer) {
		return nil, answerErr(p, source, "不是有效的 UTF-8", "is not valid UTF-8")
	}
	switch p.Agent.Name {
	case stepid.ChapterWriter, stepid.StyleRefiner:
		return parseChapter(p, answer, source)
	case stepid.Summarizer:
		return parseBundle(p, answer, source)
	case stepid.QualityJudge, stepid.LogicReviewer:
		return parseReport(p, answer, source)
	case stepid.PlotArchitect:
		if p.IsSetup() {
			return parseSetupFiles(p, answer, source) // setup:book
		}
		switch p.Agent.Mode {
		case "contracts":
			return parseContracts(p, answer, source)
		case "review":
			return parseVolumeReview(p, answer, source)
		}
		return parsePlan(p, answer, source)
	case WorldBuilder, CharacterWeaver, StyleAnalyzer:
		return parseSetupFiles(p, answer, source)
	case stepid.ContinuityAuditor:
		return parseAudit(p, answer, source)
	}
	return nil, errs.Newf(errs.Agent, "执行器不支持代理 %s", "the executor does not support agent %s", p.Agent.Name).
		With("agent", p.Agent.Name).With("packet", p.File).
		Hint("换用支持该代理的执行器（AGENT=…）", "use an executor that supports this agent (AGENT=…)")
}

func answerErr(p *Packet, source, zh, en string) *errs.Error {
	return errs.New(errs.Agent, fmt.Sprintf("%s 的输出（%s）%s", p.Agent.Name, source, zh), fmt.Sprintf("the output of %s (%s) %s", p.Agent.Name, source, en)).
		With("agent", p.Agent.Name).With("mode", p.Agent.Mode).With("source", source).
		Hint("修正该输出后重新运行该步骤", "fix that output and run the step again")
}

func parseChapter(p *Packet, answer []byte, source string) (*Result, error) {
	out, ok := p.Output(ViaFile, nil)
	if !ok {
		return nil, answerErr(p, source, "无处可写：指令包没有 via:file 输出", "has nowhere to go: the packet declares no via:file output")
	}
	if len(bytes.TrimSpace(answer)) == 0 {
		return nil, answerErr(p, source, "是空的", "is empty")
	}
	return &Result{Files: []File{{Path: out.Path, Data: answer}}}, nil
}

// parseReport handles the JSON reports of the read-only agents: printed on
// stdout, or written when the packet asks for a file.
func parseReport(p *Packet, answer []byte, source string) (*Result, error) {
	var v map[string]any
	if err := jsonio.Decode(answer, source, &v); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	if v == nil {
		return nil, answerErr(p, source, "必须是 JSON 对象", "must be a JSON object")
	}
	data, err := jsonio.Marshal(v)
	if err != nil {
		return nil, answerErr(p, source, "无法编码", "cannot be encoded")
	}
	if _, ok := p.Output(ViaStdout, nil); ok {
		return &Result{Stdout: data}, nil
	}
	if out, ok := p.Output(ViaFile, nil); ok {
		return &Result{Files: []File{{Path: out.Path, Data: data}}}, nil
	}
	return nil, answerErr(p, source, "无处可写", "has nowhere to go")
}

func reportDecodeErr(p *Packet, source string, err error) error {
	e := errs.Coerce(err)
	out := answerErr(p, source, "不是有效的 JSON："+e.Message("zh"), "is not valid JSON: "+e.Message("en"))
	for k, v := range e.Details {
		out.With(k, v)
	}
	return out
}

// bundle is the summarizer's one JSON answer (SPEC §11).
type bundle struct {
	Summary         *string          `json:"summary"`
	Delta           map[string]any   `json:"delta"`
	Crossref        map[string]any   `json:"crossref"`
	Memory          *string          `json:"memory"`
	UnknownEntities *json.RawMessage `json:"unknown_entities"`
}

// parseBundle splits the summarizer bundle into the four staging files:
// summary, delta (unknown_entities merged in), crossref and the storyline
// memory under staging/storylines/{delta.storyline_id}/.
func parseBundle(p *Packet, answer []byte, source string) (*Result, error) {
	var b bundle
	if err := jsonio.Decode(answer, source, &b); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	switch {
	case b.Summary == nil || strings.TrimSpace(*b.Summary) == "":
		return nil, answerErr(p, source, "缺少非空的 summary", "lacks a non-empty summary")
	case b.Delta == nil:
		return nil, answerErr(p, source, "缺少 delta 对象", "lacks the delta object")
	case b.Crossref == nil:
		return nil, answerErr(p, source, "缺少 crossref 对象", "lacks the crossref object")
	case b.Memory == nil || strings.TrimSpace(*b.Memory) == "":
		return nil, answerErr(p, source, "缺少非空的 memory", "lacks a non-empty memory")
	}
	id, _ := b.Delta["storyline_id"].(string)
	if !project.IsSlug(id) {
		return nil, schemaErr(answerErr(p, source, "的 delta.storyline_id 不是 slug（它会成为路径的一部分）",
			"has a delta.storyline_id that is not a slug (it becomes part of a path)").With("value", b.Delta["storyline_id"]).With("field", "delta.storyline_id"))
	}
	if n, ok := jsonio.Int(b.Delta["chapter"]); !ok || n != p.Chapter {
		return nil, answerErr(p, source, "的 delta.chapter 与指令包的章节不一致", "has a delta.chapter that differs from the packet's chapter").
			With("want", p.Chapter).With("value", b.Delta["chapter"])
	}
	if b.UnknownEntities != nil && string(bytes.TrimSpace(*b.UnknownEntities)) != "null" {
		var extra []any
		if err := json.Unmarshal(*b.UnknownEntities, &extra); err != nil {
			return nil, answerErr(p, source, "的 unknown_entities 必须是数组", "has unknown_entities that is not an array")
		}
		existing, _ := b.Delta["unknown_entities"].([]any)
		b.Delta["unknown_entities"] = append(existing, extra...)
	}
	delta, err := jsonio.Marshal(b.Delta)
	if err != nil {
		return nil, answerErr(p, source, "的 delta 无法编码", "has a delta that cannot be encoded")
	}
	crossref, err := jsonio.Marshal(b.Crossref)
	if err != nil {
		return nil, answerErr(p, source, "的 crossref 无法编码", "has a crossref that cannot be encoded")
	}
	c := p.Chapter
	return &Result{Files: []File{
		{Path: layout.StagingSummary(c), Data: text(*b.Summary)},
		{Path: layout.StagingDelta(c), Data: delta},
		{Path: layout.StagingCrossref(c), Data: crossref},
		{Path: layout.StagingMemory(id), Data: text(*b.Memory)},
	}}, nil
}

// text ends Markdown taken from a JSON string with one newline.
func text(s string) []byte {
	return []byte(strings.TrimRight(s, "\n") + "\n")
}

// schemaErr turns an answer error into E_SCHEMA: a value that must be a
// slug because it becomes part of a path (SPEC §15).
func schemaErr(e *errs.Error) *errs.Error {
	e.Code = errs.Schema
	e.Exit = errs.DefaultExit(errs.Schema)
	return e
}

// parseAudit checks the continuity-auditor's report against the window the
// packet names (manifest.inline.chapter_range) and writes it, re-encoded,
// to the packet's file output.
// auditRange is the window of an audit packet (manifest.inline.chapter_range).
func auditRange(p *Packet) ([2]int, error) {
	var rng [2]int
	v, ok := inlineValue(p, "chapter_range")
	raw, _ := json.Marshal(v)
	if !ok || json.Unmarshal(raw, &rng) != nil || rng[0] < 1 || rng[1] < rng[0] {
		return rng, packetErr(p.File, "manifest.inline.chapter_range 必须是 [起始章, 结束章]", "manifest.inline.chapter_range must be [from, to]", "manifest.inline.chapter_range")
	}
	return rng, nil
}

func parseAudit(p *Packet, answer []byte, source string) (*Result, error) {
	rng, err := auditRange(p)
	if err != nil {
		return nil, err
	}
	out, ok := p.Output(ViaFile, nil)
	if !ok {
		return nil, answerErr(p, source, "无处可写：指令包没有 via:file 输出", "has nowhere to go: the packet declares no via:file output")
	}
	r, err := audit.ParseReview(answer, source, rng[0], rng[1], "")
	if err != nil {
		e := errs.Coerce(err)
		return nil, answerErr(p, source, "不符合连续性报告的格式："+e.Message("zh"), "does not follow the continuity report format: "+e.Message("en"))
	}
	data, err := jsonio.Marshal(r)
	if err != nil {
		return nil, answerErr(p, source, "无法编码", "cannot be encoded")
	}
	return &Result{Files: []File{{Path: out.Path, Data: data}}}, nil
}
