// Package novelmanifest is the command surface of novel-manifest: the
// instruction packet of one step (SPEC §6, §6.1).
package novelmanifest

import (
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

type grammar struct {
	cli.Globals `embed:""`
	Packet      packetCmd `cmd:"" help:"Print the instruction packet of STEP (chapter:NNN:STAGE, volume:VV:plan|contracts|review, setup:STAGE or audit:NNN)."`
}

type packetCmd struct {
	Step          string `arg:"" help:"Step id, e.g. chapter:048:draft or volume:02:plan."`
	WriteManifest bool   `name:"write-manifest" help:"Also write the packet to staging/manifests/ with the write-boundary snapshot."`
	Embed         bool   `help:"Embed every referenced file as a read-only <DATA> block (manifest.embedded)."`
	Role          string `help:"Judge role: primary (default) or secondary (key chapters)." placeholder:"ROLE"`
	Direction     string `help:"The author's direction for a volume plan (volume:VV:plan and :contracts): author_direction in the packet." placeholder:"TEXT"`
	Mode          string `help:"Summarizer variant: amend (an edited committed chapter) or backfill (an imported chapter)." placeholder:"MODE"`
}

func (c *packetCmd) Run(ctx *cli.Context) error {
	plan, err := c.plan()
	if err != nil {
		return err
	}
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	set, err := ctx.Settings()
	if err != nil {
		return err
	}
	p, err := plan.build(root, cp, set)
	if err != nil {
		return err
	}
	if c.WriteManifest {
		// The packet and snapshot are what an in-flight step's boundary
		// check compares against, so they are written under the lock
		// (SPEC §22): the pipeline's token is accepted, a live other
		// holder is E_LOCK_HELD.
		release, err := lock.Guard(root, ctx.Getenv, plan.st.Chapter, set.LockStaleMinutes)
		if err != nil {
			return err
		}
		err = plan.write(root, p)
		release()
		if err != nil {
			return err
		}
	}
	ctx.Result(p, func() string { return text(p) })
	return nil
}

// packetPlan is how the step's packet is built and written, decided from
// the arguments alone (bad ones are refused before the project is read).
type packetPlan struct {
	st    stepid.Step
	build func(*project.Root, *checkpoint.Checkpoint, settings.Settings) (*manifest.Packet, error)
	write func(*project.Root, *manifest.Packet) error
}

func (c *packetCmd) plan() (*packetPlan, error) {
	if strings.HasPrefix(strings.TrimSpace(c.Step), "audit:") {
		// audit:NNN, the continuity-auditor review the agent route's
		// novel next proposes (SPEC §25).
		st, err := stepid.ParseAudit(c.Step)
		if err != nil {
			return nil, err
		}
		if c.Role != "" || c.Direction != "" || c.Mode != "" || c.Embed {
			return nil, cli.UsageError("audit:NNN 不接受 --role、--direction、--mode 或 --embed", "audit:NNN takes no --role, --direction, --mode or --embed")
		}
		return &packetPlan{st: st,
			build: func(root *project.Root, cp *checkpoint.Checkpoint, set settings.Settings) (*manifest.Packet, error) {
				return manifest.BuildAudit(root, cp.CurrentVolume, set, st.Number)
			},
			write: func(root *project.Root, p *manifest.Packet) error { return manifest.Write(root, p, st, "") }}, nil
	}
	st, err := stepid.Parse(c.Step)
	if err != nil {
		return nil, err
	}
	role, err := manifest.NormalizeRole(st, c.Role)
	if err != nil {
		return nil, err
	}
	if c.Direction != "" && !(st.Volume && st.Stage != stepid.Review) {
		return nil, cli.UsageError("--direction 只适用于 volume:VV:plan 和 volume:VV:contracts，不适用于 "+st.String(),
			"--direction applies to volume:VV:plan and volume:VV:contracts only, not "+st.String())
	}
	mode, err := manifest.NormalizeMode(st, c.Mode)
	if err != nil {
		return nil, err
	}
	return &packetPlan{st: st,
		build: func(root *project.Root, cp *checkpoint.Checkpoint, set settings.Settings) (*manifest.Packet, error) {
			return manifest.Build(root, cp, set, st, manifest.Options{Role: role, Mode: mode, Embed: c.Embed, Direction: c.Direction})
		},
		write: func(root *project.Root, p *manifest.Packet) error {
			if mode != "" {
				return manifest.WriteVariant(root, p, st, mode)
			}
			return manifest.Write(root, p, st, role)
		}}, nil
}

// text is the --text form: step, agent and outputs on one line.
func text(p *manifest.Packet) string {
	var outs []string
	for _, o := range p.ExpectedOutputs {
		outs = append(outs, o.Path)
	}
	s := p.Step + " " + p.Agent.Name + "/" + p.Agent.Mode + " → " + strings.Join(outs, " ")
	if p.WrittenManifestPath != "" {
		s += " (" + p.WrittenManifestPath + ")"
	}
	return s
}

// Main runs novel-manifest.
func Main() int {
	return cli.Main("novel-manifest", "Instruction packets for the pipeline's steps: agent, context manifest, expected outputs (SPEC §6).", &grammar{})
}
