package step

import (
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/project"
)

// gateView is what the step rules need from a chapter's gate file.
type gateView struct {
	Decision string
	Polished bool
}

// loadGate reads chapter c's staging gate file through the gate package;
// nil when there is none.
func loadGate(root *project.Root, c int) (*gateView, error) {
	g, err := gate.LoadGateFile(root, c)
	if err != nil || g == nil {
		return nil, err
	}
	return &gateView{Decision: g.Decision, Polished: g.Polished}, nil
}

// markPolished is the gate rewrite of advance chapter:C:polish; the gate
// package owns the write.
func markPolished(root *project.Root, c int) error { return gate.MarkPolished(root, c) }
