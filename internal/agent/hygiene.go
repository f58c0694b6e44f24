package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// Answer hygiene (SPEC §18): what real models wrap around an answer never
// reaches an output.

// thinkRE matches reasoning blocks in content: Ollama's /v1 route and
// Bailian QwQ / R1 distills put `<think>…</think>` into content
// (ollama/ollama#10448, "thinking" docs); some models use <thinking>.
var thinkRE = lazyre.New(`(?s)<(think|thinking|reasoning)>.*?</(think|thinking|reasoning)>`)

// StripThink removes reasoning blocks. An unclosed block at the start
// (reasoning cut off before its end) removes everything; a closing tag
// without an opening one (templates that put <think> into the prompt, as
// Qwen3 and DeepSeek-R1 distills do) drops everything before it.
func StripThink(s string) string {
	s = thinkRE().ReplaceAllString(s, "")
	for _, tag := range []string{"</think>", "</thinking>", "</reasoning>"} {
		if i := strings.LastIndex(s, tag); i >= 0 {
			s = s[i+len(tag):]
		}
	}
	t := strings.TrimSpace(s)
	for _, tag := range []string{"<think>", "<thinking>", "<reasoning>"} {
		if strings.HasPrefix(t, tag) {
			return ""
		}
	}
	return s
}

// headingRE finds a chapter heading line: "# 第4章 标题", "## 第 四 章".
var headingRE = textmeasure.ChapterHeading

// notePrefixes open the bookkeeping lines chat models add after a chapter
// ("（本章完）", "字数：3012", "注：…"); chat addressed to the user
// ("以上是第4章，希望你喜欢", "如需调整请告诉我") is lint.IsChatLine. Prefixes
// that narration also uses (希望这…, 如果需要…, 我可以…) are not here: a
// chapter may end on such a line.
var notePrefixes = []string{"以上是第", "以上是本章", "以上就是第", "以上就是本章", "以上为第", "以上为本章", "以上内容",
	"需要我", "要不要我", "我可以继续", "我可以帮你", "我可以为你", "请告诉我", "注：", "注:", "（注", "(注", "说明：",
	"字数：", "字数:", "字数统计", "（字数", "(字数", "本章字数", "全文约", "（全文", "（本章完", "（完）", "(完)", "---", "***", "* * *",
	"Let me know", "I hope", "Note:"}

// chatterOpeners start a preamble line that continues an answer
// ("好的，接着写：").
var chatterOpeners = []string{"好的", "好，", "当然", "以下", "下面", "接着", "继续", "OK", "Sure", "Here"}

func isChatter(par string) bool {
	if lint.IsChatLine(par) {
		return true
	}
	for _, p := range notePrefixes {
		if strings.HasPrefix(par, p) {
			return true
		}
	}
	return false
}

// CleanChapter keeps the chapter itself: reasoning blocks, everything
// before the `# 第N章` heading (a fence opened there included) and chat
// paragraphs after the chapter are dropped, and so is a trailing block
// that is not story (dropTrailingNotes). heading is the chapter number
// the heading names (0 when there is none).
func CleanChapter(answer string) (text string, heading int) {
	s := StripThink(answer)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	loc := headingRE().FindStringSubmatchIndex(s)
	if loc != nil {
		pre := s[:loc[0]]
		s = s[loc[0]:]
		heading, _ = outline.ParseNumber(strings.TrimSpace(s[loc[2]-loc[0] : loc[3]-loc[0]]))
		if strings.Contains(pre, "```") {
			s = cutOuterFence(s)
		}
	} else {
		s = string(cleanFence(s))
	}
	s = dropTrailingNotes(strings.TrimSpace(s))
	pars := strings.Split(strings.TrimSpace(s), "\n\n")
	for len(pars) > 1 && isChatter(strings.TrimSpace(pars[len(pars)-1])) {
		pars = pars[:len(pars)-1]
	}
	return strings.TrimSpace(strings.Join(pars, "\n\n")) + "\n", heading
}

// cutOuterFence drops the closing fence of a fence opened before the
// heading, and what follows it. Fence lines after the heading are then
// odd in number (a hints block adds a balanced pair); an even count means
// the outer fence was never closed.
func cutOuterFence(s string) string {
	lines := strings.Split(s, "\n")
	last, count := -1, 0
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			count++
			if strings.TrimSpace(l) == "```" {
				last = i
			}
		}
	}
	if count%2 == 1 && last >= 0 {
		return strings.Join(lines[:last], "\n")
	}
	return s
}

// cleanContinuation trims a continuation's own preamble and any repeated
// heading so it joins the text it continues.
func cleanContinuation(s string) string {
	s = StripThink(s)
	if loc := headingRE().FindStringIndex(s); loc != nil && strings.TrimSpace(s[:loc[0]]) == "" {
		if nl := strings.IndexByte(s[loc[0]:], '\n'); nl >= 0 {
			s = s[loc[0]+nl+1:]
		}
	}
	t := strings.TrimLeft(s, "\n")
	if nl := strings.IndexByte(t, '\n'); nl > 0 {
		first := strings.TrimSpace(t[:nl])
		for _, o := range chatterOpeners {
			if strings.HasPrefix(first, o) && (strings.HasSuffix(first, "：") || strings.HasSuffix(first, ":")) {
				t = t[nl+1:]
				break
			}
		}
	}
	return t
}

// cleanFence removes one code fence around the whole answer.
func cleanFence(s string) []byte {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && strings.HasSuffix(s, "```") {
			s = strings.TrimSpace(s[nl+1 : len(s)-3])
		}
	}
	return []byte(s)
}

// ExtractJSON returns the first complete JSON object in an answer: a
// ```json fence's content first, then each '{' in turn until one decodes
// (braces in chatter or reasoning text do not confuse it). Nothing found
// returns the cleaned answer, so the decoder quotes the real problem.
func ExtractJSON(answer string) []byte {
	s := StripThink(answer)
	if i := strings.Index(s, "```json"); i >= 0 {
		rest := s[i+len("```json"):]
		if j := strings.Index(rest, "```"); j >= 0 {
			if v, ok := firstObject(rest[:j]); ok {
				return v
			}
		}
	}
	if v, ok := firstObject(s); ok {
		return v
	}
	return append(cleanFence(s), '\n')
}

func firstObject(s string) ([]byte, bool) {
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 {
			return nil, false
		}
		start := off + i
		dec := json.NewDecoder(strings.NewReader(s[start:]))
		var v json.RawMessage
		if dec.Decode(&v) == nil {
			return append(bytes.TrimSpace(v), '\n'), true
		}
		off = start + 1
	}
	return nil, false
}
