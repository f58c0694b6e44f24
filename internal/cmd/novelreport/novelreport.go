// Package novelreport is the command surface of novel-report.
package novelreport

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
	return errs.New(errs.Usage, "novel-report 尚未实现", "novel-report is not built yet")
}

// Main runs novel-report.
func Main() int { return cli.Main("novel-report", "novel-report (under construction)", &grammar{}) }
