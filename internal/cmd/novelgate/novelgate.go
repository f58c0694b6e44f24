// Package novelgate is the command surface of novel-gate.
package novelgate

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
	return errs.New(errs.Usage, "novel-gate 尚未实现", "novel-gate is not built yet")
}

// Main runs novel-gate.
func Main() int { return cli.Main("novel-gate", "novel-gate (under construction)", &grammar{}) }
