package novelagent

import (
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/pipeline"
)

// errorCmd reports pipeline.mk's own refusals through the one error
// envelope (valid JSON whatever the values, in the project's language);
// it always exits non-zero with the error's exit code.
type errorCmd struct {
	BadNumber  badNumberCmd  `cmd:"" help:"A make variable (C, N, V) that is not a decimal 1..999999 (E_USAGE)."`
	LockedOnly lockedOnlyCmd `cmd:"" help:"An inner target run without novel-lock run (E_USAGE)."`
	NoVolume   noVolumeCmd   `cmd:"" help:"The volume target without V (E_USAGE)."`
	NoChapter  noChapterCmd  `cmd:"" help:"No chapter could be planned: the planner's own error, else E_NO_PROJECT."`
	Rounds     roundsCmd     `cmd:"" help:"A chapter still unfinished after MAX_ROUNDS rounds (E_STATE, exit 1)."`
	PlanFailed planFailedCmd `cmd:"" help:"The volume planner failed twice (E_AGENT)."`
}

type badNumberCmd struct {
	Variable string `required:"" help:"The make variable (C, N or V)."`
	Value    string `required:"" help:"Its value as given (pass it as --value=VALUE)."`
}

func (c *badNumberCmd) Run(*cli.Context) error { return pipeline.BadNumber(c.Variable, c.Value) }

type lockedOnlyCmd struct {
	Target string `required:"" help:"The inner target."`
}

func (c *lockedOnlyCmd) Run(*cli.Context) error { return pipeline.LockedOnly(c.Target) }

type noVolumeCmd struct{}

func (noVolumeCmd) Run(*cli.Context) error { return pipeline.NoVolume() }

type noChapterCmd struct{}

func (noChapterCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Project()
	if err != nil {
		return err
	}
	e, err := env(ctx)
	if err != nil {
		return err
	}
	if _, err := e.PlanFor(0); err != nil {
		return err
	}
	return pipeline.NoChapter(root.Dir)
}

type roundsCmd struct {
	Chapter int `type:"chapter" required:"" help:"The chapter."`
	Rounds  int `required:"" help:"How many rounds ran."`
}

func (c *roundsCmd) Run(*cli.Context) error { return pipeline.RoundsExhausted(c.Chapter, c.Rounds) }

type planFailedCmd struct {
	Volume int    `type:"volume" required:"" help:"The volume."`
	Packet string `required:"" help:"The planner's packet."`
}

func (c *planFailedCmd) Run(*cli.Context) error { return pipeline.PlanAgentFailed(c.Volume, c.Packet) }
