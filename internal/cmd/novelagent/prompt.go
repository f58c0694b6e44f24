package novelagent

import (
	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/manifest"
)

// promptCmd prints the messages a live backend sends for a packet, for
// an agent run by hand (the Claude Code skill's manual route): the role
// prompt with its output format, then the context in the one packet
// order. It needs no model settings and calls nothing.
type promptCmd struct {
	Packet string `arg:"" help:"Instruction packet, e.g. staging/manifests/chapter-001-judge.packet.json." placeholder:"PACKET_PATH"`
}

type promptOut struct {
	Step     string            `json:"step"`
	Agent    string            `json:"agent"`
	Mode     string            `json:"mode"`
	System   string            `json:"system"`
	User     string            `json:"user"`
	Estimate manifest.Estimate `json:"estimate"`
}

func (c *promptCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	p, err := loadPacket(ctx, c.Packet)
	if err != nil {
		return err
	}
	msgs, err := agent.RenderPrompt(root, p, nil, "")
	if err != nil {
		return err
	}
	out := promptOut{Step: p.Step, Agent: p.Agent.Name, Mode: p.Agent.Mode, System: msgs[0].Content, User: msgs[1].Content,
		Estimate: manifest.EstimateText(msgs[1].Content)}
	ctx.Result(out, func() string {
		return "<!-- system -->\n" + out.System + "\n\n<!-- user -->\n" + out.User
	})
	return nil
}
