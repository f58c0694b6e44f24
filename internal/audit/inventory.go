package audit

import (
	"sort"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/volume"
)

// ForeshadowInventory is logs/foreshadowing/latest.json.
type ForeshadowInventory struct {
	SchemaVersion     int       `json:"schema_version"`
	ChapterRange      [2]int    `json:"chapter_range"`
	GeneratedAt       string    `json:"generated_at"`
	PlannedNotPlanted []InvItem `json:"planned_not_planted"`
	Overdue           []InvItem `json:"overdue"`
	Dormant           []InvItem `json:"dormant"`
	ResolvedInWindow  []InvItem `json:"resolved_in_window"`
}

// InvItem is one foreshadowing item in an inventory.
type InvItem struct {
	ID             string `json:"id"`
	Description    string `json:"description"`
	Scope          string `json:"scope"`
	Status         string `json:"status"`
	PlantedChapter int    `json:"planted_chapter"`
	LastTouched    int    `json:"last_touched"`
	Range          []int  `json:"target_resolve_range"`
}

// Rhythm is logs/storylines/rhythm-latest.json: how often each storyline
// was on the page, against the volume's schedule.
type Rhythm struct {
	SchemaVersion int          `json:"schema_version"`
	ChapterRange  [2]int       `json:"chapter_range"`
	GeneratedAt   string       `json:"generated_at"`
	Storylines    []LineRhythm `json:"storylines"`
	Warnings      []string     `json:"warnings"`
}

// LineRhythm is one storyline's presence.
type LineRhythm struct {
	ID       string `json:"id"`
	Schedule string `json:"schedule"` // active | dormant | unscheduled
	Chapters []int  `json:"chapters"` // in the window
	LastSeen int    `json:"last_seen"`
	Gap      int    `json:"gap"` // chapters since last_seen (window end − last_seen)
}

// Bridges is logs/storylines/broken-bridges-latest.json: outline transition
// hints the next chapter did not follow.
type Bridges struct {
	SchemaVersion int      `json:"schema_version"`
	ChapterRange  [2]int   `json:"chapter_range"`
	GeneratedAt   string   `json:"generated_at"`
	Checked       int      `json:"checked"`
	Broken        []Bridge `json:"broken"`
}

// Bridge is one transition hint not followed.
type Bridge struct {
	Chapter  int    `json:"chapter"`
	Expected string `json:"expected_storyline"`
	Next     int    `json:"next_chapter"`
	Actual   string `json:"actual_storyline"`
}

// Inventories are the three 10-chapter inventories.
type Inventories struct {
	Foreshadow ForeshadowInventory
	Rhythm     Rhythm
	Bridges    Bridges
}

func invItem(it *foreshadow.Item) InvItem {
	out := InvItem{ID: it.ID, Description: it.Description, Scope: it.Scope, Status: it.Status,
		PlantedChapter: it.PlantedChapter, LastTouched: foreshadow.LastTouched(it), Range: []int{}}
	if a, b, ok := it.Range(); ok {
		out.Range = []int{a, b}
	}
	return out
}

// Inventory builds the inventories of the window of `window` chapters
// ending at the last committed chapter.
func Inventory(root *project.Root, window int, now string) (*Inventories, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	if cp.LastCompleted < 1 {
		return nil, errs.New(errs.State, "项目还没有已提交的章节", "the project has no committed chapter").WithExit(errs.ExitFailed)
	}
	return InventoryAt(root, cp.LastCompleted, max(cp.CurrentVolume, 1), window, now)
}

// InventoryAt builds the inventories of the window ending at chapter to,
// against volume vol's plan and schedule (the commit calls it before its
// checkpoint step, so it cannot ask the checkpoint).
func InventoryAt(root *project.Root, to, vol, window int, now string) (*Inventories, error) {
	w, err := Load(root, max(1, to-window+1), to)
	if err != nil {
		return nil, err
	}
	return w.Inventories(root, vol, now)
}

// Inventories builds the three inventories of a loaded window (the
// commit's 10th chapter reuses the window of its continuity audit).
func (w *Window) Inventories(root *project.Root, vol int, now string) (*Inventories, error) {
	rng := [2]int{w.From, w.To}
	inv := &Inventories{
		Foreshadow: ForeshadowInventory{SchemaVersion: 1, ChapterRange: rng, GeneratedAt: now, PlannedNotPlanted: []InvItem{},
			Overdue: []InvItem{}, Dormant: []InvItem{}, ResolvedInWindow: []InvItem{}},
		Rhythm:  Rhythm{SchemaVersion: 1, ChapterRange: rng, GeneratedAt: now, Storylines: []LineRhythm{}, Warnings: []string{}},
		Bridges: Bridges{SchemaVersion: 1, ChapterRange: rng, GeneratedAt: now, Broken: []Bridge{}},
	}
	if err := w.foreshadowInventory(root, vol, &inv.Foreshadow); err != nil {
		return nil, err
	}
	sched, err := volume.LoadSchedule(root, vol)
	if err != nil {
		return nil, err
	}
	w.rhythm(sched, settings.LoadLanguage(root), &inv.Rhythm)
	if err := w.bridges(root, vol, &inv.Bridges); err != nil {
		return nil, err
	}
	return inv, nil
}

func (w *Window) foreshadowInventory(root *project.Root, vol int, out *ForeshadowInventory) error {
	plan, err := foreshadow.LoadPlan(root, vol)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for i := range w.Foreshadow {
		it := &w.Foreshadow[i]
		known[it.ID] = foreshadow.Rank(it.Status) > 0
		switch {
		case it.Status == foreshadow.Resolved && it.LastUpdatedChapter >= w.From && it.LastUpdatedChapter <= w.To:
			out.ResolvedInWindow = append(out.ResolvedInWindow, invItem(it))
		case foreshadow.OverdueShort(it, w.To):
			out.Overdue = append(out.Overdue, invItem(it))
		}
		if _, dormant := foreshadow.Dormant(it, w.To); dormant {
			out.Dormant = append(out.Dormant, invItem(it))
		}
	}
	for i := range plan {
		it := &plan[i]
		if !known[it.ID] && it.PlantedChapter > 0 && it.PlantedChapter <= w.To {
			out.PlannedNotPlanted = append(out.PlannedNotPlanted, invItem(it))
		}
	}
	return nil
}

// rhythm compares the window with the storyline schedule; its warnings
// are in lang (settings.json "language").
func (w *Window) rhythm(s *volume.Schedule, lang string, out *Rhythm) {
	lines := map[string]*LineRhythm{}
	get := func(id string) *LineRhythm {
		if lines[id] == nil {
			lines[id] = &LineRhythm{ID: id, Schedule: "unscheduled", Chapters: []int{}}
		}
		return lines[id]
	}
	for _, id := range s.Active {
		get(id).Schedule = "active"
	}
	for _, id := range s.Dormant {
		get(id).Schedule = "dormant"
	}
	for c, id := range w.Storyline {
		l := get(id)
		l.LastSeen = max(l.LastSeen, c)
		if c >= w.From {
			l.Chapters = append(l.Chapters, c)
		}
	}
	ids := make([]string, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		l := lines[id]
		sort.Ints(l.Chapters)
		if l.LastSeen > 0 {
			l.Gap = w.To - l.LastSeen
		} else {
			l.Gap = w.To
		}
		switch {
		case l.Schedule == "active" && len(l.Chapters) == 0:
			out.Warnings = append(out.Warnings, errs.Text(lang, "活跃故事线 "+id+" 在本窗口中一次也没有出现", "active storyline "+id+" does not appear once in this window"))
		case l.Schedule == "dormant" && len(l.Chapters) > 0:
			out.Warnings = append(out.Warnings, errs.Text(lang, "休眠故事线 "+id+" 在本窗口中出现了", "dormant storyline "+id+" appears in this window"))
		}
		out.Storylines = append(out.Storylines, *l)
	}
}

// bridges compares each window chapter's TransitionHint next_storyline with
// the storyline the next committed chapter was written on.
func (w *Window) bridges(root *project.Root, vol int, out *Bridges) error {
	outlines := map[int]*outline.Outline{}
	for v := max(vol-1, 1); v <= vol; v++ {
		o, err := outline.Load(root, v)
		if err != nil {
			if v < vol {
				continue // an earlier volume's outline may be gone
			}
			return err
		}
		outlines[v] = o
	}
	for c := w.From; c < w.To; c++ {
		var blk *outline.Block
		for _, o := range outlines {
			if o.Has(c) {
				if b, err := o.Block(c); err == nil {
					blk = b
				}
			}
		}
		if blk == nil || blk.TransitionHint == nil || blk.TransitionHint.NextStoryline == "" {
			continue
		}
		out.Checked++
		if got := w.Storyline[c+1]; got != "" && got != blk.TransitionHint.NextStoryline {
			out.Broken = append(out.Broken, Bridge{Chapter: c, Expected: blk.TransitionHint.NextStoryline, Next: c + 1, Actual: got})
		}
	}
	return nil
}

// WriteInventories stores the three inventories.
func WriteInventories(root *project.Root, inv *Inventories) error {
	for _, f := range []struct {
		path string
		v    any
	}{{layout.ForeshadowInventory, inv.Foreshadow}, {layout.RhythmInventory, inv.Rhythm}, {layout.BridgesInventory, inv.Bridges}} {
		if err := root.WriteJSON(f.path, f.v); err != nil {
			return err
		}
	}
	return nil
}
