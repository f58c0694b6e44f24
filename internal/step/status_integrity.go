package step

import (
	"fmt"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/project"
)

// integrityView is the E_INTEGRITY refusal next, the packets and commit
// would give (SPEC §22.1), as data: status reports it even when next is
// blocked by something else first. nil when the committed chapters are
// complete.
func integrityView(root *project.Root, cp *checkpoint.Checkpoint, lang string) (*Blocked, error) {
	g, err := integrity.Check(root, cp.LastCompleted)
	if err != nil || g == nil {
		return nil, err
	}
	return g.Err().Body(lang), nil
}

// integrityText is the dashboard's integrity lines (none when intact).
// The same refusal as the blocked line is printed once, here.
func (v *StatusView) integrityText(b *strings.Builder, en bool) {
	if v.Integrity == nil {
		return
	}
	fmt.Fprintf(b, pick(en, "完整性：%s %s\n", "integrity: %s %s\n"), v.Integrity.Code, v.Integrity.Message)
	fmt.Fprintf(b, "  → %s\n", v.Integrity.Hint)
}

// blockedByIntegrity reports whether the blocked line only repeats the
// integrity problem.
func (v *StatusView) blockedByIntegrity() bool {
	return v.Integrity != nil && v.Blocked != nil && v.Blocked.Code == errs.Integrity
}
