package agent

import (
	"embed"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

//go:embed prompts/*.md
var promptFS embed.FS

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// RenderPrompt builds the chat messages for a packet: the role's system
// prompt, then one user message in the packet's one context order
// (manifest.Assemble and manifest.Render, the same as --embed): the
// read-only DATA blocks static first, then the per-step task header with
// the remaining inline values, and (on a re-ask) the previous answer's
// error.
func RenderPrompt(root *project.Root, p *Packet, feedback error, previous string) ([]Message, error) {
	common, _, err := PromptFile(root, "common")
	if err != nil {
		return nil, err
	}
	role, found, err := PromptFile(root, p.Agent.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.Newf(errs.Agent, "没有代理 %s 的提示词", "no prompt for agent %s", p.Agent.Name).
			With("agent", p.Agent.Name).Hint("在项目中放入 prompts/"+p.Agent.Name+".md，或换用支持该代理的执行器",
			"add prompts/"+p.Agent.Name+".md to the project, or use an executor that supports this agent")
	}
	user, err := RenderUser(root, p)
	if err != nil {
		return nil, err
	}
	system := renderQuotes(strings.TrimSpace(string(common))+"\n\n"+strings.TrimSpace(string(role)), packetQuoteStyle(p))
	msgs := []Message{
		{Role: "system", Content: system},
		{Role: "user", Content: user},
	}
	if feedback != nil {
		msgs = append(msgs,
			Message{Role: "assistant", Content: previous},
			Message{Role: "user", Content: Reask(feedback)})
	}
	return msgs, nil
}

// quoteMarks are the prompt placeholders of each quote style (SPEC §24:
// the writer and refiner prompts render the project's quote_style), so
// a prompt never demands one style while the lint checks the other.
var quoteMarks = map[string]*strings.Replacer{
	settings.QuoteCorner: strings.NewReplacer("{{引号}}", "直角引号「」", "{{内引号}}", "『』", "{{别的引号}}", "中文弯引号（“”‘’）或英文引号",
		"{{开}}", "「", "{{合}}", "」"),
	settings.QuoteCurly: strings.NewReplacer("{{引号}}", "中文弯引号“”", "{{内引号}}", "‘’", "{{别的引号}}", "直角引号（「」『』）或英文引号",
		"{{开}}", "“", "{{合}}", "”"),
}

// renderQuotes fills the quote placeholders for style (corner when the
// packet names none or an unknown one).
func renderQuotes(s, style string) string {
	r, ok := quoteMarks[style]
	if !ok {
		r = quoteMarks[settings.QuoteCorner]
	}
	return r.Replace(s)
}

// packetQuoteStyle is the packet's inline quote_style ("" when absent).
func packetQuoteStyle(p *Packet) string {
	if p.Manifest.Inline == nil {
		return ""
	}
	v, ok := p.Manifest.Inline.Get("quote_style")
	if !ok {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case json.RawMessage:
		var s string
		if json.Unmarshal(x, &s) == nil {
			return s
		}
	}
	return ""
}

// RenderUser is the packet's user message. An --embed packet already
// carries its blocks and header; any other is assembled from the project.
func RenderUser(root *project.Root, p *Packet) (string, error) {
	mv := p.Manifest
	if mv.Inline == nil {
		mv.Inline = &manifest.OMap{}
	}
	if mv.Paths == nil {
		mv.Paths = &manifest.OMap{}
	}
	h := manifest.Header{Step: p.Step, Agent: p.Agent.Name, Mode: p.Agent.Mode, Chapter: p.Chapter, Round: p.RevisionRound}
	if mv.Embedded != nil {
		return manifest.Render(mv.Embedded, h, mv.Inline), nil
	}
	blocks, header, _, err := manifest.Assemble(root, p.Chapter, p.Volume, mv.Inline, mv.Paths, false)
	if err != nil {
		return "", err
	}
	wrapped := make([]string, len(blocks))
	for i, b := range blocks {
		wrapped[i] = b.Wrap()
	}
	return manifest.Render(wrapped, h, header), nil
}

// PromptFile is the prompt of name (an agent, or "common"): the project's
// prompts/{name}.md when it has one (it replaces the built-in, SPEC §18),
// else the built-in prompts/{name}.md. found is false when neither exists.
func PromptFile(root *project.Root, name string) ([]byte, bool, error) {
	rel := "prompts/" + name + ".md"
	if root == nil {
		data, err := promptFS.ReadFile(rel)
		return data, err == nil, nil
	}
	// A project prompt that resolves outside the project is refused, not
	// replaced by the built-in one.
	ok, err := root.Optional(rel)
	if err != nil {
		return nil, false, err
	}
	if ok {
		data, err := root.ReadFile(rel)
		if err != nil {
			return nil, false, err
		}
		return jsonio.StripBOM(data), true, nil
	}
	data, err := promptFS.ReadFile(rel)
	return data, err == nil, nil
}

// DumpPrompts writes every built-in prompt into dir (which must exist) as
// {name}.md, the starting point for a project's prompts/ overrides.
func DumpPrompts(dir string) ([]string, error) {
	entries, err := fs.ReadDir(promptFS, "prompts")
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, errs.Newf(errs.IO, "目录 %s 不存在", "directory %s does not exist", dir).With("dir", dir).
			Hint("先创建该目录（如 mkdir -p "+dir+"）", "create it first (e.g. mkdir -p "+dir+")")
	}
	var written []string
	for _, e := range entries {
		data, err := promptFS.ReadFile("prompts/" + e.Name())
		if err != nil {
			return nil, err
		}
		out := filepath.Join(dir, e.Name())
		if err := jsonio.WriteFile(out, data); err != nil {
			return nil, err
		}
		written = append(written, out)
	}
	return written, nil
}
