package step

import (
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
)

// pendingBlock is next rule 2 (and the advance gate, SPEC §7.4): a
// pending revision of an earlier chapter, a pending revision of the
// target itself, or a gate file of the target saying review/rewrite.
// Bad revision files fail closed with E_SCHEMA.
func pendingBlock(root *project.Root, target int, g *gateView, revisions []string) error {
	if err := revision.CheckOf(root, target, revisions); err != nil {
		return err
	}
	st, err := revision.Load(root, target)
	if err != nil {
		return err
	}
	if st != nil && st.Status == revision.StatusPending {
		return revision.Blocked(root, st, target)
	}
	if g != nil && (g.Decision == "review" || g.Decision == "rewrite") {
		// The gate paused the chapter but its revision file is gone or
		// already decided: still a person's call, never a silent pass.
		st := revision.New(target, "quality_gate", "门控结论为 "+g.Decision+" / gate decision "+g.Decision, "")
		st.GateFile = layout.StagingGate(target)
		return revision.Blocked(root, st, target)
	}
	return nil
}
