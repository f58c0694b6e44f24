// Package novellock is the command surface of novel-lock.
package novellock

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
	return errs.New(errs.Usage, "novel-lock 尚未实现", "novel-lock is not built yet")
}

// Main runs novel-lock.
func Main() int { return cli.Main("novel-lock", "novel-lock (under construction)", &grammar{}) }
