package volumeplan

import (
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Step names of a volume commit, in order (plan[].name; NOVEL_CRASH_AT).
const (
	StepJournal    = journal.StepJournal
	StepReplace    = "replace"
	StepMove       = "move"
	StepCheckpoint = "checkpoint"
	StepCleanup    = "cleanup"
)

// Result is what `novel-commit volume` prints.
type Result struct {
	Volume            int      `json:"volume"`
	StartChapter      int      `json:"start_chapter"`
	EndChapter        int      `json:"end_chapter"`
	Chapters          []int    `json:"chapters"`
	Files             []string `json:"files"`
	MissingContracts  []int    `json:"missing_contracts"`
	Replaced          *string  `json:"replaced"`
	Warnings          []string `json:"warnings"`
	CurrentVolume     int      `json:"current_volume"`
	OrchestratorState string   `json:"orchestrator_state"`
	NextStep          string   `json:"next_step"`
}

// Journal is staging/volume-VV.journal.json: written before the first
// change, deleted last; every step is idempotent, so a resumed commit
// runs them all again (SPEC §8.4 applied to §6.1).
type Journal struct {
	JournalVersion int                `json:"journal_version"`
	Volume         int                `json:"volume"`
	CommittedAt    string             `json:"committed_at"`
	Plan           []journal.PlanStep `json:"plan"`
	Replace        *journal.Move      `json:"replace"`
	Moves          []journal.Move     `json:"moves"`
	Output         Result             `json:"output"`
}

// Prepare validates the staged plan of volume v and computes the commit.
func Prepare(root *project.Root, v int, now string) (*Journal, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	if err := integrity.Require(root, cp.LastCompleted); err != nil {
		return nil, err
	}
	p, err := Validate(root, cp, v)
	if err != nil {
		return nil, err
	}
	if err := checkDestinations(root, p); err != nil {
		return nil, err
	}
	j := &Journal{JournalVersion: 1, Volume: v, CommittedAt: now, Replace: p.Replace, Moves: p.Moves}
	out := &j.Output
	out.Volume, out.StartChapter, out.EndChapter, out.Chapters = v, p.Start, p.End, p.Chapters
	out.MissingContracts, out.Warnings = p.MissingContracts, p.Warnings
	for _, m := range p.Moves {
		out.Files = append(out.Files, m.To)
	}
	if p.Replace != nil {
		to := p.Replace.To
		out.Replaced = &to
	}
	out.CurrentVolume, out.OrchestratorState = v, checkpoint.Writing
	out.NextStep = stepid.Chapter(p.Start, stepid.Draft).String()

	replaceW := []string{}
	if p.Replace != nil {
		replaceW = []string{p.Replace.To}
	}
	j.Plan = []journal.PlanStep{
		{Name: StepJournal, Writes: []string{layout.VolumeJournal(v)}},
		{Name: StepReplace, Writes: replaceW},
		{Name: StepMove, Writes: out.Files},
		{Name: StepCheckpoint, Writes: []string{layout.Checkpoint}},
		{Name: StepCleanup, Writes: cleanupWrites(root, v)},
	}
	return j, nil
}

// cleanupWrites lists what the cleanup step removes: the staged plan, the
// packets and snapshots (a batched plan's contracts packet only when one
// was made), the journal.
func cleanupWrites(root *project.Root, v int) []string {
	w := []string{layout.StagingVolumeDir(v), layout.VolumePacket(v), layout.VolumeSnapshot(v)}
	for _, rel := range []string{layout.VolumeStepPacket(v, stepid.Contracts), layout.VolumeStepSnapshot(v, stepid.Contracts)} {
		if root.Exists(rel) {
			w = append(w, rel)
		}
	}
	return append(w, layout.VolumeJournal(v))
}

// checkDestinations refuses a plan file that would replace a different
// committed one (SPEC §22). Files of a volume directory that is set
// aside first (Replace) are not replaced, so only the others are checked.
func checkDestinations(root *project.Root, p *Plan) error {
	var dests []journal.Dest
	for _, m := range p.Moves {
		if p.Replace == nil || !strings.HasPrefix(m.To, p.Replace.From+"/") {
			dests = append(dests, journal.Dest{File: m.To, From: m.From})
		}
	}
	return journal.CheckDestinations(root, dests, func(file string) journal.WayOut {
		return journal.WayOut{Zh: "把 " + file + " 移走后重新运行 novel-commit volume --volume " + layout.PadVol(p.Volume),
			En: "move " + file + " aside and run novel-commit volume --volume " + layout.PadVol(p.Volume) + " again"}
	})
}

// LoadJournal reads volume v's journal.
func LoadJournal(root *project.Root, v int) (*Journal, error) {
	rel := layout.VolumeJournal(v)
	var j Journal
	if err := journal.Read(root, rel, "卷提交日志", "volume commit journal", &j); err != nil {
		return nil, err
	}
	if j.Volume != v || len(j.Plan) == 0 {
		return nil, errs.Newf(errs.Schema, "%s 不是第 %d 卷的提交日志", "%s is not the commit journal of volume %d", rel, v).With("file", rel)
	}
	for _, m := range append(j.Moves, derefMove(j.Replace)...) {
		// Journal paths are data: they must stay inside the project.
		for _, p := range []string{m.From, m.To} {
			if _, err := root.Abs(p); err != nil {
				return nil, err
			}
		}
	}
	return &j, nil
}

func derefMove(m *journal.Move) []journal.Move {
	if m == nil {
		return nil
	}
	return []journal.Move{*m}
}

// Execute writes the journal (fresh commits) and runs every step
// (journal.Tx); crash is called after each step (the NOVEL_CRASH_AT test
// hook).
func Execute(root *project.Root, j *Journal, fresh bool, crash func(string)) (*Result, error) {
	steps := []journal.Step{
		{Name: StepReplace, Run: func() error { return stepReplace(root, j) }},
		{Name: StepMove, Run: func() error { return stepMove(root, j) }},
		{Name: StepCheckpoint, Run: func() error { return stepCheckpoint(root, j) }},
		{Name: StepCleanup, Run: func() error { return stepCleanup(root, j) }},
	}
	tx := journal.Tx{File: layout.VolumeJournal(j.Volume), Key: "commit_step", Resume: "novel-commit volume --volume " + layout.PadVol(j.Volume)}
	if err := tx.Run(root, j, fresh, crash, steps); err != nil {
		return nil, err
	}
	out := j.Output
	return &out, nil
}

// stepReplace sets the old volume directory aside; done once its
// destination exists (by then the source may already hold new files).
func stepReplace(root *project.Root, j *Journal) error {
	if j.Replace == nil {
		return nil
	}
	if done, err := root.Lexists(j.Replace.To); err != nil || done {
		return err
	}
	if there, err := root.Lexists(j.Replace.From); err != nil || !there {
		return err
	}
	return root.Move(j.Replace.From, j.Replace.To)
}

// stepMove renames every staged file into place; a file already moved by
// an earlier run is skipped, a file missing at both ends is lost.
func stepMove(root *project.Root, j *Journal) error {
	for _, m := range j.Moves {
		src, err := root.Lexists(m.From)
		if err != nil {
			return err
		}
		if src {
			if err := root.Move(m.From, m.To); err != nil {
				return err
			}
			continue
		}
		if dst, err := root.Lexists(m.To); err != nil {
			return err
		} else if !dst {
			return errs.Newf(errs.MissingFile, "卷提交中 %s 和 %s 都不存在", "neither %s nor %s exists during the volume commit", m.From, m.To).
				With("file", m.From).With("target", m.To).
				Hint("恢复 "+m.From+" 后重新运行 novel-commit volume --volume "+layout.PadVol(j.Volume),
					"restore "+m.From+" and run novel-commit volume --volume "+layout.PadVol(j.Volume)+" again")
		}
	}
	return nil
}

func stepCheckpoint(root *project.Root, j *Journal) error {
	return checkpoint.Edit(root, j.CommittedAt, func(cp *checkpoint.Checkpoint) (bool, error) {
		if cp.CurrentVolume == j.Volume && cp.State == checkpoint.Writing && cp.Inflight == 0 {
			return false, nil // done by an earlier run
		}
		cp.CurrentVolume = j.Volume
		cp.State = checkpoint.Writing
		cp.Inflight = 0
		cp.RevisionCount = 0
		return true, nil
	})
}

// stepCleanup removes the volume packet and snapshot, the staged plan
// directories once empty (a stray file the plan did not include stays),
// then the journal.
func stepCleanup(root *project.Root, j *Journal) error {
	v := j.Volume
	for _, rel := range []string{layout.VolumePacket(v), layout.VolumeSnapshot(v),
		layout.VolumeStepPacket(v, stepid.Contracts), layout.VolumeStepSnapshot(v, stepid.Contracts)} {
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	for _, rel := range []string{staged(v, contractsDir), staged(v, charactersDir), layout.StagingVolumeDir(v), layout.StagingVolumes} {
		abs, err := root.Abs(rel)
		if err != nil {
			return err
		}
		os.Remove(abs) // only when empty
	}
	return root.Remove(layout.VolumeJournal(v))
}

// Text is the --text line of a volume commit.
func (r *Result) Text() string {
	return "第 " + strconv.Itoa(r.Volume) + " 卷规划已提交：第 " + strconv.Itoa(r.StartChapter) + "–" + strconv.Itoa(r.EndChapter) +
		" 章（" + strconv.Itoa(len(r.Chapters)) + " 章），下一步 " + r.NextStep
}
