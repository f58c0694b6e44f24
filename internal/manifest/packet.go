// Package manifest builds the instruction packets of SPEC §6: for one step
// id, the agent to run, its deterministic context (inline values and
// project-relative paths), the outputs it must produce and what to run
// next. Packets are byte-deterministic: every list has a defined order and
// every object a fixed key order.
package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/integrity"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lint"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volume"
)

// Version is the packet format version.
const Version = 1

// Agent kinds.
const (
	KindAgent         = "agent"
	KindDeterministic = "deterministic"
)

// Agent names the executor of a step.
type Agent struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Mode      string `json:"mode"`
	ModelHint string `json:"model_hint,omitempty"`
}

// Output is one file the step must produce.
type Output struct {
	Path     string `json:"path"`
	Required bool   `json:"required"`
	Via      string `json:"via"`
}

// Manifest is the step's context.
type Manifest struct {
	Inline   *OMap    `json:"inline"`
	Paths    *OMap    `json:"paths"`
	Embedded []string `json:"embedded,omitempty"`
}

// Packet is the instruction packet (SPEC §6).
type Packet struct {
	Version       int    `json:"version"`
	Step          string `json:"step"`
	Chapter       *int   `json:"chapter"`
	Volume        int    `json:"volume"`
	RevisionRound int    `json:"revision_round"`
	Agent         Agent  `json:"agent"`
	// KeyChapter is set on judge and gate steps (SPEC §27): an agent
	// following the packet must see at the top that a second judge is due.
	KeyChapter          *bool     `json:"key_chapter,omitempty"`
	Command             []string  `json:"command,omitempty"`
	Manifest            Manifest  `json:"manifest"`
	Estimate            *Estimate `json:"estimate,omitempty"`
	Budget              int       `json:"budget,omitempty"`
	OverBudget          bool      `json:"over_budget,omitempty"`
	ExpectedOutputs     []Output  `json:"expected_outputs"`
	Warnings            []string  `json:"warnings"`
	Next                []string  `json:"next"`
	WrittenManifestPath string    `json:"written_manifest_path,omitempty"`
}

// Options select the packet variant.
type Options struct {
	Role  string // "" (primary) or "secondary" (judge only)
	Mode  string // "" or a summarizer variant: amend, backfill (summaryvariants.go)
	Embed bool
	// Direction is the author's direction for a volume plan (--direction,
	// SPEC §23): author_direction in plan and contracts packets.
	Direction string
}

// NormalizeRole maps --role values: "" and "primary" are the default.
func NormalizeRole(st stepid.Step, role string) (string, error) {
	switch role {
	case "", stepid.RolePrimary:
		return "", nil
	case stepid.RoleSecondary:
		if st.Volume || st.Stage != stepid.Judge {
			return "", errs.Newf(errs.Usage, "--role secondary 只适用于 judge 步骤，不适用于 %s", "--role secondary applies to judge steps only, not %s", st.String()).
				Hint("去掉 --role，或改用 chapter:NNN:judge", "drop --role, or use chapter:NNN:judge")
		}
		return stepid.RoleSecondary, nil
	}
	return "", errs.Newf(errs.Usage, "--role 只能是 primary 或 secondary，收到 %q", "--role must be primary or secondary, got %q", role).
		Hint("用 --role secondary 生成关键章的第二评审指令包", "use --role secondary for the second judge of a key chapter")
}

// builder carries one packet's inputs; loaders run at most once.
type builder struct {
	root *project.Root
	cp   *checkpoint.Checkpoint
	set  settings.Settings
	st   stepid.Step
	opt  Options
	p    *Packet
	in   *OMap
	ps   *OMap

	// revisions are the names in chapters/ ending in revision.json,
	// when listed (the integrity scan ran).
	revisions []string
	listed    bool

	c, vol    int
	ol        *outline.Outline
	blk       *outline.Block
	contract  *Contract
	sched     *volume.Schedule
	chars     []Character
	charsDone bool
	bl        *lint.Blacklist
	blDone    bool
	// sheddable are paths keys measure drops, in order, while the packet
	// is over its budget (the volume review's, SPEC §25).
	sheddable []string
	// departedMap: slug → status of the characters who left the story.
	departedMap  map[string]string
	departedDone bool
	// stateMembers caches the state's top-level members (stateTop).
	stateMembers map[string]json.RawMessage
	// volCast: group → keys of the entities whose stable texts the
	// writer's volume_cast block carries (volumeCast); nil elsewhere.
	volCast map[string]map[string]bool
	// global caches foreshadowing/global.json (globalForeshadowing).
	global     []foreshadow.Item
	globalDone bool
	// err is the first refusal of an optional input (has): a file that
	// resolves outside the project.
	err error
}

func (b *builder) warn(zh, en string, args ...any) {
	b.p.Warnings = append(b.p.Warnings, fmt.Sprintf(zh, args...)+" / "+fmt.Sprintf(en, args...))
}

// Build assembles the packet of st. Nothing is written.
func Build(root *project.Root, cp *checkpoint.Checkpoint, set settings.Settings, st stepid.Step, opt Options) (*Packet, error) {
	role, err := NormalizeRole(st, opt.Role)
	if err != nil {
		return nil, err
	}
	opt.Role = role
	// No packet from a project whose committed chapters are incomplete
	// (SPEC §22.1): chapter C's draft never goes without C−1's text and
	// summary.
	// The same listing of chapters/ gives the revision files the
	// revision gate reads (revision.CheckOf): a long book's folder holds
	// thousands of names, listed once.
	var revisions []string
	if cp.LastCompleted >= 1 {
		g, _, revs, err := integrity.Scan(root, cp.LastCompleted)
		if err == nil && g != nil {
			err = g.Err()
		}
		if err != nil {
			return nil, err
		}
		revisions = revs
	}
	b := &builder{root: root, cp: cp, set: set, st: st, opt: opt, in: &OMap{}, ps: &OMap{}, revisions: revisions, listed: cp.LastCompleted >= 1}
	b.p = &Packet{Version: Version, Step: st.String(), Manifest: Manifest{Inline: b.in, Paths: b.ps},
		ExpectedOutputs: []Output{}, Warnings: []string{}, Next: []string{}}
	switch {
	case st.Setup:
		err = b.setup()
	case st.Volume && st.Stage == stepid.Review:
		err = b.volumeReview()
	case st.Volume && st.Stage == stepid.Contracts:
		err = b.volumeContracts()
	case st.Volume:
		err = b.volumePlan()
	default:
		err = b.chapter()
	}
	if err == nil {
		err = b.err
	}
	if err != nil {
		return nil, err
	}
	if err := b.measure(); err != nil {
		return nil, err
	}
	return b.p, nil
}

// stateErr refuses work in an orchestrator state that does not allow it,
// naming the command that moves the project on (SPEC §3 rule 1).
func stateErr(cp *checkpoint.Checkpoint, st stepid.Step) error {
	e := errs.New(errs.State,
		fmt.Sprintf("编排状态 %s 下不能生成 %s 的指令包（需要 WRITING 或 CHAPTER_REWRITE）", cp.State, st.String()),
		fmt.Sprintf("cannot make the packet of %s in orchestrator state %s (needs WRITING or CHAPTER_REWRITE)", st.String(), cp.State))
	e.With("orchestrator_state", cp.State).With("step", st.String())
	plan := "novel instructions volume:" + layout.PadVol(max(cp.CurrentVolume, 1)) + ":plan"
	switch cp.State {
	case checkpoint.VolReview:
		e.Hint("先完成卷回顾，再运行 novel-step volume --next", "finish the volume review, then run novel-step volume --next")
	case checkpoint.VolPlanning, checkpoint.QuickStart:
		e.Hint("先完成卷规划："+plan, "plan the volume first: "+plan)
	case checkpoint.ErrorRetry:
		e.Hint("处理上次的错误后运行 novel-step retry（或 novel-step abandon）", "deal with the last error, then run novel-step retry (or novel-step abandon)")
	}
	return e
}

func (b *builder) chapter() error {
	st, cp := b.st, b.cp
	b.c = st.Chapter
	ch := b.c
	b.p.Chapter = &ch
	b.vol = cp.CurrentVolume
	b.p.Volume = b.vol
	if cp.Inflight == b.c || cp.Idle() {
		b.p.RevisionRound = cp.RevisionCount
	}
	if b.opt.Mode != "" {
		b.p.RevisionRound = 0
		return b.summaryVariant()
	}
	journal := st.Stage == stepid.Commit && b.root.Exists(layout.CommitJournal(b.c))
	if !journal && !cp.Writable() {
		return stateErr(cp, st)
	}
	if st.IsAgent() {
		var err error
		if b.listed {
			err = revision.CheckOf(b.root, b.c, b.revisions)
		} else {
			err = revision.Check(b.root, b.c)
		}
		if err != nil {
			return err
		}
	}
	var err error
	if b.ol, err = outline.LoadFor(b.root, b.vol, cp); err != nil {
		return err
	}
	if b.blk, err = b.ol.Block(b.c); err != nil {
		return err
	}
	if len(b.blk.MissingKeys) > 0 {
		b.warn("大纲 %s 第 %d 章缺少字段：%s", "outline %s chapter %d lacks keys: %s", b.ol.File, b.c, strings.Join(b.blk.MissingKeys, ", "))
	}
	if b.contract, err = loadContract(b.root, b.vol, b.c, b.blk.StorylineID); err != nil {
		return err
	}
	if b.contract == nil && (st.Stage == stepid.Draft || st.Stage == stepid.Judge || st.Stage == stepid.LogicReview) {
		b.warn("第 %d 章没有章节契约 %s：storyline 取自大纲，角色按最近出现选取（最多 %d 个）",
			"chapter %d has no contract %s: the storyline comes from the outline and characters are picked by recent appearance (at most %d)",
			b.c, layout.Contract(b.vol, b.c), MaxDefaultCharacters)
	}
	if b.sched, err = volume.LoadSchedule(b.root, b.vol); err != nil {
		return err
	}
	switch st.Stage {
	case stepid.Draft:
		return b.writer()
	case stepid.Summarize:
		return b.summarizer()
	case stepid.Refine, stepid.Polish:
		return b.refiner()
	case stepid.Judge:
		return b.judge()
	case stepid.LogicReview:
		return b.logicReviewer()
	case stepid.Gate:
		return b.gate()
	case stepid.Commit:
		return b.commit()
	}
	return errs.Newf(errs.StepID, "步骤 %s 没有指令包", "step %s has no packet", st.String())
}

func (b *builder) agent(mode string) {
	b.p.Agent = Agent{Name: b.st.Agent(), Kind: KindAgent, Mode: mode}
	id := b.st.String()
	b.p.Next = []string{"novel-step validate " + id, "novel-step advance " + id}
}

func (b *builder) output(path string, required bool, via string) {
	b.p.ExpectedOutputs = append(b.p.ExpectedOutputs, Output{Path: path, Required: required, Via: via})
}

// has reports whether the optional file rel is there, through the one
// checked look-up (project.Root.Optional): a file that resolves outside
// the project is remembered as the packet's E_PATH (Build returns it)
// instead of being left out.
func (b *builder) has(rel string) bool {
	ok, err := b.root.Optional(rel)
	if err != nil && b.err == nil {
		b.err = err
	}
	return ok
}

// pathIf adds an optional path key when the file exists.
func (b *builder) pathIf(key, rel string) bool {
	if b.has(rel) {
		b.ps.Set(key, rel)
		return true
	}
	return false
}

func (b *builder) pathsIf(key string, rels []string) {
	var have []string
	for _, r := range rels {
		if b.has(r) {
			have = append(have, r)
		}
	}
	if len(have) > 0 {
		b.ps.Set(key, have)
	}
}

func (b *builder) volumeRange() any {
	start, end, _ := b.ol.Range()
	return struct {
		Start int `json:"start"`
		End   int `json:"end"`
	}{start, end}
}

func (b *builder) characters() ([]Character, error) {
	if b.charsDone {
		return b.chars, nil
	}
	chars, warns, err := loadCharacters(b.root)
	if err != nil {
		return nil, err
	}
	b.chars, b.charsDone = chars, true
	b.p.Warnings = append(b.p.Warnings, warns...)
	return chars, nil
}

func (b *builder) blacklist() (*lint.Blacklist, error) {
	if !b.blDone {
		bl, err := lint.LoadBlacklist(b.root)
		if err != nil {
			return nil, err
		}
		b.bl, b.blDone = bl, true
	}
	return b.bl, nil
}

// recentSummaries are the existing summaries of C-1..C-3, newest first.
func (b *builder) recentSummaries() []string {
	var out []string
	for c := b.c - 1; c >= max(1, b.c-3); c-- {
		out = append(out, layout.Summary(c))
	}
	return out
}

// selectCharacters runs the L2 pruning and returns the chosen slugs.
func (b *builder) selectCharacters() ([]string, error) {
	chars, err := b.characters()
	if err != nil {
		return nil, err
	}
	var names []string
	if b.contract != nil {
		names = b.contract.CharacterNames
	}
	var sums []SummaryText
	if len(names) == 0 && len(chars) > 0 {
		// The default cast is the living (SPEC §25): someone dead or gone
		// comes back only when the outline block names them.
		gone, err := b.departed()
		if err != nil {
			return nil, err
		}
		chars = slices.DeleteFunc(slices.Clone(chars), func(c Character) bool {
			_, g := gone[c.Slug]
			return g && !b.namedHere(c)
		})
		for c := b.c - 1; c >= max(1, b.c-RecentSummaryWindow); c-- {
			rel := layout.Summary(c)
			if !b.has(rel) {
				continue
			}
			text, err := b.root.ReadText(rel)
			if err != nil {
				return nil, err
			}
			sums = append(sums, SummaryText{Chapter: c, Text: text})
		}
	}
	slugs, warns := SelectCharacters(chars, names, sums)
	b.p.Warnings = append(b.p.Warnings, warns...)
	// The POV character is always in the cast (SPEC §24): a line returning
	// after a long rest would otherwise lose its own narrator's contract.
	pov, err := b.povSlug()
	if err != nil {
		return nil, err
	}
	if pov != "" && !slices.Contains(slugs, pov) {
		slugs = append([]string{pov}, slugs...)
	}
	return slugs, nil
}

// characterPaths sets the cast's contracts (and for the judge its
// profiles) and returns the cast in order.
func (b *builder) characterPaths(profiles bool) ([]string, error) {
	slugs, err := b.selectCharacters()
	if err != nil {
		return nil, err
	}
	// The recurring cast's contracts and profiles come earlier, once
	// (volumeCast): the chapter's own blocks hold the rest of its cast.
	slugs = slices.DeleteFunc(slugs, func(s string) bool { return b.volCast["characters"][s] })
	var contracts, profs []string
	for _, s := range slugs {
		contracts = append(contracts, layout.CharacterContract(s))
		profs = append(profs, layout.CharacterProfile(s))
	}
	if len(contracts) > 0 {
		b.ps.Set("character_contracts", contracts)
	}
	if profiles {
		b.pathsIf("character_profiles", profs)
	}
	return slugs, nil
}

// storylinePaths adds the current line's memory and the adjacent lines'
// memories: the transition hint's next line plus the other lines of any
// convergence event covering C, minus dormant lines and the current one
// (none when the current line has no memory yet).
func (b *builder) storylinePaths() {
	sid := b.blk.StorylineID
	if !b.pathIf("storyline_memory", layout.Memory(sid)) {
		// A line's first chapter has no memory of its own; another line's
		// memory would be read in its place (SPEC §24), so none is given.
		b.warn("故事线 %s 还没有记忆（本线第一章）：不附其他故事线的记忆", "storyline %s has no memory yet (its first chapter): no other line's memory is attached", sid)
		return
	}
	seen := map[string]bool{sid: true}
	var ids []string
	add := func(id string) {
		if id == "" || seen[id] || b.sched.IsDormant(id) {
			return
		}
		seen[id] = true
		ids = append(ids, id)
	}
	add(b.nextStoryline())
	for _, e := range b.sched.EventsAt(b.c) {
		for _, id := range e.Storylines {
			add(id)
		}
	}
	sortStrings(ids)
	var rels []string
	for _, id := range ids {
		rels = append(rels, layout.Memory(id))
	}
	b.pathsIf("adjacent_memories", rels)
}

func (b *builder) nextStoryline() string {
	if b.contract != nil && b.contract.TransitionHint != nil {
		return b.contract.NextStoryline
	}
	if b.blk.TransitionHint != nil {
		return b.blk.TransitionHint.NextStoryline
	}
	return ""
}

// transitionHint is the contract's hint, else the outline's; nil when none.
func (b *builder) transitionHint() any {
	if b.contract != nil && b.contract.TransitionHint != nil {
		return b.contract.TransitionHint
	}
	if b.blk.TransitionHint != nil {
		return b.blk.TransitionHint
	}
	return nil
}

func (b *builder) storylineInline() {
	if b.contract == nil {
		return
	}
	if b.contract.StorylineContext != nil {
		b.in.Set("storyline_context", b.contract.StorylineContext)
	}
	if b.contract.ConcurrentState != nil {
		b.in.Set("concurrent_state", concurrentState(b.contract.ConcurrentState, b.sched.IsDormant))
	}
}

func (b *builder) keyChapter() (bool, error) {
	return volume.KeyChapter(b.root, b.vol, b.c)
}

func itoa(n int) string { return strconv.Itoa(n) }
