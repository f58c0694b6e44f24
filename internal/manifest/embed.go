package manifest

import (
	"fmt"
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
// estimate and budget, drops the voice inputs when over budget (profiles,
// then samples) and flags what is still over (never cutting anything
// else), and embeds it when asked.
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
	h := Header{Step: b.p.Step, Agent: b.p.Agent.Name, Mode: b.p.Agent.Mode, Chapter: chapter, Round: b.p.RevisionRound}
	role := BudgetRole(b.p.Agent.Name, b.p.Agent.Mode)
	b.p.Budget = b.set.Budget(role)
	est := estimate(blocks, h, header)
	// Over budget, the voice inputs go first (profiles, then samples, SPEC
	// §24); they come from inline values, so only their blocks are dropped.
	profiles, samples := 0, false
	for b.p.Budget > 0 && est.Tokens > b.p.Budget {
		var typ string
		switch shed(b.in) {
		case keyProfiles:
			typ, profiles = typeProfile, profiles+1
		case keySamples:
			typ, samples = typeStyleSample, true
		}
		if typ == "" {
			break
		}
		blocks = dropLast(blocks, typ)
		est = estimate(blocks, h, header)
	}
	if profiles > 0 || samples {
		zh, en := fmt.Sprintf("去掉了 %d 份人物档案", profiles), fmt.Sprintf("dropped %d character profiles", profiles)
		switch {
		case samples && profiles > 0:
			zh, en = zh+"和文风样本", en+" and the style samples"
		case samples:
			zh, en = "去掉了文风样本", "dropped the style samples"
		}
		b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("指令包超出 %s 预算，%s（settings.json context.budget_tokens.%s） / the packet was over the %s budget: %s (settings.json context.budget_tokens.%s)",
			role, zh, role, role, en, role))
	}
	var dropped []string
	for b.p.Budget > 0 && est.Tokens > b.p.Budget && len(b.sheddable) > 0 {
		key := b.sheddable[0]
		b.sheddable = b.sheddable[1:]
		v, ok := b.ps.Get(key)
		if !ok {
			continue
		}
		b.ps.Delete(key)
		dropped = append(dropped, key)
		for _, rel := range pathList(v) {
			blocks = dropSource(blocks, rel)
		}
		est = estimate(blocks, h, header)
	}
	if len(dropped) > 0 {
		b.warn("指令包超出 %s 预算，去掉了 %s（settings.json context.budget_tokens.%s）",
			"the packet was over the %s budget: dropped %s (settings.json context.budget_tokens.%s)", role, strings.Join(dropped, ", "), role)
	}
	b.p.Estimate = &est
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

func estimate(blocks []Block, h Header, header *OMap) Estimate {
	wrapped := make([]string, len(blocks))
	for i, bl := range blocks {
		wrapped[i] = bl.Wrap()
	}
	return EstimateText(Render(wrapped, h, header))
}

// dropLast removes the last block of type typ.
func dropLast(blocks []Block, typ string) []Block {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == typ {
			return append(blocks[:i:i], blocks[i+1:]...)
		}
	}
	return blocks
}

// dropSource removes the block of file rel.
func dropSource(blocks []Block, rel string) []Block {
	out := blocks[:0:0]
	for _, bl := range blocks {
		if bl.Source != rel {
			out = append(out, bl)
		}
	}
	return out
}

var closeTag = strings.NewReplacer("</DATA", "<\\/DATA")

// WrapData wraps file content as a read-only DATA block; executors that
// render prompts themselves use it too, so both paths wrap identically.
func WrapData(kind, source, content string) string {
	return `<DATA type="` + kind + `" source="` + source + `" readonly="true">` + closeTag.Replace(content) + `</DATA>`
}

// PacketPath is where --write-manifest puts the packet of st and role.
func PacketPath(st stepid.Step, role string) string {
	if st.Stage == stepid.Audit {
		return layout.AuditPacket(st.Number)
	}
	if st.Setup {
		return layout.SetupPacket(st.Stage)
	}
	if st.Volume {
		return layout.VolumeStepPacket(st.Number, st.Stage)
	}
	return layout.Packet(st.Chapter, boundary.PacketStage(st, role))
}

// Write records the write-boundary snapshot (agent steps) and then writes
// the packet to staging/manifests/, setting written_manifest_path. An
// audit step has no snapshot: it is no checkpoint step that novel-step
// validates, and novel-agent apply writes only its declared outputs.
func Write(root *project.Root, p *Packet, st stepid.Step, role string) error {
	rel := PacketPath(st, role)
	if _, err := root.Abs(rel); err != nil {
		return err
	}
	p.WrittenManifestPath = rel
	if p.Agent.Kind == KindAgent && st.Stage != stepid.Audit {
		if err := boundary.Record(root, st, role); err != nil {
			return err
		}
	}
	return root.WriteJSON(rel, p)
}

func sortStrings(s []string) { sort.Strings(s) }
