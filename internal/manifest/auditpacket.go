package manifest

import (
	"github.com/novelsuite/novel/internal/audit"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// AuditPacket is the instruction packet of audit:NNN, the optional
// continuity-auditor review of the window a commit's continuity audit
// covered (SPEC §21). Inline: the window and the deterministic report
// (deterministic_findings, the shape the auditor answers in); DATA: the
// window's chapters and summaries, the state, the world rules, the
// foreshadowing and the volume's storyline schedule, whichever exist. The
// answer goes to one staging file; the pipeline checks it
// (audit.ParseReview) and stores it as logs/continuity/agent-report-NNN.json.
func AuditPacket(root *project.Root, det *audit.Report, vol int) *Packet {
	from, to := det.ChapterRange[0], det.ChapterRange[1]
	st := stepid.AuditStep(to)
	in, ps := &OMap{}, &OMap{}
	in.Set("chapter_range", det.ChapterRange)
	in.Set("deterministic_findings", det)
	var chapters, summaries []string
	for c := from; c <= to; c++ {
		if root.Exists(layout.Chapter(c)) {
			chapters = append(chapters, layout.Chapter(c))
		}
		if root.Exists(layout.Summary(c)) {
			summaries = append(summaries, layout.Summary(c))
		}
	}
	ps.Set("chapters", chapters)
	ps.Set("summaries", summaries)
	for _, f := range []struct{ key, rel string }{{"current_state", layout.CurrentState}, {"world_rules", layout.WorldRules},
		{"foreshadowing", layout.GlobalForeshadow}, {"storyline_schedule", layout.Schedule(vol)}} {
		if root.Exists(f.rel) {
			ps.Set(f.key, f.rel)
		}
	}
	c := to
	return &Packet{Version: Version, Step: st.String(), Chapter: &c, Volume: vol,
		Agent:           Agent{Name: st.Agent(), Kind: KindAgent, Mode: stepid.Audit},
		Manifest:        Manifest{Inline: in, Paths: ps},
		ExpectedOutputs: []Output{{Path: layout.StagingAuditReview(to), Required: true, Via: "file"}},
		Warnings:        []string{}, Next: []string{}}
}
