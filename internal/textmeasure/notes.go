package textmeasure

import (
	"strings"

	"github.com/novelsuite/novel/internal/lazyre"
)

// ChapterHeading matches a chapter heading line, loosely: "# 第4章 标题",
// "## 第 四 章" (submatch 1 is the number as written).
var ChapterHeading = lazyre.New(`(?m)^#{1,3}[ \t]*第[ \t]*([0-9０-９零〇一二两三四五六七八九十百千万]+)[ \t]*章`)

// NotePrefixes open a block after the chapter that is not story (SPEC §24):
// a refiner's change note, a preview of the next chapter, an end marker, a
// word count. Answer hygiene (internal/agent) drops them; lint (model_artifacts) flags
// any that remain.
var NotePrefixes = []string{"修改说明", "修订说明", "说明：", "说明:", "注：", "注:", "下章预告", "下一章预告", "本章完", "（本章完", "(本章完", "字数"}

// isNoteLine reports whether a trimmed line opens such a block.
func isNoteLine(t string) bool {
	t = strings.TrimLeft(t, "#*【[ \t")
	for _, p := range NotePrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// isSeparator reports a Markdown thematic break (---, ***, * * *).
func isSeparator(t string) bool {
	t = strings.ReplaceAll(t, " ", "")
	return len(t) >= 3 && (strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == "")
}

// TrailingNotes returns the index of the line where a block that is not
// story starts after the chapter (SPEC §24), or -1: a second chapter
// heading (the chapter repeated as a 修订版), a note line (IsNoteLine), or
// a separator followed by a note, a heading or nothing. The first line and
// the first story line after it are never such a start, so a chapter never
// loses its opening.
func TrailingNotes(lines []string) int {
	story := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i == 0 || t == "" {
			continue
		}
		if ChapterHeading().MatchString(l) {
			return i
		}
		if !story {
			story = true
			continue
		}
		if isNoteLine(t) {
			return i
		}
		if isSeparator(t) {
			if next := nextText(lines[i+1:]); next == "" || isNoteLine(next) || ChapterHeading().MatchString(next) {
				return i
			}
		}
	}
	return -1
}

// nextText is the first non-blank line of lines, trimmed.
func nextText(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
