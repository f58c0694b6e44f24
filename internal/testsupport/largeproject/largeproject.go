// Package largeproject writes a large, valid novel project
// deterministically from a seed, for benchmarks (SPEC §14): thousands of
// committed chapters across volumes, hundreds of characters, thousands of
// foreshadowing items, a multi-MiB state file rebuilt from a changelog,
// and an inflight chapter whose staging products are ready for every step.
package largeproject

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// Options size the project.
type Options struct {
	Chapters    int // committed chapters (default 2000)
	Volumes     int // volumes holding them (default 10)
	Characters  int // active characters (default 300)
	Foreshadow  int // foreshadowing items, global + plans (default 2000)
	StateBytes  int // approximate size of the state file (default 5 MiB)
	ChapterSize int // characters per chapter body (default 1200)
	Seed        uint64
	// Profile is "" (the standard project) or "dense" (SPEC §14: the same
	// sizes with denser links — items owned by characters with holder
	// histories, factions of 20–60 members, locations with residents, long
	// background texts, a third of the foreshadowing dormant for > 100
	// chapters, an accepted revision file every 100 chapters, changelog
	// lines of 10–30 ops).
	Profile string
	// Profile "recall" is the scale case of SPEC §25 (chapters up to
	// RecallPayoff−1 committed): an item planted with evidence in
	// RecallPlanted, advanced in RecallLastSeen and paid off by the plan in
	// RecallPayoff; a character and a location last named in
	// RecallLastSeen whom the payoff chapter's outline names again.
	// Idle leaves no chapter in flight (checkpoint committed, empty
	// staging), the starting point of a pipeline run of chapter N+1.
	Idle bool
}

func (o *Options) defaults() {
	if o.Chapters == 0 {
		o.Chapters = 2000
	}
	if o.Volumes == 0 {
		o.Volumes = 10
	}
	if o.Characters == 0 {
		o.Characters = 300
	}
	if o.Foreshadow == 0 {
		o.Foreshadow = 2000
	}
	if o.StateBytes == 0 {
		o.StateBytes = 5 << 20
	}
	if o.ChapterSize == 0 {
		o.ChapterSize = 1200
	}
}

// Dense is the name of the dense profile (Options.Profile).
const Dense = "dense"

func (o Options) dense() bool { return o.Profile == Dense }

// storylines used by the generated project; the last is dormant.
var storylines = []string{"main-arc", "sect-intrigue", "border-war", "old-debts"}

const nowStamp = "2026-11-01T08:00:00Z"

type gen struct {
	dir   string
	o     Options
	rng   *rand.Rand
	names []string // display names by character index
	per   int      // chapters per volume
}

// Inflight is the chapter left in flight (last committed + 1).
func (o Options) Inflight() int { o.defaults(); return o.Chapters + 1 }

// Generate writes the project into dir (which must be empty or absent).
func Generate(dir string, o Options) error {
	o.defaults()
	g := &gen{dir: dir, o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x6e6f76656c)), per: o.Chapters / o.Volumes}
	if g.per < 1 {
		return fmt.Errorf("largeproject: %d chapters cannot fill %d volumes", o.Chapters, o.Volumes)
	}
	g.names = g.characterNames()
	if o.Profile != "" && !o.dense() && !o.recall() {
		return fmt.Errorf("largeproject: unknown profile %q (want %q, %q or empty)", o.Profile, Dense, Recall)
	}
	if o.recall() && (o.Chapters < recallMinChapters || o.Chapters >= RecallPayoff) {
		return fmt.Errorf("largeproject: profile %q needs %d ≤ chapters < %d (the payoff chapter is %d)", Recall, recallMinChapters, RecallPayoff, RecallPayoff)
	}
	steps := []func() error{g.basics, g.characters, g.volumes, g.committed, g.foreshadowing, g.state}
	if o.dense() {
		steps = append(steps, g.revisions)
	}
	if o.recall() {
		steps = append(steps, g.recallCase)
	}
	if !o.Idle {
		steps = append(steps, g.inflight)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) write(rel string, data []byte) error {
	p := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (g *gen) writeJSON(rel string, v any) error {
	data, err := jsonio.Marshal(v)
	if err != nil {
		return err
	}
	return g.write(rel, data)
}

// volumeOf maps a chapter to its volume; the last volume also holds the
// inflight chapter and a few planned ones after it.
func (g *gen) volumeOf(c int) int {
	v := (c-1)/g.per + 1
	if v > g.o.Volumes {
		v = g.o.Volumes
	}
	return v
}

func (g *gen) volumeRange(v int) (int, int) {
	start := (v-1)*g.per + 1
	end := v * g.per
	if v == g.o.Volumes {
		end = g.o.Chapters + 10
		if g.o.recall() {
			end = max(end, recallBookChapters)
		}
	}
	return start, end
}

func (g *gen) storylineOf(c int) string { return StorylineOf(c) }

// StorylineOf is the storyline the generator puts chapter c on.
func StorylineOf(c int) string { return storylines[(c/3)%3] }

// followedOnLine reports whether a later committed chapter is on c's
// storyline.
func (g *gen) followedOnLine(c int) bool {
	for k := c + 1; k <= g.o.Chapters; k++ {
		if g.storylineOf(k) == g.storylineOf(c) {
			return true
		}
	}
	return false
}

var surnames = []rune("林苏陈赵周吴郑王冯沈韩杨朱秦许何吕施张孔曹严华金魏陶姜谢邹喻柏水窦章云潘葛")
var given = []rune("枫晚晴远山青岚若雪明轩子墨清歌寒星落霞长风无忌天行月华紫烟玄霜逸尘凌云")

func (g *gen) characterNames() []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < g.o.Characters {
		n := string(surnames[g.rng.IntN(len(surnames))]) + string(given[g.rng.IntN(len(given))])
		if g.rng.IntN(2) == 0 {
			n += string(given[g.rng.IntN(len(given))])
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func slug(i int) string { return fmt.Sprintf("char-%03d", i+1) }

func (g *gen) basics() error {
	var stage, inflight any = "judged", g.o.Chapters + 1
	if g.o.Idle {
		stage, inflight = "committed", nil
	}
	cp := map[string]any{"schema_version": 2, "last_completed_chapter": g.o.Chapters, "current_volume": g.volumeOf(g.o.Chapters + 1),
		"orchestrator_state": "WRITING", "pipeline_stage": stage, "inflight_chapter": inflight, "revision_count": 0,
		"last_checkpoint_time": nowStamp}
	var rules []any
	for i := 1; i <= 60; i++ {
		kind := "soft"
		if i%2 == 0 {
			kind = "hard"
		}
		r := map[string]any{"id": fmt.Sprintf("W-%03d", i), "category": []string{"magic_system", "geography", "society", "history"}[i%4],
			"rule": fmt.Sprintf("第%d条世界规则：修炼者不得在灵脉枯竭之地强行突破，否则经脉逆行。", i), "constraint_type": kind, "exceptions": []string{}}
		if i%7 == 0 {
			r["exceptions"] = []string{"持有宗门令牌者", "天劫当日"}
		}
		rules = append(rules, r)
	}
	words := []string{}
	for i := 0; i < 60; i++ {
		words = append(words, fmt.Sprintf("套话%02d", i))
	}
	files := map[string]any{
		layout.Checkpoint:   cp,
		layout.Settings:     map[string]any{"language": "zh", "max_revisions": 2, "logic_review_policy": "off"},
		layout.StyleProfile: map[string]any{"avg_sentence_length": 22, "dialogue_ratio": 0.3, "preferred_expressions": []string{"心头一沉"}},
		layout.AIBlacklist:  map[string]any{"version": "1.0.0", "words": words, "whitelist": []string{}, "update_log": []any{}},
		layout.WorldRules:   map[string]any{"rules": rules},
		layout.StorylineSpec: map[string]any{"storylines": func() []any {
			var l []any
			for _, s := range storylines {
				l = append(l, map[string]any{"id": s, "name": s, "type": "plot"})
			}
			return l
		}()},
	}
	for rel, v := range files {
		if err := g.writeJSON(rel, v); err != nil {
			return err
		}
	}
	for _, s := range storylines {
		if err := g.write(layout.Memory(s), []byte("# "+s+" 线记忆\n\n- 最近进展：主角在宗门大比后离山。\n")); err != nil {
			return err
		}
	}
	return g.write(layout.Brief, []byte("# 项目简介\n\n长篇仙侠，生成的压力测试项目。\n"))
}

func (g *gen) characters() error {
	for i, name := range g.names {
		if err := g.writeJSON(layout.CharacterContract(slug(i)), map[string]any{"display_name": name, "role": "配角", "faction": fmt.Sprintf("宗门%d", i%12)}); err != nil {
			return err
		}
		if err := g.write(layout.CharacterProfile(slug(i)), []byte("# "+name+"\n\n性格沉稳，出身寒门。\n")); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) volumes() error {
	for v := 1; v <= g.o.Volumes; v++ {
		start, end := g.volumeRange(v)
		var b strings.Builder
		fmt.Fprintf(&b, "# 第%d卷\n\n", v)
		for c := start; c <= end; c++ {
			sl := g.storylineOf(c)
			fmt.Fprintf(&b, "### 第 %d 章: 风起第%d回\n", c, c)
			if g.o.recall() && c == RecallPayoff {
				b.WriteString(recallPayoffBlock(sl))
			} else {
				fmt.Fprintf(&b, "- **Storyline**: %s\n- **POV**: %s\n- **Location**: 青岚山\n- **Conflict**: 宗门内斗升级\n", sl, g.names[c%len(g.names)])
				fmt.Fprintf(&b, "- **Arc**: 成长\n- **Foreshadowing**: F-%04d\n- **StateChanges**: 修为提升\n", c%g.o.Foreshadow+1)
			}
			fmt.Fprintf(&b, "- **TransitionHint**: next_storyline=%s\n\n", g.storylineOf(c+1))
			contract := map[string]any{"chapter": c, "storyline_id": sl,
				"objectives":        []any{map[string]any{"id": "OBJ-1", "required": true, "description": "推进主线冲突"}},
				"storyline_context": map[string]any{"last_chapter_summary": "上一章主角离山。", "chapters_since_last": 1, "line_arc_progress": "中段"},
				"transition_hint":   map[string]any{"next_storyline": g.storylineOf(c + 1)}}
			if c%2 == 0 {
				states := map[string]any{}
				party := g.core(c)
				for _, n := range party {
					states[n] = map[string]any{"location": "青岚山"}
				}
				for k := 0; k < 12-len(party); k++ {
					states[g.names[(c+k*7)%len(g.names)]] = map[string]any{"location": "青岚山"}
				}
				if g.o.recall() && c == RecallPayoff {
					states = map[string]any{recallCharacterName: map[string]any{"location": recallLocation}}
				}
				contract["preconditions"] = map[string]any{"character_states": states}
			}
			if err := g.writeJSON(layout.Contract(v, c), contract); err != nil {
				return err
			}
		}
		if err := g.write(layout.Outline(v), []byte(b.String())); err != nil {
			return err
		}
		mid := (start + end) / 2
		sched := map[string]any{"active_storylines": storylines[:3], "dormant_storylines": storylines[3:],
			"convergence_events": []any{
				map[string]any{"chapter_range": []int{start + 20, start + 24}, "involved_storylines": []string{"main-arc", "sect-intrigue"}},
				map[string]any{"chapter_range": []int{mid, mid + 3}, "involved_storylines": []string{"main-arc", "border-war"}},
			}}
		if err := g.writeJSON(layout.Schedule(v), sched); err != nil {
			return err
		}
	}
	return nil
}

// A long novel's chapters share a recurring cast (SPEC §14 asks the
// prefix of consecutive requests to hold "the volume's recurring cast"):
// the dense profile gives the book a party of coreCast characters (the
// first slugs), coreInChapter of whom appear in each chapter, named in
// its text and, on even chapters, in its contract beside the rotating
// cast. The standard profile keeps its rotating casts only.
const (
	coreCast      = 8
	coreInChapter = 4
)

// core is the party members in chapter c (dense profile; none otherwise).
func (g *gen) core(c int) []string {
	if !g.o.dense() || len(g.names) < coreCast {
		return nil
	}
	out := make([]string, coreInChapter)
	for j := range out {
		out[j] = g.names[(c+j)%coreCast]
	}
	return out
}

func (g *gen) body(c int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# 第%d章 风起第%d回\n\n", c, c)
	para := fmt.Sprintf("%s站在山门前，望着远处翻涌的云海。「这一局，我们输不起。」%s低声说道，袖中的玉佩微微发烫。", g.names[c%len(g.names)], g.names[(c+1)%len(g.names)])
	if party := g.core(c); party != nil {
		para += strings.Join(party, "、") + "守在殿外，谁也没有作声。"
	}
	for b.Len() < g.o.ChapterSize*3 {
		b.WriteString(para)
		b.WriteString("\n\n")
	}
	if g.o.recall() {
		b.WriteString(recallScene(c))
	}
	return b.String()
}

func (g *gen) committed() error {
	for c := 1; c <= g.o.Chapters; c++ {
		body := g.body(c)
		if err := g.write(layout.Chapter(c), []byte(body)); err != nil {
			return err
		}
		sum := fmt.Sprintf("# 第%d章摘要\n\n%s与%s在青岚山会面，%s暗中观察。宗门大比临近，暗流涌动。\n", c,
			g.names[(c*7)%len(g.names)], g.names[(c*11)%len(g.names)], g.names[(c*13)%len(g.names)])
		if g.o.recall() && c == recallLastSeen {
			sum += recallSummary
		}
		if err := g.write(layout.Summary(c), []byte(sum)); err != nil {
			return err
		}
		// novel-commit keeps each storyline memory it replaces under
		// history/: a real project has one per chapter that a later
		// committed chapter on its storyline followed (never for a line's
		// latest chapter, whose memory is still the live one).
		if g.followedOnLine(c) {
			if err := g.write(layout.MemoryHistory(g.storylineOf(c), c), []byte("# "+g.storylineOf(c)+" 线记忆\n\n- 第"+fmt.Sprint(c)+"章前的进展。\n")); err != nil {
				return err
			}
		}
		overall := 3.5 + float64(g.rng.IntN(15))/10
		// Shaped like novel-commit's committed eval: the primary eval plus
		// metadata {gate, judges}.
		judges := map[string]any{"overall_final": overall, "primary": map[string]any{"overall": overall}, "used": "primary"}
		ev := map[string]any{"chapter": c, "overall": overall, "recommendation": "pass",
			"scores":                map[string]any{"plot_logic": map[string]any{"score": 4, "feedback": "情节合理"}, "character": map[string]any{"score": 4, "feedback": "人物鲜明"}},
			"contract_verification": map[string]any{"l1_checks": []any{}, "l2_checks": []any{}, "l3_checks": []any{}, "ls_checks": []any{}},
			"required_fixes":        []any{},
			"metadata": map[string]any{"judges": judges, "gate": map[string]any{"chapter": c, "decision": "pass", "overall_final": overall,
				"eval_used": "primary", "force_passed": false, "has_high_confidence_violation": false, "failed_dimensions": []any{},
				"decided_at": nowStamp}}}
		if err := g.writeJSON(layout.Eval(c), ev); err != nil {
			return err
		}
		if err := g.writeJSON(layout.Crossref(c), map[string]any{"chapter": c, "storyline_id": g.storylineOf(c), "conflicts": []any{}}); err != nil {
			return err
		}
		words := textmeasure.WordCount(body)
		lg := runlog.ChapterLog{Chapter: c, StorylineID: g.storylineOf(c), WordCount: &words, GateDecision: "pass",
			OverallFinal: &overall, Judges: judges, Stages: []runlog.Stage{}, CommittedAt: nowStamp}
		if err := g.writeJSON(layout.ChapterLog(c), lg); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) item(i, planted int) map[string]any {
	scope := []string{"short", "medium", "long"}[i%3]
	status := []string{"planted", "advanced", "resolved"}[i%3]
	span := map[string]int{"short": 5, "medium": 30, "long": 200}[scope]
	return map[string]any{"id": fmt.Sprintf("F-%04d", i), "description": fmt.Sprintf("第%d号伏笔：古井下的铜镜。", i), "scope": scope,
		"status": status, "planted_chapter": planted, "planted_storyline": g.storylineOf(planted),
		"target_resolve_range": []int{planted + 1, planted + span}, "last_updated_chapter": planted,
		"history": []any{map[string]any{"chapter": planted, "action": "planted", "detail": "埋下"}}}
}

// denseItem: a third of the items (i%3 == 0) is open and untouched for
// more than 100 chapters, a third advanced recently (a history of several
// steps, the last within the final 15 chapters), a third resolved.
func (g *gen) denseItem(i, n int) map[string]any {
	last := max(1, g.o.Chapters-101)
	planted := 1 + (i*last)/(n+1)
	it := g.item(i, planted)
	hist := []any{map[string]any{"chapter": planted, "action": "planted", "detail": "埋下：" + strings.Repeat("线索交错，", 8)}}
	switch i % 3 {
	case 0:
		it["status"] = "planted"
		if i%2 == 0 {
			it["status"] = "advanced"
			hist = append(hist, map[string]any{"chapter": planted, "action": "advanced", "detail": "同章推进"})
		}
	case 1:
		it["status"] = "advanced"
		for k := 1; k <= 4; k++ {
			ch := planted + k*(g.o.Chapters-planted)/5
			hist = append(hist, map[string]any{"chapter": ch, "action": "advanced", "detail": fmt.Sprintf("第%d次推进：铜镜映出旧事。", k)})
		}
		recent := g.o.Chapters - i%15
		hist = append(hist, map[string]any{"chapter": recent, "action": "advanced", "detail": "铜镜再次发烫"})
		it["last_updated_chapter"] = recent
	case 2:
		it["status"] = "resolved"
		hist = append(hist, map[string]any{"chapter": min(g.o.Chapters, planted+3), "action": "resolved", "detail": "真相大白"})
		it["last_updated_chapter"] = min(g.o.Chapters, planted+3)
	}
	it["history"] = hist
	return it
}

func (g *gen) foreshadowing() error {
	planPer := g.o.Foreshadow / 4 / g.o.Volumes
	globalN := g.o.Foreshadow - planPer*g.o.Volumes
	var global []any
	for i := 1; i <= globalN; i++ {
		if g.o.dense() {
			global = append(global, g.denseItem(i, globalN))
			continue
		}
		global = append(global, g.item(i, 1+(i*g.o.Chapters)/(globalN+1)))
	}
	// The fact layer as the suite writes it: a project with 2,000
	// commits behind it has had it rewritten by novel-commit's merge
	// (foreshadow.File.Encode: item fields in SPEC order), not by a
	// generic encoder.
	data, err := jsonio.Marshal(map[string]any{"foreshadowing": global})
	if err != nil {
		return err
	}
	f, err := foreshadow.Parse(data, layout.GlobalForeshadow)
	if err != nil {
		return err
	}
	if data, err = f.Encode(f.Items); err != nil {
		return err
	}
	if err := g.write(layout.GlobalForeshadow, data); err != nil {
		return err
	}
	id := globalN
	for v := 1; v <= g.o.Volumes; v++ {
		start, end := g.volumeRange(v)
		var plan []any
		for k := 0; k < planPer; k++ {
			id++
			it := g.item(id, start+(k*(end-start))/planPer)
			it["status"] = "planted"
			plan = append(plan, it)
		}
		if err := g.writeJSON(layout.PlanForeshadow(v), map[string]any{"foreshadowing": plan}); err != nil {
			return err
		}
	}
	return nil
}

// state writes the baseline, a changelog of one line per committed
// chapter, and the current state obtained by applying it, so
// `novel-commit rebuild --check` holds.
func (g *gen) state() error {
	if g.o.dense() {
		return g.denseState()
	}
	chars := map[string]any{}
	per := g.o.StateBytes / g.o.Characters
	for i := range g.names {
		notes := []any{}
		ch := map[string]any{"display_name": g.names[i], "level": json.Number("1"), "location": "青岚山", "notes": notes}
		for size := 0; size < per; size += 64 {
			notes = append(notes, fmt.Sprintf("第%d章：与%s结下因果，欠下一笔人情。", g.rng.IntN(g.o.Chapters)+1, g.names[g.rng.IntN(len(g.names))]))
		}
		ch["notes"] = notes
		chars[slug(i)] = ch
	}
	state := map[string]any{"schema_version": json.Number("1"), "state_version": json.Number("0"), "last_updated_chapter": json.Number("0"),
		"characters": chars, "items": map[string]any{}, "locations": map[string]any{}, "factions": map[string]any{},
		"world_state": map[string]any{}, "active_foreshadowing": []any{}}
	if g.o.recall() {
		g.recallState(state)
	}
	return g.history(state, func(c int) []any {
		who := slug(g.rng.IntN(len(g.names)))
		return []any{
			map[string]any{"op": "inc", "path": "characters." + who + ".level", "value": json.Number("1")},
			map[string]any{"op": "set", "path": "characters." + who + ".location", "value": fmt.Sprintf("地点%d", c%50)},
			map[string]any{"op": "add", "path": fmt.Sprintf("items.item-%03d.holders", c%200), "value": who},
		}
	})
}

// history writes state as the baseline, then one changelog line per
// committed chapter with the ops opsOf makes, and the current state
// obtained by applying them, so `novel-commit rebuild --check` holds.
func (g *gen) history(state map[string]any, opsOf func(c int) []any) error {
	if err := g.writeJSON(layout.Baseline, state); err != nil {
		return err
	}
	var log strings.Builder
	var ledger []mentions.Line
	names := mentions.Names{Characters: g.castNames()}
	named := false
	for c := 1; c <= g.o.Chapters; c++ {
		var ops []stateops.Op
		touched := false
		for _, r := range opsOf(c) {
			op, reason := stateops.Validate(r)
			if reason != "" {
				return fmt.Errorf("largeproject: generated op %v invalid: %s", r, reason)
			}
			ops = append(ops, op)
			touched = touched || mentions.TouchesNames(string(op.Kind), op.Path)
		}
		res := stateops.Apply(state, ops)
		if len(res.Dropped) > 0 {
			return fmt.Errorf("largeproject: op dropped at chapter %d: %v", c, res.Dropped)
		}
		state["state_version"] = json.Number(fmt.Sprint(c))
		state["last_updated_chapter"] = json.Number(fmt.Sprint(c))
		// The same record type novel-commit appends, so the field order and
		// encoding match and `novel-commit rebuild --check` holds.
		line, err := jsonio.MarshalLine(changelog.Line{Chapter: c, StateVersion: c, BaseStateVersion: c - 1,
			StorylineID: g.storylineOf(c), CommittedAt: nowStamp, Ops: res.AppliedRaw(), Dropped: []stateops.Dropped{}})
		if err != nil {
			return err
		}
		log.Write(line)
		// The mentions ledger novel-commit would have appended (SPEC §25):
		// the chapter's text against the registered names and the state's
		// item and location names after its ops.
		if !named || touched {
			names.Items, names.Locations = mentions.GroupNames(state["items"]), mentions.GroupNames(state["locations"])
			named = true
		}
		ledger = append(ledger, mentions.Count(c, g.body(c), names))
	}
	if err := g.write(layout.Changelog, []byte(log.String())); err != nil {
		return err
	}
	data, err := mentions.Encode(ledger)
	if err != nil {
		return err
	}
	if err := g.write(layout.Mentions, data); err != nil {
		return err
	}
	return g.writeJSON(layout.CurrentState, state)
}

// castNames are the registered characters as the ledger counts them.
func (g *gen) castNames() []mentions.Name {
	var out []mentions.Name
	for i, n := range g.names {
		out = append(out, mentions.Name{Slug: slug(i), Name: n})
	}
	if g.o.recall() {
		out = append(out, mentions.Name{Slug: recallCharacter, Name: recallCharacterName})
	}
	return out
}

func (g *gen) inflightDelta() map[string]any {
	c := g.o.Chapters + 1
	return map[string]any{"chapter": c, "base_state_version": g.o.Chapters, "storyline_id": g.storylineOf(c),
		"ops": []any{
			map[string]any{"op": "set", "path": "characters.char-001.location", "value": "北境"},
			map[string]any{"op": "inc", "path": "characters.char-002.level", "value": 1},
			map[string]any{"op": "foreshadow", "path": "F-0001", "value": "advanced", "detail": "铜镜再现", "evidence": g.names[c%len(g.names)] + "站在山门前，望着远处翻涌的云海。"},
		},
		"unknown_entities": []any{map[string]any{"name": "黑袍客", "context": "山门外的神秘人"}}}
}

func (g *gen) inflightEval() map[string]any {
	// Every rubric dimension, so the eval passes the strict check a judge
	// packet implies (SPEC §24); the weighted overall is the 4.2 it claims:
	// 4 everywhere, plot_logic, character and pacing 4.5 (+.08+.08+.04).
	scores := map[string]any{}
	for _, d := range eval.Rubric {
		s := 4.0
		if d.Name == "plot_logic" || d.Name == "character" || d.Name == "pacing" {
			s = 4.5
		}
		scores[d.Name] = map[string]any{"score": s, "reason": "节奏紧凑"}
	}
	return map[string]any{"chapter": g.o.Chapters + 1, "overall": 4.2, "recommendation": "pass",
		"scores":                scores,
		"contract_verification": map[string]any{"l1_checks": []any{}, "l2_checks": []any{}, "l3_checks": []any{}, "ls_checks": []any{}},
		"required_fixes":        []any{}}
}

const inflightSummary = "# 摘要\n\n主角北上。\n"

func inflightMemory(sl string) string { return "# " + sl + " 线记忆\n\n- 北上途中。\n" }

// inflight writes the staging products of chapter N+1 up to the judge.
func (g *gen) inflight() error {
	c := g.o.Chapters + 1
	sl := g.storylineOf(c)
	delta, ev := g.inflightDelta(), g.inflightEval()
	files := []struct {
		rel string
		v   any
	}{
		{layout.StagingDelta(c), delta},
		{layout.StagingCrossref(c), map[string]any{"chapter": c, "conflicts": []any{}}},
		{layout.StagingEval(c), ev},
	}
	for _, f := range files {
		if err := g.writeJSON(f.rel, f.v); err != nil {
			return err
		}
	}
	if err := g.write(layout.StagingChapter(c), []byte(g.body(c))); err != nil {
		return err
	}
	if err := g.write(layout.StagingSummary(c), []byte(inflightSummary)); err != nil {
		return err
	}
	return g.write(layout.StagingMemory(sl), []byte(inflightMemory(sl)))
}

// WriteReplay writes replay recordings for chapter N+1 into dir
// (dir/chapter-NNN/{agent}.{mode}.r0.{md|json}, SPEC §11): the same
// products the non-idle project has in staging, so novel-agent's replay
// backend can take an idle project's chapter N+1 from draft to commit.
func WriteReplay(dir string, o Options) error {
	o.defaults()
	g := &gen{dir: dir, o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x6e6f76656c)), per: o.Chapters / o.Volumes}
	if g.per < 1 {
		return fmt.Errorf("largeproject: %d chapters cannot fill %d volumes", o.Chapters, o.Volumes)
	}
	g.names = g.characterNames()
	c := o.Chapters + 1
	sl := g.storylineOf(c)
	sub := "chapter-" + layout.Pad(c) + "/"
	body := g.body(c)
	if err := g.write(sub+"chapter-writer.draft.r0.md", []byte(body)); err != nil {
		return err
	}
	if err := g.write(sub+"style-refiner.refine.r0.md", []byte(body+"山风渐起，夜色四合。\n")); err != nil {
		return err
	}
	bundle := map[string]any{"summary": inflightSummary, "delta": g.inflightDelta(),
		"crossref": map[string]any{"chapter": c, "conflicts": []any{}}, "memory": inflightMemory(sl)}
	if err := g.writeJSON(sub+"summarizer.summarize.r0.json", bundle); err != nil {
		return err
	}
	return g.writeJSON(sub+"quality-judge.primary.r0.json", g.inflightEval())
}

// Version changes whenever the generator's output does, so cached
// projects from an older generator are not reused. 7: the mentions
// ledger, and evidence on the inflight delta's foreshadow op. 8: the
// dense profile's recurring party (core).
const Version = 8

// Cached returns a directory holding the project for o (not idle),
// generating it on first use under the system temp directory and reusing
// it afterwards, so benchmarks in several packages share one copy. The
// directory must be treated as read-only.
func Cached(o Options) (string, error) {
	o.defaults()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("novel-largeproject-v%d-s%d-c%d-v%d-ch%d-f%d%s", Version, o.Seed, o.Chapters, o.Volumes, o.Characters, o.Foreshadow, o.Profile))
	if _, err := os.Stat(filepath.Join(dir, layout.Checkpoint)); err == nil {
		return dir, nil
	}
	// Generate beside it and rename: concurrent test binaries race
	// safely, the loser discards its copy.
	tmp, err := os.MkdirTemp(os.TempDir(), "novel-largeproject-gen-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := Generate(filepath.Join(tmp, "p"), o); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(tmp, "p"), dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, layout.Checkpoint)); serr == nil {
			return dir, nil
		}
		return "", err
	}
	return dir, nil
}
