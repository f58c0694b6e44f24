// Package report collects a novel project's health into one deterministic
// value (SPEC §12): headline numbers, per-chapter scores, gate outcomes
// and word counts, foreshadowing spans, storyline rotation, pending
// revisions and the latest logic reviews. Renderers turn it into a
// self-contained HTML page, Markdown tables or JSON.
package report

import (
	"math"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/volume"
)

// schemaVersion is the version of the JSON document.
const schemaVersion = 1

// Gate outcome markers of a committed chapter, in the order the charts'
// legends show them. A chapter gets exactly one: force_passed beats
// accepted beats revise (went through ≥ 1 revision round) beats polish.
const (
	MarkPass        = "pass"
	MarkPolish      = "polish"
	MarkRevise      = "revise"
	MarkForcePassed = "force_passed"
	MarkAccepted    = "accepted"
	MarkUnknown     = "unknown"
)

// Markers lists the markers in legend order.
var Markers = []string{MarkPass, MarkPolish, MarkRevise, MarkForcePassed, MarkAccepted, MarkUnknown}

// markerRank orders markers by how much attention they need (a bucket
// shows its most severe chapter).
func markerRank(m string) int {
	switch m {
	case MarkForcePassed:
		return 5
	case MarkAccepted:
		return 4
	case MarkRevise:
		return 3
	case MarkPolish:
		return 2
	case MarkPass:
		return 1
	}
	return 0
}

// Report is everything the renderers show. Field order is the JSON order.
type Report struct {
	SchemaVersion    int                 `json:"schema_version"`
	Title            string              `json:"title"`
	Headline         Headline            `json:"headline"`
	GateThresholds   settings.Thresholds `json:"gate_thresholds"`
	Chapters         []Chapter           `json:"chapters"`
	OtherRuns        *OtherRuns          `json:"other_runs,omitempty"`
	Volumes          []Volume            `json:"volumes"`
	Storylines       []Storyline         `json:"storylines"`
	Foreshadowing    Foreshadowing       `json:"foreshadowing"`
	PendingRevisions []PendingRevision   `json:"pending_revisions"`
	LogicReviews     []LogicReview       `json:"logic_reviews"`
	Warnings         []string            `json:"warnings"`
}

// GateCounts counts committed chapters per marker.
type GateCounts struct {
	Pass        int `json:"pass"`
	Polish      int `json:"polish"`
	Revise      int `json:"revise"`
	ForcePassed int `json:"force_passed"`
	Accepted    int `json:"accepted"`
	Unknown     int `json:"unknown"`
}

func (g *GateCounts) add(marker string) {
	switch marker {
	case MarkPass:
		g.Pass++
	case MarkPolish:
		g.Polish++
	case MarkRevise:
		g.Revise++
	case MarkForcePassed:
		g.ForcePassed++
	case MarkAccepted:
		g.Accepted++
	default:
		g.Unknown++
	}
}

// Headline holds the numbers shown at the top of the report (and by
// `novel-step status --text`).
type Headline struct {
	ChaptersCommitted    int        `json:"chapters_committed"`
	TotalWords           int        `json:"total_words"`
	MeanScore            *float64   `json:"mean_score"`
	StateVersion         int        `json:"state_version"`
	CurrentVolume        int        `json:"current_volume"`
	OrchestratorState    string     `json:"orchestrator_state"`
	PipelineStage        *string    `json:"pipeline_stage"`
	InflightChapter      *int       `json:"inflight_chapter"`
	RevisionsTotal       int        `json:"revisions_total"`
	PendingRevisions     int        `json:"pending_revisions"`
	ForeshadowingOpen    int        `json:"foreshadowing_open"`
	ForeshadowingOverdue int        `json:"foreshadowing_overdue"`
	Gate                 GateCounts `json:"gate"`
	// Usage totals over the committed chapters and the other agent runs
	// (OtherRuns): tokens per kind (null when no log reports it), cost per currency (never converted;
	// null when nothing was priced), and the answered requests the cost
	// misses.
	Requests         int           `json:"requests"`
	Tokens           runlog.Tokens `json:"tokens"`
	Cost             runlog.Cost   `json:"cost"`
	UnpricedRequests int           `json:"unpriced_requests"`
	// EstimatedRequests counts requests whose usage was estimated (SPEC
	// §26): their cost is approximate.
	EstimatedRequests int `json:"estimated_requests,omitempty"`
}

// Chapter is one committed chapter.
type Chapter struct {
	Chapter          int      `json:"chapter"`
	Volume           *int     `json:"volume"`
	Title            string   `json:"title"`
	StorylineID      string   `json:"storyline_id"`
	WordCount        int      `json:"word_count"`
	Overall          *float64 `json:"overall"`
	SecondaryOverall *float64 `json:"secondary_overall"`
	OverallFinal     *float64 `json:"overall_final"`
	GateDecision     string   `json:"gate_decision"`
	OriginalDecision string   `json:"original_decision,omitempty"`
	Revisions        int      `json:"revisions"`
	ForcePassed      bool     `json:"force_passed"`
	Polished         bool     `json:"polished"`
	Marker           string   `json:"marker"`
	// Usage from the chapter log (SPEC §18): every model request of the
	// chapter, re-asks and failed attempts included.
	Requests         int           `json:"requests"`
	Tokens           runlog.Tokens `json:"tokens"`
	Cost             runlog.Cost   `json:"cost"`
	UnpricedRequests int           `json:"unpriced_requests"`
	// EstimatedRequests counts requests whose usage was estimated (SPEC
	// §26): their cost is approximate.
	EstimatedRequests int `json:"estimated_requests,omitempty"`
}

// OtherRuns are the agent runs that are not chapter stages (SPEC §18,
// logs/steps-run.jsonl): setup, volume plans, contracts and reviews,
// amend/backfill summaries, the continuity auditor. Totals as in a
// chapter log; Steps has one row per step and mode (its attempts and
// repeated runs added up), in first-run order. Absent when there is none.
type OtherRuns struct {
	Requests         int           `json:"requests"`
	Tokens           runlog.Tokens `json:"tokens"`
	Cost             runlog.Cost   `json:"cost"`
	UnpricedRequests int           `json:"unpriced_requests"`
	// EstimatedRequests: see Headline.
	EstimatedRequests int            `json:"estimated_requests,omitempty"`
	Steps             []runlog.Stage `json:"steps"`
}

// Volume summarises one planned volume.
type Volume struct {
	Volume            int      `json:"volume"`
	Start             *int     `json:"start"`
	End               *int     `json:"end"`
	ChaptersCommitted int      `json:"chapters_committed"`
	Words             int      `json:"words"`
	MeanScore         *float64 `json:"mean_score"`
	Dormant           []string `json:"dormant_storylines"`
}

// Storyline summarises one storyline's rotation.
type Storyline struct {
	ID           string `json:"id"`
	Chapters     int    `json:"chapters"`
	FirstChapter *int   `json:"first_chapter"`
	LastChapter  *int   `json:"last_chapter"`
	Dormant      bool   `json:"dormant"`
}

// Foreshadowing is the fact layer (foreshadowing/global.json) as spans.
type Foreshadowing struct {
	Total        int        `json:"total"`
	Open         int        `json:"open"`
	Resolved     int        `json:"resolved"`
	OverdueShort int        `json:"overdue_short"`
	Items        []SpanItem `json:"items"`
}

// SpanItem is one foreshadowing item with where its span starts and ends.
type SpanItem struct {
	ID                 string `json:"id"`
	Description        string `json:"description"`
	Scope              string `json:"scope"`
	Status             string `json:"status"`
	PlantedChapter     *int   `json:"planted_chapter"`
	ResolvedChapter    *int   `json:"resolved_chapter"`
	TargetResolveRange []int  `json:"target_resolve_range"`
	LastUpdatedChapter *int   `json:"last_updated_chapter"`
	Overdue            bool   `json:"overdue"`
}

// PendingRevision is one pending revision file.
type PendingRevision struct {
	Chapter               int    `json:"chapter"`
	TriggeredBy           string `json:"triggered_by"`
	RevisionNotes         string `json:"revision_notes"`
	CreatedAt             string `json:"created_at"`
	File                  string `json:"file"`
	LogicReviewReportFile string `json:"logic_review_report_file,omitempty"`
	ObservedScore         *int   `json:"observed_score,omitempty"`
	MinScore              *int   `json:"min_score,omitempty"`
	HighIssuesCount       *int   `json:"high_issues_count,omitempty"`
}

// LogicReview is one committed logic-review report (reviews/).
type LogicReview struct {
	Chapter      int    `json:"chapter"`
	OverallScore int    `json:"overall_score"`
	Issues       int    `json:"issues"`
	High         int    `json:"high"`
	Medium       int    `json:"medium"`
	Low          int    `json:"low"`
	Blocking     bool   `json:"blocking"`
	Summary      string `json:"summary"`
	File         string `json:"file"`
}

// maxLogicReviews is how many of the latest logic reviews are reported.
const maxLogicReviews = 10

// Collect reads the project once and builds the report. Inputs that are
// malformed (an eval, a log, the state, a revision file) are errors naming
// the file; missing optional inputs are defaults.
func Collect(root *project.Root, s settings.Settings) (*Report, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	r := &Report{SchemaVersion: schemaVersion, GateThresholds: s.GateThresholds,
		Chapters: []Chapter{}, Volumes: []Volume{}, Storylines: []Storyline{},
		PendingRevisions: []PendingRevision{}, LogicReviews: []LogicReview{}, Warnings: []string{}}
	r.Title = briefTitle(root)
	vols, err := loadVolumes(root, cp.CurrentVolume)
	if err != nil {
		return nil, err
	}
	if err := r.collectChapters(root, cp.LastCompleted, vols); err != nil {
		return nil, err
	}
	r.collectOtherRuns(root)
	if err := r.collectHeadline(root, cp); err != nil {
		return nil, err
	}
	r.collectVolumes(vols)
	r.collectStorylines(vols, cp.CurrentVolume)
	if err := r.collectForeshadowing(root, cp.LastCompleted); err != nil {
		return nil, err
	}
	if err := r.collectRevisions(root); err != nil {
		return nil, err
	}
	if err := r.collectLogicReviews(root, s.LogicReviewMinScore); err != nil {
		return nil, err
	}
	return r, nil
}

// HeadlineOf computes only the headline numbers (what `novel-step status
// --text` shows): it reads the checkpoint, the state version, every
// committed eval and chapter log, the steps run log, the foreshadowing fact layer and the
// revision files — but no outlines and no reviews.
func HeadlineOf(root *project.Root) (Headline, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return Headline{}, err
	}
	r := &Report{Warnings: []string{}}
	if err := r.collectChapters(root, cp.LastCompleted, nil); err != nil {
		return Headline{}, err
	}
	r.collectOtherRuns(root)
	if err := r.collectHeadline(root, cp); err != nil {
		return Headline{}, err
	}
	if err := r.collectForeshadowing(root, cp.LastCompleted); err != nil {
		return Headline{}, err
	}
	if err := r.collectRevisions(root); err != nil {
		return Headline{}, err
	}
	return r.Headline, nil
}

// Text is the headline as one short Chinese line.
func (h Headline) Text() string {
	var b strings.Builder
	b.WriteString("已提交 " + itoa(h.ChaptersCommitted) + " 章，共 " + itoa(h.TotalWords) + " 字")
	if h.MeanScore != nil {
		b.WriteString("，平均分 " + fmtScore(*h.MeanScore) + "/5.0")
	}
	b.WriteString("；状态版本 " + itoa(h.StateVersion) + "；第 " + itoa(h.CurrentVolume) + " 卷 " + h.OrchestratorState)
	if h.InflightChapter != nil {
		stage := "-"
		if h.PipelineStage != nil {
			stage = *h.PipelineStage
		}
		b.WriteString("，进行中第 " + itoa(*h.InflightChapter) + " 章（" + stage + "）")
	}
	b.WriteString("；伏笔未回收 " + itoa(h.ForeshadowingOpen) + "（逾期 " + itoa(h.ForeshadowingOverdue) + "）")
	b.WriteString("；待处理修订 " + itoa(h.PendingRevisions))
	return b.String()
}

// briefTitle is the first Markdown heading of brief.md, or "".
func briefTitle(root *project.Root) string {
	if !root.IsFile(layout.Brief) {
		return ""
	}
	data, err := root.ReadFile(layout.Brief)
	if err != nil {
		return ""
	}
	for _, ln := range strings.Split(string(data), "\n") {
		ln = strings.TrimSpace(ln)
		if strings.HasPrefix(ln, "#") {
			return strings.TrimSpace(strings.TrimLeft(ln, "#"))
		}
		if ln != "" {
			return ""
		}
	}
	return ""
}

// volInfo is what the report needs from one volume's plan.
type volInfo struct {
	volume     int
	start, end int // 0 when the volume has no outline range
	dormant    []string
	active     []string
	outline    *outline.Outline
}

// loadVolumes reads the outline and schedule of volumes 1..current. A
// volume without an outline has no range (a project may start without
// one); a malformed schedule is an error.
func loadVolumes(root *project.Root, current int) ([]volInfo, error) {
	var out []volInfo
	for v := 1; v <= current; v++ {
		vi := volInfo{volume: v}
		if root.IsFile(layout.Outline(v)) {
			o, err := outline.Load(root, v)
			if err != nil {
				return nil, err
			}
			vi.outline = o
			if a, b, ok := o.Range(); ok {
				vi.start, vi.end = a, b
			}
		}
		sch, err := volume.LoadSchedule(root, v)
		if err != nil {
			return nil, err
		}
		vi.dormant = append([]string{}, sch.Dormant...)
		vi.active = append([]string{}, sch.Active...)
		out = append(out, vi)
	}
	return out, nil
}

// volumeOf returns the volume whose outline range holds chapter c.
func volumeOf(vols []volInfo, c int) *volInfo {
	for i := range vols {
		if vols[i].start > 0 && vols[i].start <= c && c <= vols[i].end {
			return &vols[i]
		}
	}
	return nil
}

// collectOtherRuns folds logs/steps-run.jsonl; a line that does not parse
// is a warning (the log is bookkeeping).
func (r *Report) collectOtherRuns(root *project.Root) {
	lines, warns := runlog.ReadSteps(root)
	r.Warnings = append(r.Warnings, warns...)
	if len(lines) == 0 {
		return
	}
	f := runlog.Fold(lines)
	r.OtherRuns = &OtherRuns{Requests: f.Requests, Tokens: f.Tokens, Cost: f.Cost, UnpricedRequests: f.UnpricedRequests,
		EstimatedRequests: f.EstimatedRequests, Steps: f.Stages}
}

func (r *Report) collectHeadline(root *project.Root, cp *checkpoint.Checkpoint) error {
	sum := cp.Summarize()
	h := &r.Headline
	h.ChaptersCommitted = cp.LastCompleted
	h.CurrentVolume = cp.CurrentVolume
	h.OrchestratorState = cp.State
	h.PipelineStage = sum.Stage
	h.InflightChapter = sum.Inflight
	var total float64
	n := 0
	for _, c := range r.Chapters {
		h.TotalWords += c.WordCount
		h.RevisionsTotal += c.Revisions
		h.Gate.add(c.Marker)
		h.addUsage(c.Requests, c.UnpricedRequests, c.Tokens, c.Cost)
		h.EstimatedRequests += c.EstimatedRequests
		if c.OverallFinal != nil {
			total += *c.OverallFinal
			n++
		}
	}
	if o := r.OtherRuns; o != nil {
		h.addUsage(o.Requests, o.UnpricedRequests, o.Tokens, o.Cost)
		h.EstimatedRequests += o.EstimatedRequests
	}
	if n > 0 {
		m := round2(total / float64(n))
		h.MeanScore = &m
	}
	v, err := stateops.StateVersion(root)
	if err != nil {
		return err
	}
	h.StateVersion = v
	return nil
}

// addUsage adds one chapter's (or the other runs') usage to the totals.
func (h *Headline) addUsage(requests, unpriced int, t runlog.Tokens, cost runlog.Cost) {
	h.Requests += requests
	h.UnpricedRequests += unpriced
	h.Tokens.AddTokens(t)
	for cur, amount := range cost {
		if h.Cost == nil {
			h.Cost = runlog.Cost{}
		}
		h.Cost.Add(cur, amount)
	}
}

func (r *Report) collectVolumes(vols []volInfo) {
	for _, vi := range vols {
		v := Volume{Volume: vi.volume, Dormant: vi.dormant}
		if vi.start > 0 {
			a, b := vi.start, vi.end
			v.Start, v.End = &a, &b
		}
		var total float64
		n := 0
		for _, c := range r.Chapters {
			if c.Volume == nil || *c.Volume != vi.volume {
				continue
			}
			v.ChaptersCommitted++
			v.Words += c.WordCount
			if c.OverallFinal != nil {
				total += *c.OverallFinal
				n++
			}
		}
		if n > 0 {
			m := round2(total / float64(n))
			v.MeanScore = &m
		}
		r.Volumes = append(r.Volumes, v)
	}
}

// collectStorylines lists every line seen in a committed chapter (first
// appearance order), then lines only named by a schedule (by id).
// Dormant means dormant in the current volume's schedule.
func (r *Report) collectStorylines(vols []volInfo, current int) {
	idx := map[string]int{}
	for _, c := range r.Chapters {
		if c.StorylineID == "" {
			continue
		}
		i, ok := idx[c.StorylineID]
		if !ok {
			first := c.Chapter
			r.Storylines = append(r.Storylines, Storyline{ID: c.StorylineID, FirstChapter: &first})
			i = len(r.Storylines) - 1
			idx[c.StorylineID] = i
		}
		s := &r.Storylines[i]
		s.Chapters++
		last := c.Chapter
		s.LastChapter = &last
	}
	var extra []string
	seen := map[string]bool{}
	for _, vi := range vols {
		for _, id := range append(append([]string{}, vi.active...), vi.dormant...) {
			if _, ok := idx[id]; !ok && !seen[id] {
				seen[id] = true
				extra = append(extra, id)
			}
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		r.Storylines = append(r.Storylines, Storyline{ID: id})
	}
	for _, vi := range vols {
		if vi.volume != current {
			continue
		}
		for i := range r.Storylines {
			for _, d := range vi.dormant {
				if r.Storylines[i].ID == d {
					r.Storylines[i].Dormant = true
				}
			}
		}
	}
}

func (r *Report) collectForeshadowing(root *project.Root, lastCompleted int) error {
	items, err := foreshadow.LoadGlobal(root)
	if err != nil {
		return err
	}
	st := foreshadow.Stat(items, lastCompleted)
	f := &r.Foreshadowing
	f.Total, f.Open, f.Resolved, f.OverdueShort = st.Total, st.Open, st.ByStatus.Resolved, st.OverdueShort
	f.Items = []SpanItem{}
	seen := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.ID == "" || seen[it.ID] {
			continue // the first item of an id wins, as in the query
		}
		seen[it.ID] = true
		f.Items = append(f.Items, spanOf(it, lastCompleted))
	}
	sort.SliceStable(f.Items, func(i, j int) bool {
		a, b := spanStart(f.Items[i]), spanStart(f.Items[j])
		if a != b {
			return a < b
		}
		return f.Items[i].ID < f.Items[j].ID
	})
	r.Headline.ForeshadowingOpen = st.Open
	r.Headline.ForeshadowingOverdue = st.OverdueShort
	return nil
}

func spanOf(it *foreshadow.Item, lastCompleted int) SpanItem {
	s := SpanItem{ID: it.ID, Description: it.Description, Scope: it.Scope, Status: it.Status,
		Overdue: foreshadow.OverdueShort(it, lastCompleted)}
	if it.PlantedChapter > 0 {
		s.PlantedChapter = intp(it.PlantedChapter)
	}
	if it.LastUpdatedChapter > 0 {
		s.LastUpdatedChapter = intp(it.LastUpdatedChapter)
	}
	if a, b, ok := it.Range(); ok {
		s.TargetResolveRange = []int{a, b}
	}
	if it.Status == foreshadow.Resolved {
		for _, h := range it.History {
			if h.Action == foreshadow.Resolved && h.Chapter > 0 {
				s.ResolvedChapter = intp(h.Chapter)
				break
			}
		}
		if s.ResolvedChapter == nil && it.LastUpdatedChapter > 0 {
			s.ResolvedChapter = intp(it.LastUpdatedChapter)
		}
	}
	if s.PlantedChapter == nil {
		// An item created by an advance has no planted chapter; its span
		// starts at its first recorded chapter.
		for _, h := range it.History {
			if h.Chapter > 0 && (s.PlantedChapter == nil || h.Chapter < *s.PlantedChapter) {
				s.PlantedChapter = intp(h.Chapter)
			}
		}
	}
	return s
}

// spanStart is the chapter a span starts at (0 when unknown).
func spanStart(s SpanItem) int {
	if s.PlantedChapter != nil {
		return *s.PlantedChapter
	}
	return 0
}

func (r *Report) collectRevisions(root *project.Root) error {
	pend, err := revision.Pending(root)
	if err != nil {
		return err
	}
	for _, p := range pend {
		r.PendingRevisions = append(r.PendingRevisions, PendingRevision{Chapter: p.ChapterNumber, TriggeredBy: p.TriggeredBy,
			RevisionNotes: p.RevisionNotes, CreatedAt: p.CreatedAt, File: p.File, LogicReviewReportFile: p.LogicReviewReportFile,
			ObservedScore: p.ObservedScore, MinScore: p.MinScore, HighIssuesCount: p.HighIssuesCount})
	}
	r.Headline.PendingRevisions = len(r.PendingRevisions)
	return nil
}

func intp(n int) *int { return &n }

func round2(x float64) float64 { return math.Round(x*100) / 100 }
