package commit

import (
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/project"
)

// checkWritePaths resolves every file the plan will write (SPEC §1: paths
// written inside the project are checked) so a directory symlinked out of
// the project (logs/, summaries/, a storyline's history/) is refused with
// E_PATH before the journal exists, instead of halfway through the
// transaction. Maintenance writes are skipped: their errors become warnings
// (§16) and never block a commit; the cleanup pattern is not a path.
func checkWritePaths(root *project.Root, steps []journal.PlanStep) error {
	return CheckPlanPaths(root, "commit_step", steps)
}

// CheckPlanPaths is checkWritePaths naming the step under key
// (commit_step, rollback_step).
func CheckPlanPaths(root *project.Root, key string, steps []journal.PlanStep) error {
	for _, st := range steps {
		if st.Name == StepMaintenance {
			continue
		}
		for _, rel := range st.Writes {
			if strings.Contains(rel, "…") {
				continue
			}
			if _, err := root.Abs(rel); err != nil {
				if e := errs.As(err); e != nil {
					e.With(key, st.Name)
				}
				return err
			}
		}
	}
	return nil
}

// CheckMoves resolves the source of every move as well (a rollback moves
// committed files away: a chapter symlinked out of the project must be
// refused before the journal exists, or the journal blocks the project
// until the link is replaced by hand, field trial F9).
func CheckMoves(root *project.Root, key, step string, moves []journal.Move) error {
	for _, m := range moves {
		for _, rel := range []string{m.From, m.To} {
			if _, err := root.Abs(rel); err != nil {
				if e := errs.As(err); e != nil {
					e.With(key, step)
				}
				return err
			}
		}
	}
	return nil
}
