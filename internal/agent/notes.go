package agent

import (
	"strings"

	"github.com/novelsuite/novel/internal/textmeasure"
)

// dropTrailingNotes cuts what follows the chapter proper (SPEC §24): a
// second `# 第N章` heading and everything after it (the chapter repeated as
// a 修订版), a note line (NotePrefixes) and everything after it, or a
// separator followed by such text. The first line (the heading) and a
// draft's trailing hints block are kept. Only lines after the first story
// paragraph are considered, so a chapter never loses its opening.
func dropTrailingNotes(s string) string {
	body, hints := s, ""
	if b, _, ok := textmeasure.SplitHints(s); ok {
		body, hints = b, s[len(b):]
	}
	lines := strings.Split(body, "\n")
	cut := textmeasure.TrailingNotes(lines)
	if cut < 0 {
		return s
	}
	out := strings.TrimRight(strings.Join(lines[:cut], "\n"), " \t\n")
	if hints != "" {
		return out + "\n\n" + strings.TrimLeft(hints, "\n")
	}
	return out
}
