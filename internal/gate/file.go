package gate

import (
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// GateFile is staging/evaluations/chapter-NNN-gate.json: the full result
// plus what happened to it afterwards.
type GateFile struct {
	Result
	// OriginalDecision is the gate's own decision once resolve --accept
	// or a polish replaced it.
	OriginalDecision string `json:"original_decision,omitempty"`
	Polished         bool   `json:"polished"`
	DecidedAt        string `json:"decided_at"`
	ResolvedAt       string `json:"resolved_at,omitempty"`
	ResolveNote      string `json:"resolve_note,omitempty"`
}

// Settled reports whether the file records a final outcome that a new
// decide must not overturn: an accepted pause or a finished polish.
func (g *GateFile) Settled() bool {
	return g.Decision == Accepted || (g.Decision == Pass && g.Polished)
}

// Committable reports whether commit may take the chapter.
func (g *GateFile) Committable() bool { return g.Decision == Pass || g.Decision == Accepted }

var decisions = []string{Pass, Polish, Revise, Review, Rewrite, Accepted}

// ParseGateFile decodes a gate file of chapter c.
func ParseGateFile(data []byte, rel string, c int) (*GateFile, error) {
	var g GateFile
	if err := jsonio.Decode(data, rel, &g); err != nil {
		return nil, err
	}
	ok := false
	for _, d := range decisions {
		ok = ok || g.Decision == d
	}
	if !ok {
		return nil, errs.Newf(errs.Schema, "%s：decision %q 未知（可选 pass polish revise review rewrite accepted）",
			"%s: decision %q is unknown (one of pass polish revise review rewrite accepted)", rel, g.Decision).
			With("file", rel).With("field", "decision").
			Hint("删除该门控文件后重新运行 novel-gate decide --chapter "+strconv.Itoa(c)+" --apply",
				"delete the gate file and run novel-gate decide --chapter "+strconv.Itoa(c)+" --apply again")
	}
	if g.Chapter != c {
		return nil, errs.Newf(errs.Schema, "%s：chapter 为 %d，应为 %d", "%s: chapter is %d, want %d", rel, g.Chapter, c).
			With("file", rel).With("field", "chapter").
			Hint("删除该门控文件后重新运行 novel-gate decide", "delete the gate file and run novel-gate decide again")
	}
	return &g, nil
}

// LoadGateFile reads chapter c's staging gate file; nil, nil when missing.
func LoadGateFile(root *project.Root, c int) (*GateFile, error) {
	return loadGateAt(root, layout.StagingGate(c), c)
}

// RequireGateFile reads chapter c's staging gate file; a missing one is
// E_MISSING_FILE naming the decide --apply run that writes it.
func RequireGateFile(root *project.Root, c int) (*GateFile, error) {
	g, err := LoadGateFile(root, c)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errs.Newf(errs.MissingFile, "缺少门控文件 %s", "missing gate file %s", layout.StagingGate(c)).
			With("file", layout.StagingGate(c)).
			Hint("先运行 novel-gate decide --chapter "+strconv.Itoa(c)+" --apply", "run novel-gate decide --chapter "+strconv.Itoa(c)+" --apply first")
	}
	return g, nil
}

func loadGateAt(root *project.Root, rel string, c int) (*GateFile, error) {
	if !root.Exists(rel) {
		return nil, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return ParseGateFile(data, rel, c)
}

// saveGateFile writes chapter g.Chapter's staging gate file.
func saveGateFile(root *project.Root, g *GateFile) error {
	return root.WriteJSON(layout.StagingGate(g.Chapter), g)
}

// MarkPolished records a finished polish (advance chapter:C:polish): the
// decision becomes pass with polished:true, keeping the original. It is a
// no-op when already recorded.
func MarkPolished(root *project.Root, c int) error {
	g, err := RequireGateFile(root, c)
	if err != nil {
		return err
	}
	if g.Decision == Pass && g.Polished {
		return nil
	}
	if g.OriginalDecision == "" {
		g.OriginalDecision = g.Decision
	}
	g.Decision, g.Polished = Pass, true
	g.NextStep = nextStep(c, Pass)
	return saveGateFile(root, g)
}
