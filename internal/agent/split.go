package agent

import (
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/stepid"
)

// Split re-asks (SPEC §26): a JSON answer cut at the model's output limit
// cannot be had whole by raising max_tokens (the provider refuses more),
// so the work is cut instead. A summarizer bundle is asked in two parts
// (summary + memory, then delta + crossref) and joined; a contracts batch
// is asked as two half batches and joined. Every part is an ordinary
// request (usage line kind "split"); the joined answer is validated like
// any other.

const (
	splitBundleA = "\n\n【分两次输出】完整答案超过了模型的输出上限。这一次只输出 JSON 对象 {\"summary\": …, \"memory\": …}，不要 delta、crossref；两个字段的要求与上面相同。"
	splitBundleB = "\n\n【分两次输出】完整答案超过了模型的输出上限，summary 与 memory 已经另行取得。这一次只输出 JSON 对象 {\"delta\": …, \"crossref\": …}（如有 unknown_entities 也放在这里），不要 summary、memory；字段要求与上面相同。"
)

// split answers a cut JSON packet in parts; ok is false when the packet
// cannot be split (the caller reports the truncation).
func (o *OpenAI) split(p *Packet, msgs []Message, req *Request) (string, bool, error) {
	switch {
	case p.Agent.Name == stepid.Summarizer:
		out := map[string]any{}
		for _, extra := range []string{splitBundleA, splitBundleB} {
			part, err := o.askPart(p, withSuffix(msgs, extra), req)
			if err != nil {
				return "", true, err
			}
			for k, v := range part {
				out[k] = v
			}
		}
		data, err := json.Marshal(out)
		return string(data), true, err
	case p.Agent.Mode == "contracts":
		halves := halveBatch(p)
		if halves == nil {
			return "", false, nil
		}
		var all []json.RawMessage
		for _, h := range halves {
			hm, err := RenderPrompt(o.Root, h, nil, "")
			if err != nil {
				return "", true, err
			}
			text, _, err := o.answer(h, hm, false)
			if err != nil {
				return "", true, err
			}
			var b struct {
				Contracts []json.RawMessage `json:"chapter_contracts"`
			}
			if err := json.Unmarshal([]byte(ExtractJSON(text)), &b); err != nil {
				return "", true, answerErr(h, "model "+req.Model, "不是 JSON 对象 {\"chapter_contracts\":[…]}", "is not a JSON object {\"chapter_contracts\":[…]}")
			}
			all = append(all, b.Contracts...)
		}
		data, err := json.Marshal(map[string]any{"chapter_contracts": all})
		return string(data), true, err
	}
	return "", false, nil
}

// askPart asks one part of a split answer and decodes its JSON object.
func (o *OpenAI) askPart(p *Packet, msgs []Message, req *Request) (map[string]any, error) {
	part := req.clone()
	part.Body["messages"] = msgs
	res, err := o.complete(part, "split")
	if err != nil {
		return nil, err
	}
	text := StripThink(res.Content)
	if err := o.finishErr(p, part, res, text); err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Unmarshal([]byte(ExtractJSON(text)), &m) != nil || m == nil {
		return nil, answerErr(p, "model "+req.Model, "的分段回答不是 JSON 对象", "has a part that is not a JSON object")
	}
	return m, nil
}

// withSuffix is msgs with text appended to the last message.
func withSuffix(msgs []Message, text string) []Message {
	out := append([]Message{}, msgs...)
	last := out[len(out)-1]
	last.Content += text
	out[len(out)-1] = last
	return out
}

var contractRE = regexp.MustCompile(`chapter-(\d+)\.json$`)

// halveBatch splits a contracts packet of two or more chapters into two
// packets of half the chapters each (nil for a single chapter).
func halveBatch(p *Packet) []*Packet {
	var outs []Expected
	var other []Expected
	for _, o := range p.ExpectedOutputs {
		if o.Via == ViaFile && contractRE.MatchString(o.Path) {
			outs = append(outs, o)
		} else {
			other = append(other, o)
		}
	}
	if len(outs) < 2 {
		return nil
	}
	mid := len(outs) / 2
	var halves []*Packet
	for _, part := range [][]Expected{outs[:mid], outs[mid:]} {
		h := *p
		h.ExpectedOutputs = append(append([]Expected{}, part...), other...)
		first, _ := strconv.Atoi(contractRE.FindStringSubmatch(part[0].Path)[1])
		last, _ := strconv.Atoi(contractRE.FindStringSubmatch(part[len(part)-1].Path)[1])
		in := &manifest.OMap{}
		if p.Manifest.Inline != nil {
			data, _ := json.Marshal(p.Manifest.Inline)
			if json.Unmarshal(data, in) != nil {
				return nil
			}
		}
		in.Set("batch", []int{first, last})
		h.Manifest.Inline = in
		halves = append(halves, &h)
	}
	return halves
}
