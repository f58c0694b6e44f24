// Package novelgate is the command surface of novel-gate (SPEC §7); the
// decision logic lives in internal/gate and the hard gate in
// internal/revision.
package novelgate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/gate"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
)

type grammar struct {
	cli.Globals `embed:""`
	Decide      decideCmd  `cmd:"" help:"Decide pass/polish/revise/review/rewrite for a judged chapter; --apply performs the moves."`
	Check       checkCmd   `cmd:"" help:"Exit 0 when generating the chapter is allowed; exit 3 with the pending-revision payload otherwise."`
	Resolve     resolveCmd `cmd:"" help:"Settle a chapter's pending revision: --accept, --revise, --rejudge or --regen."`
	Pending     pendingCmd `cmd:"" help:"List pending revisions (the smallest one blocks every later chapter)."`
	Show        showCmd    `cmd:"" help:"Show a chapter's revision status, logic review report and gate file."`
}

// Main runs novel-gate.
func Main() int {
	return cli.Main("novel-gate", "novel-gate: the quality gate and the pending-revision hard gate", &grammar{})
}

func env(ctx *cli.Context) (gate.Env, *checkpoint.Checkpoint, error) {
	root, err := ctx.Root()
	if err != nil {
		return gate.Env{}, nil, err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return gate.Env{}, nil, err
	}
	s, err := ctx.Settings()
	if err != nil {
		return gate.Env{}, nil, err
	}
	clk, err := ctx.Clock()
	if err != nil {
		return gate.Env{}, nil, err
	}
	return gate.Env{Root: root, Settings: s, Getenv: ctx.Getenv, Now: clk.Stamp()}, cp, nil
}

type decideCmd struct {
	Chapter int  `type:"chapter" required:"" help:"Chapter to decide." placeholder:"C"`
	Apply   bool `help:"Write the gate file and perform the stage moves (SPEC §7.1); without it nothing is written."`
}

func (c *decideCmd) Run(ctx *cli.Context) error {
	e, cp, err := env(ctx)
	if err != nil {
		return err
	}
	var r *gate.Result
	if c.Apply {
		r, err = gate.Apply(e, c.Chapter)
	} else {
		r, err = gate.Decision(e.Root, cp, e.Settings, c.Chapter)
	}
	if err != nil {
		return err
	}
	ctx.Result(r, func() string {
		next := "-"
		if r.NextStep != nil {
			next = *r.NextStep
		}
		return fmt.Sprintf("chapter:%s gate %s overall %s next %s", layout.Pad(r.Chapter), r.Decision,
			strconv.FormatFloat(r.OverallFinal, 'f', -1, 64), next)
	})
	return nil
}

type checkCmd struct {
	Chapter int `type:"chapter" required:"" help:"Chapter about to be generated." placeholder:"C"`
}

type checkResult struct {
	Chapter        int   `json:"chapter"`
	Allowed        bool  `json:"allowed"`
	BlockedChapter *int  `json:"blocked_chapter"`
	Pending        []int `json:"pending"`
}

func (c *checkCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	if err := revision.Check(root, c.Chapter); err != nil {
		return err
	}
	pend, err := revision.Pending(root)
	if err != nil {
		return err
	}
	res := checkResult{Chapter: c.Chapter, Allowed: true, Pending: []int{}}
	for _, p := range pend {
		res.Pending = append(res.Pending, p.ChapterNumber)
	}
	if len(pend) > 0 {
		b := pend[0].ChapterNumber
		res.BlockedChapter = &b
	}
	ctx.Result(res, func() string { return "allowed chapter:" + layout.Pad(c.Chapter) })
	return nil
}

type resolveCmd struct {
	Chapter int    `type:"chapter" required:"" help:"Chapter whose pending revision to settle." placeholder:"C"`
	Accept  bool   `help:"Accept the chapter as it is; next: commit." xor:"action" required:""`
	Revise  bool   `help:"Let ChapterWriter fix it from the report (a new revision round); next: draft." xor:"action" required:""`
	Rejudge bool   `help:"After a manual edit of the staging chapter: drop everything after the draft; next: summarize." xor:"action" required:""`
	Regen   bool   `help:"Abandon the chapter's staging work (novel-step abandon); next: draft." xor:"action" required:""`
	Note    string `help:"Why (recorded as decision_note)." placeholder:"TEXT"`
}

func (c *resolveCmd) Run(ctx *cli.Context) error {
	action := gate.ActAccept
	switch {
	case c.Revise:
		action = gate.ActRevise
	case c.Rejudge:
		action = gate.ActRejudge
	case c.Regen:
		action = gate.ActRegen
	}
	e, _, err := env(ctx)
	if err != nil {
		return err
	}
	res, err := gate.Resolve(e, c.Chapter, action, c.Note)
	if err != nil {
		return err
	}
	ctx.Result(res, func() string {
		next := "-"
		if res.NextStep != nil {
			next = *res.NextStep
		}
		return fmt.Sprintf("chapter:%s %s → %s next %s", layout.Pad(res.Chapter), res.Action, res.Status, next)
	})
	return nil
}

type pendingCmd struct{}

type pendingItem struct {
	Chapter               int    `json:"chapter"`
	RevisionStatusFile    string `json:"revision_status_file"`
	TriggeredBy           string `json:"triggered_by"`
	RevisionNotes         string `json:"revision_notes"`
	CreatedAt             string `json:"created_at"`
	LogicReviewReportFile string `json:"logic_review_report_file,omitempty"`
}

type pendingResult struct {
	Count          int           `json:"count"`
	BlockedChapter *int          `json:"blocked_chapter"`
	Pending        []pendingItem `json:"pending"`
}

func (pendingCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	pend, err := revision.Pending(root)
	if err != nil {
		return err
	}
	res := pendingResult{Pending: []pendingItem{}}
	for i := range pend {
		p := &pend[i]
		res.Pending = append(res.Pending, pendingItem{Chapter: p.ChapterNumber, RevisionStatusFile: p.File, TriggeredBy: p.TriggeredBy,
			RevisionNotes: p.RevisionNotes, CreatedAt: p.CreatedAt, LogicReviewReportFile: revision.ReportFile(root, p)})
	}
	res.Count = len(res.Pending)
	if res.Count > 0 {
		b := res.Pending[0].Chapter
		res.BlockedChapter = &b
	}
	ctx.Result(res, func() string {
		var b strings.Builder
		for _, p := range res.Pending {
			fmt.Fprintf(&b, "chapter:%s %s %s\n", layout.Pad(p.Chapter), p.TriggeredBy, p.RevisionStatusFile)
		}
		if res.Count == 0 {
			return "no pending revisions"
		}
		return strings.TrimSuffix(b.String(), "\n")
	})
	return nil
}

type showCmd struct {
	Chapter int `type:"chapter" required:"" help:"Chapter to show." placeholder:"C"`
}

type showResult struct {
	Chapter               int            `json:"chapter"`
	RevisionStatusFile    *string        `json:"revision_status_file"`
	Revision              map[string]any `json:"revision"`
	LogicReviewReportFile *string        `json:"logic_review_report_file"`
	LogicReview           any            `json:"logic_review"`
	GateFile              *string        `json:"gate_file"`
	Gate                  *gate.GateFile `json:"gate"`
}

func (c *showCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	res := showResult{Chapter: c.Chapter}
	st, err := revision.Load(root, c.Chapter)
	if err != nil {
		return err
	}
	report := ""
	if st != nil {
		f := st.File
		res.RevisionStatusFile, res.Revision = &f, st.Map()
		report = revision.ReportFile(root, st)
	}
	if report == "" {
		for _, rel := range []string{layout.LogicReview(c.Chapter), layout.StagingLogicReview(c.Chapter)} {
			if root.IsFile(rel) {
				report = rel
				break
			}
		}
	}
	if report != "" && root.IsFile(report) {
		var v any
		if err := readJSON(root, report, &v); err != nil {
			return err
		}
		res.LogicReviewReportFile, res.LogicReview = &report, v
	}
	g, err := gate.LoadGateFile(root, c.Chapter)
	if err != nil {
		return err
	}
	if g != nil {
		f := layout.StagingGate(c.Chapter)
		res.GateFile, res.Gate = &f, g
	}
	ctx.Result(res, nil)
	return nil
}

func readJSON(root *project.Root, rel string, v any) error { return root.ReadJSON(rel, v) }
