package agent

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/stepid"
)

// Split re-asks (SPEC §26): a JSON answer cut at the model's output limit
// cannot be had whole by raising max_tokens (the provider refuses more),
// so the work is cut instead. A summarizer bundle is asked in two parts
// (summary + memory, then delta + crossref), a volume plan as the plan
// without contracts then the contracts in two halves of the volume, a
// contracts batch as two half batches; the parts are joined. Every part
// is an ordinary request (usage line kind "split"); the joined answer is
// validated like any other.

// splitPrefix starts every part's instruction; the fields a part asks
// for follow "字段：" (the loopback fake reads them to answer in parts).
const splitPrefix = "【分段输出】完整答案超过了模型的输出上限，所以分几次输出。"

// partAsk is the instruction of one part: only the named fields, and for
// chapter_contracts only chapters first..last (0: all).
func partAsk(fields []string, first, last int) string {
	s := "\n\n" + splitPrefix + "这一次只输出一个 JSON 对象，字段：" + strings.Join(fields, "、")
	if first > 0 {
		s += "（第 " + strconv.Itoa(first) + "–" + strconv.Itoa(last) + " 章）"
	}
	return s + "。其他字段不要输出，字段的要求与上面相同；已经输出过的部分不要重复。"
}

// split answers a cut JSON packet in parts; ok is false when the packet
// cannot be split (the caller reports the truncation).
func (o *OpenAI) split(p *Packet, msgs []Message, req *Request) (string, bool, error) {
	var asks []string
	switch {
	case p.Agent.Name == stepid.Summarizer:
		asks = []string{partAsk([]string{"summary", "memory"}, 0, 0), partAsk([]string{"delta", "crossref", "unknown_entities"}, 0, 0)}
	case p.Agent.Name == stepid.PlotArchitect && p.Agent.Mode == stepid.ModePlan:
		asks = []string{partAsk([]string{"outline", "storyline_schedule", "foreshadowing", "new_characters"}, 0, 0)}
		if b, _ := inlineValue(p, "contracts_in_batches"); b != true {
			// The plan carries the contracts: asked in two halves of the
			// volume's chapters when its length is known.
			start, _ := inlineInt(p, "plan_start_chapter")
			n, _ := inlineInt(p, "target_chapters")
			if start > 0 && n > 1 {
				mid := start + n/2 - 1
				asks = append(asks, partAsk([]string{"chapter_contracts"}, start, mid), partAsk([]string{"chapter_contracts"}, mid+1, start+n-1))
			} else {
				asks = append(asks, partAsk([]string{"chapter_contracts"}, 0, 0))
			}
		}
	case p.Agent.Mode == stepid.ModeContracts:
		return o.halves(p, req)
	default:
		return "", false, nil
	}
	// The parts are one conversation: each later part sees what the
	// earlier ones answered, so the delta follows the summary and the
	// contracts follow the outline.
	out := map[string]any{}
	conv := withSuffix(msgs, asks[0])
	for i, ask := range asks {
		if i > 0 {
			conv = append(conv, Message{Role: "user", Content: strings.TrimSpace(ask)})
		}
		part, text, err := o.askPart(p, conv, req)
		if err != nil {
			return "", true, err
		}
		conv = append(conv, Message{Role: "assistant", Content: text})
		for k, v := range part {
			if list, isList := v.([]any); isList && k == "chapter_contracts" {
				prev, _ := out[k].([]any)
				v = append(prev, list...)
			}
			out[k] = v
		}
	}
	data, err := json.Marshal(out)
	return string(data), true, err
}

// halves answers a contracts batch as two half batches, joined.
func (o *OpenAI) halves(p *Packet, req *Request) (string, bool, error) {
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

// askPart asks one part of a split answer and decodes its JSON object.
func (o *OpenAI) askPart(p *Packet, msgs []Message, req *Request) (map[string]any, string, error) {
	part := req.clone()
	part.Body["messages"] = msgs
	res, err := o.complete(part, "split")
	if err != nil {
		return nil, "", err
	}
	text := StripThink(res.Content)
	if err := o.finishErr(p, part, res, text); err != nil {
		return nil, "", err
	}
	var m map[string]any
	if json.Unmarshal([]byte(ExtractJSON(text)), &m) != nil || m == nil {
		return nil, "", answerErr(p, "model "+req.Model, "的分段回答不是 JSON 对象", "has a part that is not a JSON object")
	}
	return m, text, nil
}

// inlineInt reads an integer inline value.
func inlineInt(p *Packet, key string) (int, bool) {
	v, ok := inlineValue(p, key)
	if !ok {
		return 0, false
	}
	return jsonio.Int(v)
}

// withSuffix is msgs with text appended to the last message.
func withSuffix(msgs []Message, text string) []Message {
	out := append([]Message{}, msgs...)
	last := out[len(out)-1]
	last.Content += text
	out[len(out)-1] = last
	return out
}

var contractRE = lazyre.New(`chapter-(\d+)\.json$`)

// halveBatch splits a contracts packet of two or more chapters into two
// packets of half the chapters each (nil for a single chapter).
func halveBatch(p *Packet) []*Packet {
	var outs []Expected
	var other []Expected
	for _, o := range p.ExpectedOutputs {
		if o.Via == ViaFile && contractRE().MatchString(o.Path) {
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
		first, _ := strconv.Atoi(contractRE().FindStringSubmatch(part[0].Path)[1])
		last, _ := strconv.Atoi(contractRE().FindStringSubmatch(part[len(part)-1].Path)[1])
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
