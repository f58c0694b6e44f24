package lint

import (
	"strings"

	"github.com/novelsuite/novel/internal/textmeasure"
)

// trailingNotes finds a block after the chapter that is not story (SPEC
// §24: a change note, a separator and a preview, a second chapter heading)
// — what answer hygiene drops, left in a text written by hand or by an
// agent. It is reported at its first line.
func (d *doc) trailingNotes() []hit {
	texts := make([]string, len(d.lines))
	first := 0
	for i, l := range d.lines {
		texts[i] = l.Text
	}
	// TrailingNotes treats line 0 as the heading; start at the real one.
	if d.heading > 0 {
		first = d.heading
	}
	i := textmeasure.TrailingNotes(texts[first:])
	if i < 0 {
		return nil
	}
	l := d.lines[first+i]
	return []hit{{line: l, at: len(l.Text) - len(strings.TrimLeft(l.Text, " \t"))}}
}
