package outline

import (
	"strings"
	"unicode"

	"github.com/novelsuite/novel/internal/lazyre"
)

// MarkdownContract is what the suite reads from a plugin-era L3 chapter
// contract in Markdown (volumes/vol-VV/chapter-contracts/chapter-NNN.md,
// SPEC §22): `## 第 C 章：名`, key lines such as `- **故事线**：id`, and
// `###` sections. Fields the file does not give are zero.
type MarkdownContract struct {
	Chapter     int    // from the heading, else the 章号 key; 0 when neither
	Title       string // from the heading
	StorylineID string // the 故事线 key, as written
	POV         string
	// Acceptance are the 验收标准 items (numbered or bulleted), the
	// contract's required objectives.
	Acceptance []string
	// Characters are the names the 事件中自然流露的角色特质 lines start
	// with (`- 陆照：…`), in file order, without repeats.
	Characters []string
}

var itemRE = lazyre.New(`^(?:\d+[.、)）]|[-*+])[ \t\x{3000}]*(.+)$`)

// ParseContract reads a Markdown chapter contract (UTF-8 text).
func ParseContract(text string) *MarkdownContract {
	ct := &MarkdownContract{}
	section := ""
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeftFunc(line, isSpace)
		if strings.HasPrefix(trimmed, "#") {
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			if c, title, ok := ParseHeading("###" + trimmed[level:]); ok && level <= 3 && ct.Chapter == 0 {
				ct.Chapter, ct.Title = c, title
				continue
			}
			section = strings.TrimFunc(trimmed[level:], func(r rune) bool { return unicode.IsSpace(r) || r == '\u3000' })
			continue
		}
		if k, v, ok := parseKeyLine(trimmed); ok {
			switch k {
			case "章号":
				if n, isNum := ParseNumber(v); isNum && ct.Chapter == 0 {
					ct.Chapter = n
				}
			case "故事线":
				if ct.StorylineID == "" {
					ct.StorylineID = v
				}
			case "POV":
				if ct.POV == "" {
					ct.POV = v
				}
			}
		}
		m := itemRE().FindStringSubmatch(trimmed)
		if m == nil {
			continue
		}
		item := strings.TrimSpace(m[1])
		switch {
		case strings.HasPrefix(section, "验收标准") && item != "":
			ct.Acceptance = append(ct.Acceptance, item)
		case strings.HasPrefix(section, "事件中自然流露的角色特质"):
			name, _, found := strings.Cut(strings.ReplaceAll(item, "：", ":"), ":")
			name = strings.Trim(strings.TrimSpace(name), "*")
			if found && name != "" && !seen[name] {
				seen[name] = true
				ct.Characters = append(ct.Characters, name)
			}
		}
	}
	return ct
}
