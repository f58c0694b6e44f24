package pipeline

import (
	"strconv"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// stampedStages are the stages of a round that leave a stamp, in order:
// every chapter stage but the commit (stepid.Stages ends with it).
var stampedStages = stepid.Stages[:len(stepid.Stages)-1]

// stageEnd is the last position of work a stage's stamp vouches for: the
// judge stamp covers the secondary judge too.
func stageEnd(stage string) int {
	if stage == stepid.Judge {
		return position(stepid.Judge, stepid.RoleSecondary)
	}
	return position(stage, "")
}

// trustStamps keeps a stamp only while `novel-step next` (which validates
// the products and reads the checkpoint's stage) agrees that its stage is
// done. A stamp of the stage next proposes, or of a later one, is stale:
// its product went missing after the stamp was written (a deleted eval,
// resolve --rejudge), or the checkpoint was moved back. Stale stamps are
// removed so make redoes those stages — unless the proposed stage's
// product exists but no longer validates (a chapter re-saved as GBK, an
// eval edited into bad JSON): that may be the author's work, so the run
// stops with the product's own error naming the file instead of letting
// an executor overwrite it (SPEC §22 "A run never spins").
func (e *Env) trustStamps(cp *checkpoint.Checkpoint, n *nextStep) error {
	c, round := n.Chapter, currentRound(cp, n.Chapter)
	pos := position(n.Stage, n.Role)
	var stale []string
	for _, stage := range stampedStages {
		if s := layout.Stamp(c, stage, round); pos <= stageEnd(stage) && e.Root.Exists(s) {
			stale = append(stale, s)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	if err := e.productError(cp, n); err != nil {
		return err
	}
	for _, s := range stale {
		if err := e.Root.Remove(s); err != nil {
			return err
		}
	}
	return nil
}

// productError is the validation error of an existing but invalid product
// of the stage next proposes; nil when its products are valid or missing
// (the stage can simply run again).
func (e *Env) productError(cp *checkpoint.Checkpoint, n *nextStep) error {
	switch n.Stage {
	case stepid.Gate, stepid.Commit:
		return nil // no agent products; next already read the gate file
	}
	s, err := settings.Load(e.Root, e.Getenv)
	if err != nil {
		return err
	}
	st := stepid.Chapter(n.Chapter, n.Stage)
	verr := products.ValidateRole(e.Root, cp, st, s, n.Role)
	ee := errs.As(verr)
	if ee == nil || ee.Code == errs.MissingFile {
		if ee != nil {
			return nil
		}
		return verr
	}
	c := strconv.Itoa(n.Chapter)
	file, _ := ee.Details["file"].(string)
	if file == "" {
		file = "该文件"
	}
	return ee.Hint("修正或删除 "+file+"（删除后流水线会重做 "+st.String()+"），然后重新运行 make -f pipeline.mk chapter C="+c,
		"fix or delete "+file+" (once it is deleted the pipeline redoes "+st.String()+"), then re-run make -f pipeline.mk chapter C="+c).
		With("step", st.String())
}
