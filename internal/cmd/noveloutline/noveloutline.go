// Package noveloutline is the command surface of novel-outline.
package noveloutline

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
	return errs.New(errs.Usage, "novel-outline 尚未实现", "novel-outline is not built yet")
}

// Main runs novel-outline.
func Main() int { return cli.Main("novel-outline", "novel-outline (under construction)", &grammar{}) }
