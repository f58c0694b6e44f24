package novelagent

import (
	"strconv"

	"github.com/novelsuite/novel/internal/cli"
)

type amendCmd struct {
	Chapter int    `name:"chapter" type:"chapter" required:"" help:"The committed chapter the author edited."`
	Agent   string `required:"" help:"Executor command; run as AGENT PACKET_PATH in the project root."`
}

func (c *amendCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Amend(c.Chapter, c.Agent)
	if err != nil {
		return err
	}
	ctx.Result(o, func() string { return "第 " + strconv.Itoa(c.Chapter) + " 章已按修改后的正文修订" })
	return nil
}

type backfillCmd struct {
	Agent string `required:"" help:"Executor command; run as AGENT PACKET_PATH in the project root."`
}

func (c *backfillCmd) Run(ctx *cli.Context) error {
	e, err := env(ctx)
	if err != nil {
		return err
	}
	o, err := e.Backfill(c.Agent)
	if err != nil {
		return err
	}
	ctx.Result(o, func() string { return "已回填 " + strconv.Itoa(len(o.Chapters)) + " 章导入的章节" })
	return nil
}
