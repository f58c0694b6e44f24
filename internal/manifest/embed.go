package manifest

import (
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// embedKinds maps a paths key to its <DATA type> (SPEC §6).
var embedKinds = map[string]string{
	"project_brief":           "brief",
	"volume_outline":          "outline",
	"previous_volume_outline": "outline",
	"chapter_contract":        "outline",
	"recent_summaries":        "summary",
	"summary":                 "summary",
	"chapter_draft":           "chapter_content",
	"character_contracts":     "character_profile",
	"character_profiles":      "character_profile",
	"world_rules":             "world_doc",
	"storyline_spec":          "world_doc",
	"style_profile":           "style_sample",
	"ai_blacklist":            "style_sample",
	"style_drift":             "style_sample",
	"storyline_memory":        "memory",
	"adjacent_memories":       "memory",
	"storyline_memories":      "memory",
	"research":                "research",
	"world_docs":              "world_doc",
	"storylines":              "world_doc",
	"style_samples":           "style_sample",
	"staged_outline":          "outline",
	"volume_summaries":        "summary",
}

// DataKind is the DATA type of a paths key; the rest (state, evals, gate
// and review files, crossref, delta) are state.
func DataKind(key string) string {
	if k, ok := embedKinds[key]; ok {
		return k
	}
	return "state"
}

// embed adds manifest.embedded: each referenced file, in paths order,
// wrapped as a read-only DATA block. A "</DATA" inside a file is
// neutralised so content can never close its own block.
func (b *builder) embed() error {
	out := []string{}
	seen := map[string]bool{}
	for _, key := range b.ps.Keys() {
		v, _ := b.ps.Get(key)
		var rels []string
		switch x := v.(type) {
		case string:
			rels = []string{x}
		case []string:
			rels = x
		}
		for _, rel := range rels {
			if seen[rel] || !b.root.IsFile(rel) {
				continue
			}
			seen[rel] = true
			text, err := b.root.ReadText(rel)
			if err != nil {
				return err
			}
			out = append(out, WrapData(DataKind(key), rel, text))
		}
	}
	b.p.Manifest.Embedded = out
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
