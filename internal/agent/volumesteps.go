package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
)

// Batch is the [first,last] chapters of a contracts packet
// (manifest.inline.batch); ok is false for every other packet.
func (p *Packet) Batch() (int, int, bool) {
	if p.Agent.Mode != "contracts" {
		return 0, 0, false
	}
	v, ok := inlineValue(p, "batch")
	if !ok {
		return 0, 0, false
	}
	raw, _ := json.Marshal(v)
	var batch []int
	if json.Unmarshal(raw, &batch) != nil || len(batch) != 2 {
		return 0, 0, false
	}
	return batch[0], batch[1], batch[0] >= 1 && batch[1] >= batch[0]
}

// parseContracts takes one batch answer {"chapter_contracts":[…],
// "new_characters"?:{…}}: every contract must be one the packet asks for,
// and every required one must be there, so a batch is written whole or
// not at all. New characters are staged like the outline step's (SPEC
// §25: a long volume's later chapters may need people its outline names).
func parseContracts(p *Packet, answer []byte, source string) (*Result, error) {
	var b struct {
		Contracts     []json.RawMessage          `json:"chapter_contracts"`
		NewCharacters map[string]json.RawMessage `json:"new_characters"`
	}
	if err := jsonio.Decode(answer, source, &b); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	want := map[string]bool{}
	for _, o := range p.ExpectedOutputs {
		if o.Via == ViaFile {
			want[o.Path] = o.Required
		}
	}
	var files []File
	got := map[string]bool{}
	for i, raw := range b.Contracts {
		c, data, err := decodeContract(p, source, i, raw)
		if err != nil {
			return nil, err
		}
		path := layout.Staged(layout.Contract(p.Volume, c))
		if _, asked := want[path]; !asked {
			return nil, answerErr(p, source, "含有本批次之外的第 "+strconv.Itoa(c)+" 章契约", "has a contract for chapter "+strconv.Itoa(c)+", outside this batch").With("chapter", c)
		}
		if got[path] {
			return nil, answerErr(p, source, "的 chapter_contracts 中第 "+strconv.Itoa(c)+" 章出现了两次", "has two chapter_contracts for chapter "+strconv.Itoa(c)).With("chapter", c)
		}
		got[path] = true
		files = append(files, File{Path: path, Data: data})
	}
	for _, o := range p.ExpectedOutputs {
		if o.Required && !got[o.Path] {
			return nil, answerErr(p, source, "缺少 "+o.Path+" 的章节契约（本批次每章都要有）", "lacks the contract "+o.Path+" (every chapter of the batch needs one)").With("file", o.Path)
		}
	}
	chars, err := newCharacterFiles(p, source, layout.StagingVolumeDir(p.Volume), b.NewCharacters)
	if err != nil {
		return nil, err
	}
	return &Result{Files: append(files, chars...)}, nil
}

// parseVolumeReview takes the review answer {"review": markdown}; a plain
// Markdown answer (a model that ignored JSON mode) is accepted as is.
func parseVolumeReview(p *Packet, answer []byte, source string) (*Result, error) {
	out, ok := p.Output(ViaFile, func(s string) bool { return strings.HasSuffix(s, "/review.md") })
	if !ok {
		return nil, answerErr(p, source, "无处可写：指令包没有 review.md 输出", "has nowhere to go: the packet declares no review.md output")
	}
	text := string(bytes.TrimSpace(answer))
	if strings.HasPrefix(text, "{") {
		var b struct {
			Review *string `json:"review"`
			// BookPlan is an updated book-plan.json (SPEC §25), staged
			// beside review.md; novel-commit volume-review validates it.
			BookPlan json.RawMessage `json:"book_plan"`
		}
		if err := jsonio.Decode(answer, source, &b); err != nil {
			return nil, reportDecodeErr(p, source, err)
		}
		if b.Review == nil {
			return nil, answerErr(p, source, "缺少 review（Markdown 卷末回顾）", "lacks review (the Markdown volume review)")
		}
		text = strings.TrimSpace(*b.Review)
		if text != "" && len(b.BookPlan) > 0 && string(bytes.TrimSpace(b.BookPlan)) != "null" {
			data, err := setupContent(bookplan.File, b.BookPlan)
			if err != nil {
				return nil, answerErr(p, source, "的 book_plan "+err.Error(), "has a book_plan that "+err.Error())
			}
			return &Result{Files: []File{{Path: out.Path, Data: []byte(text + "\n")},
				{Path: strings.TrimSuffix(out.Path, "review.md") + bookplan.File, Data: data}}}, nil
		}
	}
	if text == "" {
		return nil, answerErr(p, source, "的卷末回顾是空的", "has an empty volume review")
	}
	return &Result{Files: []File{{Path: out.Path, Data: []byte(text + "\n")}}}, nil
}
