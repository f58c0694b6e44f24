// Package novelforeshadow is the command surface of novel-foreshadow.
package novelforeshadow

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
	return errs.New(errs.Usage, "novel-foreshadow 尚未实现", "novel-foreshadow is not built yet")
}

// Main runs novel-foreshadow.
func Main() int { return cli.Main("novel-foreshadow", "novel-foreshadow (under construction)", &grammar{}) }
