package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
)

// ChapterCheck is how the executor also runs the error-severity chapter
// lints of SPEC §20 (internal/lint) on a Markdown answer before writing
// it, so the one re-ask quotes the lint's exact problem. nil runs none.
// The command layer (internal/cmd/novelagent) passes the lint package in
// without agent depending on it; a returned error is quoted in the re-ask
// like any validation error.
type ChapterCheck func(root *project.Root, p *Packet, chapter []byte) error

// parseLive turns a live model's answer (openai and command backends) into
// outputs: answer hygiene, the fields the packet knows filled from the
// packet, then the same validation as `novel-step validate` (package
// products / eval), so a re-ask can quote the exact problem (SPEC §18).
func parseLive(root *project.Root, p *Packet, answer []byte, source string, check ChapterCheck) (*Result, error) {
	if !utf8.Valid(answer) {
		return nil, answerErr(p, source, "不是有效的 UTF-8", "is not valid UTF-8")
	}
	switch p.Agent.Name {
	case stepid.ChapterWriter, stepid.StyleRefiner:
		return liveChapter(root, p, string(answer), source, check)
	case stepid.Summarizer:
		raw, err := liveObject(p, answer, source)
		if err != nil {
			return nil, err
		}
		fillBundle(root, p, raw)
		res, err := parseBundle(p, marshalRaw(raw), source)
		if err != nil {
			return nil, err
		}
		d, err := products.ParseDelta(res.Files[1].Data, res.Files[1].Path, p.Chapter)
		if err == nil && root != nil {
			// The base the delta was filled with: the packet's (amend,
			// backfill) or the current state's.
			want, ok := jsonio.Int(stateVersion(root, p))
			if !ok {
				want = -1
			}
			err = products.CheckDeltaForCommit(root, p.Volume, d, want)
		}
		if err != nil {
			return nil, invalid(p, source, err)
		}
		return res, nil
	case stepid.QualityJudge, stepid.LogicReviewer:
		raw, err := liveObject(p, answer, source)
		if err != nil {
			return nil, err
		}
		// The packet knows the chapter; a judge never decides it.
		raw["chapter"] = p.Chapter
		if rv, ok := inlineValue(p, "rubric_version"); ok {
			raw["rubric_version"] = rv
		}
		res, err := parseReport(p, marshalRaw(raw), source)
		if err != nil {
			return nil, err
		}
		data, rel := res.Stdout, ""
		if o, ok := p.Output(ViaStdout, nil); ok {
			rel = o.Path
		} else {
			data, rel = res.Files[0].Data, res.Files[0].Path
		}
		if p.Agent.Name == stepid.QualityJudge {
			err = strictJudge(root, p, data, rel)
		} else {
			_, err = eval.ParseLogicReview(data, rel, p.Chapter)
		}
		if err != nil {
			return nil, invalid(p, source, err)
		}
		return res, nil
	case WorldBuilder, CharacterWeaver, StyleAnalyzer:
		return liveSetup(root, p, ExtractJSON(string(answer)), source)
	case stepid.PlotArchitect:
		if p.IsSetup() {
			return liveSetup(root, p, ExtractJSON(string(answer)), source)
		}
	}
	return ParseAnswer(p, ExtractJSON(string(answer)), source)
}

func liveChapter(root *project.Root, p *Packet, answer, source string, check ChapterCheck) (*Result, error) {
	text, n := CleanChapter(answer)
	if n != 0 && n != p.Chapter {
		return nil, answerErr(p, source, "的标题是第 "+strconv.Itoa(n)+" 章，应为第 "+strconv.Itoa(p.Chapter)+" 章（# 第"+strconv.Itoa(p.Chapter)+"章 标题）",
			"has a heading for chapter "+strconv.Itoa(n)+", want chapter "+strconv.Itoa(p.Chapter)+" (# 第"+strconv.Itoa(p.Chapter)+"章 title)").
			With("heading", n).With("want", p.Chapter)
	}
	res, err := parseChapter(p, []byte(text), source)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace([]byte(text))) == 0 {
		return nil, answerErr(p, source, "去掉思考内容与闲聊后是空的", "is empty once reasoning and chatter are removed")
	}
	if check != nil {
		if err := check(root, p, res.Files[0].Data); err != nil {
			return nil, invalid(p, source, err)
		}
	}
	return res, nil
}

// strictJudge validates a judge's eval as the gate will read it: a packet
// with rubric_version makes it strict against the packet's inline rubric
// (the suite's default weights for a packet without one) and the judged
// staging chapter (SPEC §24), so a dropped dimension or an invented quote
// is re-asked here rather than gated on the model's own overall.
func strictJudge(root *project.Root, p *Packet, data []byte, rel string) error {
	e, err := eval.Parse(data, rel, p.Chapter)
	if err != nil {
		return err
	}
	if _, ok := inlineValue(p, "rubric_version"); !ok {
		return nil
	}
	weights := make(map[string]float64, len(eval.Rubric))
	for _, d := range eval.Rubric {
		weights[d.Name] = d.Weight
	}
	if v, ok := inlineValue(p, "rubric"); ok {
		if m, isObj := v.(map[string]any); isObj {
			weights = make(map[string]float64, len(m))
			for k, w := range m {
				if f, isNum := jsonio.Float(w); isNum {
					weights[k] = f
				}
			}
		}
	}
	text, err := products.ChapterText(root, layout.StagingChapter(p.Chapter))
	if err != nil {
		return err
	}
	if err := e.Strict(weights, text); err != nil {
		return err
	}
	// One l1 line with a quote per rule in play (SPEC §25).
	var inPlay []string
	if v, ok := inlineValue(p, "rules_in_play"); ok {
		if list, isList := v.([]any); isList {
			for _, r := range list {
				if m, isObj := r.(map[string]any); isObj {
					if id, isStr := m["id"].(string); isStr {
						inPlay = append(inPlay, id)
					}
				}
			}
		}
	}
	return e.CheckRules(inPlay, text)
}

// liveObject extracts the first JSON object of the answer (numbers kept
// as written).
func liveObject(p *Packet, answer []byte, source string) (map[string]any, error) {
	data := ExtractJSON(string(answer))
	var probe any
	if err := jsonio.Decode(data, source, &probe); err != nil {
		return nil, reportDecodeErr(p, source, err)
	}
	v, err := decodeNumbers(data)
	raw, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, answerErr(p, source, "必须是 JSON 对象", "must be a JSON object")
	}
	return raw, nil
}

// fillBundle sets what the packet knows in the summarizer's delta:
// chapter, base_state_version (the current state's state_version) and
// storyline_id (the packet's); unknown_entities given as bare names
// become {"name"} objects (lenient read, canonical write).
func fillBundle(root *project.Root, p *Packet, raw map[string]any) {
	delta, ok := raw["delta"].(map[string]any)
	if !ok {
		return
	}
	delta["chapter"] = p.Chapter
	delta["base_state_version"] = stateVersion(root, p)
	if sid, ok := inlineValue(p, "storyline_id"); ok {
		if s, isStr := sid.(string); isStr && project.IsSlug(s) {
			delta["storyline_id"] = s
		}
	}
	for _, holder := range []map[string]any{raw, delta} {
		list, ok := holder["unknown_entities"].([]any)
		if !ok {
			continue
		}
		for i, it := range list {
			if s, isStr := it.(string); isStr {
				list[i] = map[string]any{"name": s}
			}
		}
	}
}

// stateVersion is the base the commit will compare against: the packet's
// inline base_state_version when it carries one, else the state_version
// of state/current-state.json (0 without a state).
func stateVersion(root *project.Root, p *Packet) any {
	if v, ok := inlineValue(p, "base_state_version"); ok {
		return v
	}
	if root != nil {
		if n, err := stateops.StateVersion(root); err == nil {
			return n
		}
	}
	return 0 // an unreadable state: the commit's own check reports it
}

// inlineValue reads manifest.inline[key].
func inlineValue(p *Packet, key string) (any, bool) {
	if p.Manifest.Inline == nil {
		return nil, false
	}
	v, ok := p.Manifest.Inline.Get(key)
	if !ok {
		return nil, false
	}
	raw, err := json.Marshal(v)
	if err != nil || string(raw) == "null" {
		return nil, false
	}
	v, err = decodeNumbers(raw)
	return v, err == nil
}

func marshalRaw(v map[string]any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// invalid wraps a validation error of an answer as E_AGENT keeping the
// validator's exact message and details (quoted in the re-ask).
func invalid(p *Packet, source string, err error) error {
	e := errs.Coerce(err)
	out := answerErr(p, source, "未通过校验："+e.Message("zh"), "fails validation: "+e.Message("en"))
	for k, v := range e.Details {
		out.With(k, v)
	}
	return out
}
