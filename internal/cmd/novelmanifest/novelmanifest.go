// Package novelmanifest is the command surface of novel-manifest.
package novelmanifest

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
	return errs.New(errs.Usage, "novel-manifest 尚未实现", "novel-manifest is not built yet")
}

// Main runs novel-manifest.
func Main() int { return cli.Main("novel-manifest", "novel-manifest (under construction)", &grammar{}) }
