// Package setupstep is the project setup of SPEC §17 and §25: the setup
// steps (setup:world, setup:characters, setup:book, setup:style) — which one is next,
// what each must produce under staging/setup/, the validation of those
// outputs and their journaled commit into the project.
package setupstep

import (
	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Staging is where setup outputs are written, mirroring their final paths.
const Staging = layout.StagingSetup

// Final paths the setup steps produce.
const (
	WorldDir   = "world"
	Storylines = layout.Storylines
	// StoryTime is the story clock's opening value (SPEC §25), optional.
	StoryTime      = WorldDir + "/story-time.json"
	StyleSamples   = "style-samples.md"
	SamplesDir     = "style-samples"
	ReplacedDir    = layout.StagingReplaced
	minRules       = 3
	minCharacters  = 2
	roleProtagonst = "protagonist"
)

// StagedPath is the staging path of a final project path.
func StagedPath(final string) string { return Staging + "/" + final }

// PacketPath is where --write-manifest writes the packet of a setup stage.
func PacketPath(stage string) string { return layout.SetupPacket(stage) }

// snapshotPath is the write-boundary snapshot of a setup stage.
func snapshotPath(stage string) string { return layout.SetupSnapshot(stage) }

// Done reports whether the committed products of a setup stage exist:
// world → world/rules.json, storylines/storylines.json and a world/*.md;
// characters → ≥ 2 characters/active/*.json; book → book-plan.json;
// style → style-profile.json.
func Done(root *project.Root, stage string) (bool, error) {
	switch stage {
	case stepid.SetupWorld:
		docs, err := root.List(WorldDir, ".md", false)
		if err != nil {
			return false, err
		}
		return len(docs) > 0 && root.IsFile(layout.WorldRules) && root.IsFile(Storylines), nil
	case stepid.SetupCharacters:
		cs, err := root.List(layout.CharactersActive, ".json", false)
		return len(cs) >= minCharacters, err
	case stepid.SetupBook:
		return root.IsFile(bookplan.File), nil
	}
	return root.IsFile(layout.StyleProfile), nil
}

// Next is the first setup stage whose committed products are missing
// ("" when all are done).
func Next(root *project.Root) (string, error) {
	for _, st := range stepid.SetupStages {
		done, err := Done(root, st)
		if err != nil || !done {
			return st, err
		}
	}
	return "", nil
}

// NextAfter is the step that follows committing stage: the next setup
// step whose products are missing, else the first volume plan while the
// project is still in QUICK_START, else novel-step next's business.
func NextAfter(root *project.Root, stage string, quickStart bool) (string, error) {
	for _, st := range stepid.SetupStages {
		if st == stage {
			continue
		}
		done, err := Done(root, st)
		if err != nil {
			return "", err
		}
		if !done {
			return stepid.Setup(st).String(), nil
		}
	}
	if quickStart {
		return "volume:01:plan", nil
	}
	return "novel-step next", nil
}
