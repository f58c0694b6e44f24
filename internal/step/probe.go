package step

import (
	"strconv"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// probe looks at one chapter's staging products, each at most once.
type probe struct {
	root *project.Root
	cp   *checkpoint.Checkpoint
	s    settings.Settings
	c    int

	chapterOK *bool
	delta     *products.Delta
	keyErr    error
}

func newProbe(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, c int) *probe {
	return &probe{root: root, cp: cp, s: s, c: c}
}

func (p *probe) chapter() bool {
	if p.chapterOK == nil {
		// Lint errors make a draft invalid too: next then proposes the
		// draft again rather than a step whose validation refuses it.
		ok := products.CheckChapterLinted(p.root, p.s, p.cp, p.c, stepid.Draft) == nil
		p.chapterOK = &ok
	}
	return *p.chapterOK
}

// evidence validates every product of the chapter; an invalid product
// counts as missing. A key-chapter lookup failure (no outline) is kept
// for the rule that needs it rather than failing early rules.
func (p *probe) evidence(g *gateView) Evidence {
	ev := Evidence{Chapter: p.chapter()}
	ev.Summary = products.CheckSummary(p.root, p.c) == nil
	if d, err := products.ReadDelta(p.root, p.c); err == nil && products.CheckDeltaStoryline(p.root, p.cp, d) == nil {
		p.delta = d
		ev.Delta = true
		ev.Memory = products.CheckMemory(p.root, d.StorylineID) == nil
	}
	_, err := products.ReadCrossref(p.root, p.c, products.Lenient(p.cp, p.c))
	ev.Crossref = err == nil
	_, err = products.Eval(p.root, p.c, false, p.s.Weights())
	ev.Eval = err == nil
	_, err = products.Eval(p.root, p.c, true, p.s.Weights())
	ev.EvalSecondary = err == nil
	_, err = products.LogicReviewReport(p.root, p.c)
	ev.LogicReview = err == nil
	ev.KeyChapter, p.keyErr = products.KeyChapter(p.root, p.cp, p.c)
	if g != nil {
		ev.Gate = true
		d := g.Decision
		ev.GateDecision = &d
	}
	return ev
}

func itoa(n int) string { return strconv.Itoa(n) }
