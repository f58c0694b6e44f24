// Package novelcommit is the command surface of novel-commit: the
// journaled chapter commit and the state rebuild (SPEC §8). The logic
// lives in internal/commit.
package novelcommit

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/commit"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/pipeline"
)

type grammar struct {
	cli.Globals `embed:""`

	Chapter      chapterCmd      `cmd:"" default:"withargs" help:"Commit chapter C (novel-commit --chapter C [--dry-run])."`
	Rebuild      rebuildCmd      `cmd:"" help:"Replay state/changelog.jsonl from state/baseline.json; --check only compares. Refuses (E_STATE) a replay that cannot be trusted; a replaced file is kept under state/backups/."`
	Rollback     rollbackCmd     `cmd:"" help:"Undo the committed chapters ≥ C (--to C): move their files to staging/rolled-back/, replay the state to C−1, restore memories and foreshadowing (journaled, SPEC §8.4)."`
	Amend        amendCmd        `cmd:"" help:"Replace committed chapter C's summary, changelog line and (when C is its storyline's newest) memory with the re-summarized edited text, then rebuild state and foreshadowing (journaled, SPEC §23)."`
	Backfill     backfillCmd     `cmd:"" help:"Commit the summary, state, memory and foreshadowing of imported chapter C (logs/import.json) as it is: no judge, no gate (journaled, SPEC §23)."`
	Volume       volumeCmd       `cmd:"" help:"Validate the staged volume plan (staging/volumes/vol-VV/) and move it into volumes/vol-VV/ (journaled); enters WRITING (SPEC §6.1)."`
	VolumeReview volumeReviewCmd `cmd:"" name:"volume-review" help:"Keep the staged volume review (staging/volumes/vol-VV/review.md) as volumes/vol-VV/review.md (journaled); enters VOL_PLANNING for volume VV+1 (SPEC §23)."`
	Setup        setupCmd        `cmd:"" help:"Validate a setup step's staged outputs (staging/setup/…) and move them into place (journaled); a differing committed file is E_CONFLICT unless --replace, which keeps it under staging/replaced/ (SPEC §17)."`
}

// Main runs novel-commit.
func Main() int {
	return cli.Main("novel-commit", "Commit a judged chapter into the project (journaled, crash-safe), and rebuild the state from its changelog.", &grammar{})
}

type chapterCmd struct {
	Chapter int  `type:"chapter" name:"chapter" required:"" help:"The chapter to commit (the inflight chapter, last_completed+1)."`
	DryRun  bool `name:"dry-run" help:"Check every precondition and print the plan without writing."`
}

// Run commits the chapter. --text prints what the pipeline prints after a
// commit (SPEC §27): the chapter line, then warnings, dropped ops, lint
// warnings, the 5-chapter brief, the continuity result, the 10-chapter
// reminders and the volume end — an agent committing by hand sees them too.
func (c *chapterCmd) Run(ctx *cli.Context) error {
	var warnings []lint.Check
	if ctx.Globals.Text && !c.DryRun {
		root, s, _, err := ctx.Open()
		if err != nil {
			return err
		}
		// The text is linted before the commit moves it.
		warnings = pipeline.LintWarnings(root, s, c.Chapter)
	}
	return commitChapter(ctx, c.Chapter, c.DryRun, commit.Prepare, func(out *commit.Output) string {
		return strings.Join(pipeline.Feedback(out, warnings), "\n")
	})
}

// commitChapter is the journaled run of a chapter commit and of a
// backfill (which differ only in how the journal is prepared and share
// the commit journal).
func commitChapter(ctx *cli.Context, c int, dry bool, prepare func(commit.Env, int) (*commit.Journal, error), text func(*commit.Output) string) error {
	root, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	env := commit.Env{Root: root, Settings: s, Now: now, Crash: journal.CrashHook(ctx.Getenv)}
	return journal.Command[*commit.Journal, *commit.Output]{
		Kind:    journal.Commit,
		Arg:     strconv.Itoa(c),
		Load:    func() (*commit.Journal, error) { return commit.LoadJournal(root, c) },
		Prepare: func() (*commit.Journal, error) { return prepare(env, c) },
		Plan:    func(j *commit.Journal) ([]journal.PlanStep, *commit.Output) { return j.Plan, &j.Output },
		Read:    func(j *commit.Journal) []byte { return j.Read() },
		Execute: func(j *commit.Journal, fresh bool) (*commit.Output, error) { return commit.Execute(env, j, fresh) },
		Text:    text,
	}.Run(ctx, root, locker(ctx, root, s, c), dry)
}

type rebuildCmd struct {
	Check bool `help:"Only compare the replay with state/current-state.json; exit 1 (E_STATE) naming the first differing path. state/mentions.jsonl is compared with the chapters and reported (mentions), without failing."`
}

func (r *rebuildCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	if r.Check {
		res, err := changelog.Check(root)
		if err != nil {
			return err
		}
		if err := changelog.CheckMentions(root, res); err != nil {
			return err
		}
		ctx.Result(res, func() string {
			line := "ok: state matches the changelog replay (state_version " + strconv.Itoa(res.StateVersion) + ")"
			switch res.Mentions {
			case "differs":
				line += "\n" + layout.Mentions + " differs from the chapters at " + res.MentionsDifference + "; novel-commit rebuild rewrites it"
			case "missing", "partial":
				line += "\n" + layout.Mentions + " is " + res.Mentions + "; novel-commit rebuild completes it"
			}
			return line
		})
		return nil
	}
	_, s, now, err := ctx.Open()
	if err != nil {
		return err
	}
	if err := journal.Blocked(root, journal.Rollback, journal.Commit, journal.Amend); err != nil {
		return err
	}
	release, err := lock.Guard(root, ctx.Getenv, 0, s.LockStaleMinutes)
	if err != nil {
		return err
	}
	defer release()
	res, err := changelog.Rebuild(root, now)
	if err != nil {
		return err
	}
	ctx.Result(res, func() string {
		if !res.Written {
			return "ok: state matches the changelog replay (state_version " + strconv.Itoa(res.StateVersion) + ")"
		}
		line := "rebuilt state_version " + strconv.Itoa(res.StateVersion)
		if len(res.Backups) > 0 {
			line += "; old file kept as " + strings.Join(res.Backups, ", ")
		}
		return line
	})
	return nil
}
