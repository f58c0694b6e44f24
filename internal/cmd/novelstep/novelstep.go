// Package novelstep is the command surface of novel-step.
package novelstep

import (
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
)

type grammar struct {
	cli.Globals `embed:""`
	Placeholder placeholderCmd `cmd:"" hidden:""`
}

type placeholderCmd struct{}

func (placeholderCmd) Run(ctx *cli.Context) error {
	return errs.New(errs.Usage, "novel-step 尚未实现", "novel-step is not built yet")
}

// Main runs novel-step.
func Main() int { return cli.Main("novel-step", "novel-step (under construction)", &grammar{}) }
