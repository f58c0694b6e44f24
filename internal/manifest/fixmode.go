package manifest

import (
	"strings"

	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/settings"
)

// FixFindMax bounds one replacement's find (SPEC §24): a passage, not the
// chapter.
const FixFindMax = 600

// fixModeEligible reports whether the revision of round k can be a targeted
// fix (SPEC §24): revision.fix_mode is not off; the archived gate decided
// revise without a high-confidence violation and without any l3 violation
// (a missing required objective needs new scenes, not edits); it lists at
// least one fix; and every fix locates its passage — its target or its
// evidence occurs verbatim in the archived draft. Anything else, or a file
// that cannot be read, is a full revision.
func (b *builder) fixModeEligible(k int) bool {
	if b.set.FixMode == settings.FixModeOff || k < 0 {
		return false
	}
	gateRel := gate.ArchivePath(b.c, k, layout.StagingGate(b.c))
	draftRel := gate.ArchivePath(b.c, k, layout.StagingChapter(b.c))
	if !b.root.IsFile(gateRel) || !b.root.IsFile(draftRel) {
		return false
	}
	data, err := b.root.ReadFile(gateRel)
	if err != nil {
		return false
	}
	g, err := gate.ParseGateFile(data, gateRel, b.c)
	if err != nil || g.Decision != gate.Revise || g.HasHighConfidenceViolation || len(g.RequiredFixes) == 0 {
		return false
	}
	for _, v := range append(append([]gate.Violation{}, g.Violations.High...), g.Violations.Warnings...) {
		if v.Level == "l3" {
			return false
		}
	}
	draft, err := b.root.ReadText(draftRel)
	if err != nil {
		return false
	}
	for _, f := range g.RequiredFixes {
		if !locates(draft, f.Target) && !locates(draft, f.Evidence) {
			return false
		}
	}
	return true
}

// locates reports whether passage (4 characters or more) occurs in text.
func locates(text, passage string) bool {
	p := strings.TrimSpace(passage)
	return len([]rune(p)) >= 4 && strings.Contains(text, p)
}
