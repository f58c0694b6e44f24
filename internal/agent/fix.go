package agent

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// FixFindMax bounds one replacement's find (SPEC §24).
const FixFindMax = 600

// Format is the answer format of the packet's role: Markdown for the
// writer and the refiner, JSON otherwise — and JSON for the writer's
// targeted fix, whose answer is a list of replacements.
func (p *Packet) Format() string {
	if p.IsFix() {
		return FormatJSON
	}
	return Format(p.Agent.Name)
}

// IsFix reports a targeted revision packet (agent.mode "fix").
func (p *Packet) IsFix() bool {
	return p.Agent.Name == stepid.ChapterWriter && p.Agent.Mode == stepid.ModeFix
}

// Replacement is one edit of a targeted fix.
type Replacement struct {
	Find    string `json:"find"`
	Replace string `json:"replace"`
}

// parseFix turns a fix answer {"replacements":[{"find","replace"}]} into
// the new staging chapter: the replacements are applied in order to the
// previous draft (the packet's chapter_draft). Each find must occur in the
// text exactly once and be at most FixFindMax characters; any problem is
// E_SCHEMA naming the replacement, and nothing is written.
func parseFix(root *project.Root, p *Packet, answer []byte, source string) (*Result, error) {
	var doc struct {
		Replacements []Replacement `json:"replacements"`
	}
	data := ExtractJSON(string(jsonio.StripBOM(answer)))
	if err := json.Unmarshal(data, &doc); err != nil || doc.Replacements == nil {
		return nil, fixErr(p, source, -1, "必须是 JSON 对象 {\"replacements\":[{\"find\",\"replace\"}]}", "must be a JSON object {\"replacements\":[{\"find\",\"replace\"}]}")
	}
	if len(doc.Replacements) == 0 {
		return nil, fixErr(p, source, -1, "的 replacements 是空的", "has no replacements")
	}
	draftRel, ok := packetPath(p, "chapter_draft")
	if !ok || root == nil {
		return nil, answerErr(p, source, "无法应用：指令包没有 chapter_draft", "cannot be applied: the packet has no chapter_draft")
	}
	text, err := root.ReadText(draftRel)
	if err != nil {
		return nil, err
	}
	for i, r := range doc.Replacements {
		n := utf8.RuneCountInString(r.Find)
		switch {
		case strings.TrimSpace(r.Find) == "":
			return nil, fixErr(p, source, i, "的 find 是空的", "has an empty find")
		case n > FixFindMax:
			return nil, fixErr(p, source, i, "的 find 有 "+strconv.Itoa(n)+" 字，超过 "+strconv.Itoa(FixFindMax)+" 字：只摘要改的那一段",
				"has a find of "+strconv.Itoa(n)+" characters, more than "+strconv.Itoa(FixFindMax)+": quote only the passage to change")
		}
		switch c := strings.Count(text, r.Find); c {
		case 1:
			text = strings.Replace(text, r.Find, r.Replace, 1)
		case 0:
			return nil, fixErr(p, source, i, "的 find「"+clipRunes(r.Find, 30)+"」在上一稿中找不到（必须逐字摘录）",
				"has a find 「"+clipRunes(r.Find, 30)+"」 that is not in the previous draft (quote it verbatim)").With("find", r.Find)
		default:
			return nil, fixErr(p, source, i, "的 find「"+clipRunes(r.Find, 30)+"」在上一稿中出现 "+strconv.Itoa(c)+" 次，必须只出现一次：多摘几个字",
				"has a find 「"+clipRunes(r.Find, 30)+"」 that occurs "+strconv.Itoa(c)+" times in the previous draft; it must occur once (quote more)").With("find", r.Find)
		}
	}
	return parseChapter(p, []byte(text), source)
}

func fixErr(p *Packet, source string, i int, zh, en string) *errs.Error {
	if i >= 0 {
		idx := strconv.Itoa(i)
		return errs.New(errs.Schema, p.Agent.Name+" 的输出（"+source+"）中 replacements["+idx+"]"+zh,
			p.Agent.Name+"'s answer ("+source+"): replacements["+idx+"] "+en).
			With("agent", p.Agent.Name).With("mode", p.Agent.Mode).With("replacement", i).
			Hint("按上一稿逐字摘录要改的段落（只出现一次、不超过 600 字）后重答", "quote each passage to change verbatim from the previous draft (occurring once, at most 600 characters) and answer again")
	}
	return errs.New(errs.Schema, p.Agent.Name+" 的输出（"+source+"）"+zh, p.Agent.Name+"'s answer ("+source+") "+en).
		With("agent", p.Agent.Name).With("mode", p.Agent.Mode).
		Hint("按修订（fix）模式的输出格式重答", "answer again in the fix mode's output format")
}

// packetPath is a string value of the packet's paths.
func packetPath(p *Packet, key string) (string, bool) {
	if p.Manifest.Paths == nil {
		return "", false
	}
	v, ok := p.Manifest.Paths.Get(key)
	if !ok {
		return "", false
	}
	raw, err := json.Marshal(v)
	var s string
	if err != nil || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, s != ""
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
