// Package novelagent is the command surface of novel-agent.
package novelagent

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
	return errs.New(errs.Usage, "novel-agent 尚未实现", "novel-agent is not built yet")
}

// Main runs novel-agent.
func Main() int { return cli.Main("novel-agent", "novel-agent (under construction)", &grammar{}) }
