package manifest

import (
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// embed fills manifest.embedded with the Assemble blocks, static first,
// and leaves in inline only the per-step header (the values a block
// carries are not repeated). A "</DATA" inside a file is neutralised so
// content can never close its own block.
func (b *builder) embed(blocks []Block, header *OMap) {
	out := make([]string, len(blocks))
	for i, bl := range blocks {
		out[i] = bl.Wrap()
	}
	b.p.Manifest.Embedded = out
	b.p.Manifest.Inline = header
	b.in = header
}

// measure assembles the rendered form of an agent packet, records its
// estimate and budget, flags it over budget (never cutting it), and embeds
// it when asked.
func (b *builder) measure() error {
	if b.p.Agent.Kind != KindAgent && !b.opt.Embed {
		return nil // a deterministic step sends nothing to a model
	}
	chapter := 0
	if b.p.Chapter != nil {
		chapter = *b.p.Chapter
	}
	blocks, header, warns, err := Assemble(b.root, chapter, b.p.Volume, b.in, b.ps, !b.opt.Embed)
	if err != nil {
		return err
	}
	b.p.Warnings = append(b.p.Warnings, warns...)
	if b.p.Agent.Kind != KindAgent {
		if b.opt.Embed {
			b.embed(blocks, header)
		}
		return nil
	}
	wrapped := make([]string, len(blocks))
	for i, bl := range blocks {
		wrapped[i] = bl.Wrap()
	}
	h := Header{Step: b.p.Step, Agent: b.p.Agent.Name, Mode: b.p.Agent.Mode, Chapter: chapter, Round: b.p.RevisionRound}
	est := EstimateText(Render(wrapped, h, header))
	role := BudgetRole(b.p.Agent.Name, b.p.Agent.Mode)
	b.p.Estimate, b.p.Budget = &est, b.set.Budget(role)
	if b.p.Budget > 0 && est.Tokens > b.p.Budget {
		b.p.OverBudget = true
		b.warn("指令包约 %d token，超出 %s 预算 %d（settings.json context.budget_tokens.%s）；内容未截断",
			"the packet is about %d tokens, over the %s budget of %d (settings.json context.budget_tokens.%s); nothing was cut",
			est.Tokens, role, b.p.Budget, role)
	}
	if b.opt.Embed {
		b.embed(blocks, header)
	}
	return nil
}

var closeTag = strings.NewReplacer("</DATA", "<\\/DATA")

// WrapData wraps file content as a read-only DATA block; executors that
// render prompts themselves use it too, so both paths wrap identically.
func WrapData(kind, source, content string) string {
	return `<DATA type="` + kind + `" source="` + source + `" readonly="true">` + closeTag.Replace(content) + `</DATA>`
}

// PacketPath is where --write-manifest puts the packet of st and role.
func PacketPath(st stepid.Step, role string) string {
	if st.Setup {
		return layout.SetupPacket(st.Stage)
	}
	if st.Volume {
		return layout.VolumeStepPacket(st.Number, st.Stage)
	}
	return layout.Packet(st.Chapter, boundary.PacketStage(st, role))
}

// Write records the write-boundary snapshot (agent steps) and then writes
// the packet to staging/manifests/, setting written_manifest_path.
func Write(root *project.Root, p *Packet, st stepid.Step, role string) error {
	rel := PacketPath(st, role)
	if _, err := root.Abs(rel); err != nil {
		return err
	}
	p.WrittenManifestPath = rel
	if p.Agent.Kind == KindAgent {
		if err := boundary.Record(root, st, role); err != nil {
			return err
		}
	}
	return root.WriteJSON(rel, p)
}

func sortStrings(s []string) { sort.Strings(s) }
