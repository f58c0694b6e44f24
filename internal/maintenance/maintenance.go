// Package maintenance is the periodic, deterministic upkeep run after a
// chapter commit (SPEC §16): the AI-blacklist upkeep from the judge's
// suggestions and style-drift detection every 5th chapter. It never blocks
// a commit: the caller turns its errors into warnings. Every step is
// idempotent, so a resumed commit can run it again.
package maintenance

import (
	"github.com/novelsuite/novel/internal/project"
)

// Report is what a run changed, for the commit output's "maintenance".
type Report struct {
	Blacklist  BlacklistReport `json:"blacklist"`
	StyleDrift DriftReport     `json:"style_drift"`
}

// Run performs the upkeep for committed chapter c. eval is the committed
// eval (decoded JSON object, may be nil); now is the commit timestamp.
// Errors of one part do not stop the other; they are returned as
// warnings.
func Run(root *project.Root, c int, eval map[string]any, now string) (Report, []string) {
	var rep Report
	var warnings []string
	b, err := updateBlacklist(root, c, eval, now)
	if err != nil {
		warnings = append(warnings, "blacklist upkeep: "+err.Error())
	}
	rep.Blacklist = b
	d, err := checkDrift(root, c, now)
	if err != nil {
		warnings = append(warnings, "style drift: "+err.Error())
	}
	rep.StyleDrift = d
	return rep, warnings
}
