package setupstep

import (
	"bytes"
	"os"
	"slices"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
)

// Step names of a setup commit, in order (plan[].name; NOVEL_CRASH_AT).
const (
	StepJournal = journal.StepJournal
	StepReplace = "replace"
	StepMove    = "move"
	StepCanon   = "canon"
	StepClock   = "story_clock"
	StepCleanup = "cleanup"
)

// Result is what `novel-commit setup` prints.
type Result struct {
	Step     string   `json:"step"`
	Files    []string `json:"files"`
	Replaced []string `json:"replaced"`
	NextStep string   `json:"next_step"`
	// CanonChanges names what a commit in the middle of the book changed
	// (rule ids, slug.field), logged in logs/canon-changes.jsonl.
	CanonChanges []string `json:"canon_changes,omitempty"`
	// StoryTimeSeeded: world/story-time.json was copied into the state
	// as world_state.story_time (SPEC §25).
	StoryTimeSeeded bool `json:"story_time_seeded,omitempty"`
}

// Journal is staging/setup-{stage}.journal.json: written before the first
// change, deleted last; every step is idempotent (SPEC §8.4).
type Journal struct {
	JournalVersion int                `json:"journal_version"`
	Stage          string             `json:"stage"`
	CommittedAt    string             `json:"committed_at"`
	Plan           []journal.PlanStep `json:"plan"`
	// Aside: differing committed files set aside under staging/replaced/
	// (--replace only).
	Aside []journal.Move `json:"aside"`
	Moves []journal.Move `json:"moves"`
	// Canon is the canon log's new text when the commit changes canon mid-book.
	Canon  *string `json:"canon,omitempty"`
	Output Result  `json:"output"`
	// SeedClock: the story_clock step copies world/story-time.json into
	// the state.
	SeedClock bool `json:"seed_clock,omitempty"`
}

// Prepare validates the staged outputs of a setup stage and computes the
// commit. A destination that exists with different content is E_CONFLICT
// unless replace, which sets the old file aside under
// staging/replaced/setup-{stage}-{n}/ first (n = 1, 2, …). With mid (the
// book is being written), a change to the world rules or the cast is
// logged in logs/canon-changes.jsonl as part of the commit (SPEC §25).
func Prepare(root *project.Root, stage string, replace bool, now string, next func() string, mid *Midbook) (*Journal, error) {
	files, err := Validate(root, stage)
	if err != nil {
		return nil, err
	}
	j := &Journal{JournalVersion: 1, Stage: stage, CommittedAt: now, Aside: []journal.Move{}}
	var dests []journal.Dest
	for _, f := range files {
		j.Moves = append(j.Moves, journal.Move{From: StagedPath(f), To: f})
		dests = append(dests, journal.Dest{File: f, From: StagedPath(f)})
	}
	cmd := "novel-commit setup --step " + stage
	if !replace {
		err := journal.CheckDestinations(root, dests, func(file string) journal.WayOut {
			return journal.WayOut{Zh: "确认要替换时运行 " + cmd + " --replace（旧文件保存在 staging/replaced/ 下），或把 " + file + " 移走",
				En: "to replace it run " + cmd + " --replace (the old file is kept under staging/replaced/), or move " + file + " aside"}
		})
		if err != nil {
			return nil, err
		}
	} else if j.Aside, err = asides(root, stage, dests); err != nil {
		return nil, err
	}
	out := &j.Output
	out.Step, out.Files, out.Replaced = "setup:"+stage, files, []string{}
	for _, m := range j.Aside {
		out.Replaced = append(out.Replaced, m.To)
	}
	asideW := out.Replaced
	j.Plan = []journal.PlanStep{
		{Name: StepJournal, Writes: []string{layout.SetupJournal(stage)}},
		{Name: StepReplace, Writes: asideW},
		{Name: StepMove, Writes: files},
	}
	if mid != nil {
		changes, err := canonChanges(root, stage, files)
		if err != nil {
			return nil, err
		}
		if len(changes) > 0 {
			text, err := canonWrite(root, CanonEntry{Chapter: mid.Chapter, Volume: mid.Volume, Step: "setup:" + stage, At: now, Changes: changes})
			if err != nil {
				return nil, err
			}
			j.Canon, out.CanonChanges = &text, canonSummary(changes)
			j.Plan = append(j.Plan, journal.PlanStep{Name: StepCanon, Writes: []string{CanonLog}})
		}
	}
	if stage == stepid.SetupWorld && slices.Contains(files, StoryTime) {
		if j.SeedClock, err = clockUnset(root); err != nil {
			return nil, err
		}
	}
	if j.SeedClock {
		j.Plan = append(j.Plan, journal.PlanStep{Name: StepClock, Writes: []string{layout.CurrentState}})
		out.StoryTimeSeeded = true
	}
	j.Plan = append(j.Plan, journal.PlanStep{Name: StepCleanup, Writes: []string{PacketPath(stage), snapshotPath(stage), layout.SetupJournal(stage)}})
	out.NextStep = next()
	return j, nil
}

// asides lists the committed files that differ from their staged
// replacement and where each is kept.
func asides(root *project.Root, stage string, dests []journal.Dest) ([]journal.Move, error) {
	dir, err := root.Unused(ReplacedDir + "/setup-" + stage)
	if err != nil {
		return nil, err
	}
	out := []journal.Move{}
	for _, d := range dests {
		if !root.IsFile(d.File) {
			continue
		}
		old, err := root.ReadFile(d.File)
		if err != nil {
			return nil, err
		}
		staged, err := root.ReadFile(d.From)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(old, staged) {
			out = append(out, journal.Move{From: d.File, To: dir + "/" + d.File})
		}
	}
	return out, nil
}

// LoadJournal reads a setup stage's journal.
func LoadJournal(root *project.Root, stage string) (*Journal, error) {
	rel := layout.SetupJournal(stage)
	var j Journal
	if err := journal.Read(root, rel, "设定提交日志", "setup commit journal", &j); err != nil {
		return nil, err
	}
	if j.Stage != stage || len(j.Plan) == 0 {
		return nil, errs.Newf(errs.Schema, "%s 不是 setup:%s 的提交日志", "%s is not the commit journal of setup:%s", rel, stage).With("file", rel)
	}
	for _, m := range append(append([]journal.Move{}, j.Moves...), j.Aside...) {
		for _, p := range []string{m.From, m.To} {
			if _, err := root.Abs(p); err != nil {
				return nil, err
			}
		}
	}
	return &j, nil
}

// Execute writes the journal (fresh commits) and runs every step.
func Execute(root *project.Root, j *Journal, fresh bool, crash func(string)) (*Result, error) {
	cmd := "novel-commit setup --step " + j.Stage
	steps := []journal.Step{
		{Name: StepReplace, Run: func() error { return moveAll(root, j.Aside, true, cmd) }},
		{Name: StepMove, Run: func() error { return moveAll(root, j.Moves, false, cmd) }},
		{Name: StepCanon, Run: func() error {
			if j.Canon == nil {
				return nil
			}
			// The whole new log, written atomically: a replay writes it again.
			return root.WriteFile(CanonLog, []byte(*j.Canon))
		}},
	}
	if j.SeedClock {
		steps = append(steps, journal.Step{Name: StepClock, Run: func() error { return seedClock(root) }})
	}
	steps = append(steps, journal.Step{Name: StepCleanup, Run: func() error { return cleanup(root, j.Stage) }})
	tx := journal.Tx{File: layout.SetupJournal(j.Stage), Key: "commit_step", Resume: cmd}
	if err := tx.Run(root, j, fresh, crash, steps); err != nil {
		return nil, err
	}
	out := j.Output
	return &out, nil
}

// clockUnset reports whether the setup commit may seed the story clock:
// the state exists, no chapter is committed (so the state is still the
// baseline every replay starts from) and it has no clock yet. In the
// middle of a book the clock is the summarizer's; a replaced
// story-time.json does not move it.
func clockUnset(root *project.Root) (bool, error) {
	if !root.IsFile(layout.CurrentState) {
		return false, nil
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return false, err
	}
	st, _, err := stateops.DecodeState(data, layout.CurrentState)
	if err != nil {
		return false, err
	}
	if n, _ := jsonio.Int(st["last_updated_chapter"]); n > 0 || root.Exists(layout.Baseline) {
		return false, nil
	}
	ws, _ := st["world_state"].(map[string]any)
	_, has := ws["story_time"]
	return !has, nil
}

// seedClock copies world/story-time.json into the state's
// world_state.story_time (idempotent: a re-run writes the same value).
func seedClock(root *project.Root) error {
	clock, err := storyTime(root, StoryTime, StoryTime)
	if err != nil {
		return err
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return err
	}
	st, _, err := stateops.DecodeState(data, layout.CurrentState)
	if err != nil {
		return err
	}
	ws, _ := st["world_state"].(map[string]any)
	if ws == nil {
		ws = map[string]any{}
		st["world_state"] = ws
	}
	ws["story_time"] = clock
	return root.WriteJSON(layout.CurrentState, st)
}

// moveAll renames each file; a move whose destination exists and whose
// source is gone was done by an earlier run. For the set-aside step the
// destination existing means done (the source by then holds the new file).
func moveAll(root *project.Root, moves []journal.Move, aside bool, cmd string) error {
	for _, m := range moves {
		dst, err := root.Lexists(m.To)
		if err != nil {
			return err
		}
		if aside && dst {
			continue
		}
		src, err := root.Lexists(m.From)
		if err != nil {
			return err
		}
		switch {
		case src:
			if err := root.Move(m.From, m.To); err != nil {
				return err
			}
		case !dst && !aside:
			return errs.Newf(errs.MissingFile, "设定提交中 %s 和 %s 都不存在", "neither %s nor %s exists during the setup commit", m.From, m.To).
				With("file", m.From).With("target", m.To).
				Hint("恢复 "+m.From+" 后重新运行 "+cmd, "restore "+m.From+" and run "+cmd+" again")
		}
	}
	return nil
}

// cleanup removes the stage's packet and snapshot, the staging/setup
// directories once empty, then the journal.
func cleanup(root *project.Root, stage string) error {
	for _, rel := range []string{PacketPath(stage), snapshotPath(stage)} {
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	for _, rel := range []string{StagedPath(layout.CharactersActive), StagedPath(layout.CharactersDir), StagedPath(WorldDir), StagedPath(layout.StorylinesDir), Staging} {
		if abs, err := root.Abs(rel); err == nil {
			os.Remove(abs) // only when empty
		}
	}
	return root.Remove(layout.SetupJournal(stage))
}

// Text is the --text line of a setup commit.
func (r *Result) Text() string {
	return r.Step + " 已提交 " + strconv.Itoa(len(r.Files)) + " 个文件，下一步 " + r.NextStep
}
