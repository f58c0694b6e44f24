package step

import (
	"fmt"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/project"
)

// integrityView is the refusal the integrity check gives next, the
// packets and commit (SPEC §22.1) — E_INTEGRITY, or the error that kept it
// from looking — as data: status reports it even when next is blocked by
// something else first. nil when the committed chapters are complete.
func integrityView(root *project.Root, cp *checkpoint.Checkpoint, lang string) *Blocked {
	g, err := integrity.Check(root, cp.LastCompleted)
	if err != nil {
		// The check itself could not look (a folder linked out of the
		// project, unreadable): that is reported too, not a failed status.
		return errs.Coerce(err).Body(lang)
	}
	if g == nil {
		return nil
	}
	return g.Err().Body(lang)
}

// integrityText is the dashboard's integrity lines (none when intact).
// The same refusal as the blocked line is printed once, here.
func (v *StatusView) integrityText(b *strings.Builder, lang string) {
	if v.Integrity == nil {
		return
	}
	fmt.Fprintf(b, errs.Text(lang, "完整性：%s %s\n", "integrity: %s %s\n"), v.Integrity.Code, v.Integrity.Message)
	fmt.Fprintf(b, "  → %s\n", v.Integrity.Hint)
}

// blockedByIntegrity reports whether the blocked line only repeats the
// integrity problem.
func (v *StatusView) blockedByIntegrity() bool {
	return v.Integrity != nil && v.Blocked != nil && v.Blocked.Code == v.Integrity.Code && v.Blocked.Message == v.Integrity.Message
}
