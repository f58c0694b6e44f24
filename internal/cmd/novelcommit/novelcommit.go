// Package novelcommit is the command surface of novel-commit.
package novelcommit

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
	return errs.New(errs.Usage, "novel-commit 尚未实现", "novel-commit is not built yet")
}

// Main runs novel-commit.
func Main() int { return cli.Main("novel-commit", "novel-commit (under construction)", &grammar{}) }
