package largeproject

import (
	"encoding/json"
	"fmt"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/revision"
)

// The dense profile's link counts (SPEC §14).
const (
	denseItems     = 600
	denseFactions  = 12
	denseLocations = 50
)

func itemSlug(k int) string     { return fmt.Sprintf("item-%03d", k+1) }
func factionSlug(k int) string  { return fmt.Sprintf("faction-%02d", k+1) }
func locationSlug(k int) string { return fmt.Sprintf("loc-%02d", k+1) }

// longText is n characters of prose about subject: the kind of
// `background`/`description` a real project grows over hundreds of
// chapters.
func longText(subject string, n int) string {
	parts := []string{"出身北境寒门，幼年随商队辗转各地，", "曾在青岚山外门做过三年杂役，", "与宗门长老之间有一段不为人知的旧怨，",
		"后因一桩灵脉失窃案被卷入宗门内斗，", "从此行事谨慎，不轻易信人，", "心中始终记挂着失散的亲人。"}
	r := []rune(subject + "：")
	for i := 0; len(r) < n; i++ {
		r = append(r, []rune(parts[i%len(parts)])...)
	}
	return string(r[:n])
}

// denseState writes the dense profile's baseline, changelog (10–30 ops
// per line) and current state.
func (g *gen) denseState() error {
	nc := len(g.names)
	chars := map[string]any{}
	items := map[string]any{}
	factions := map[string]any{}
	locations := map[string]any{}
	for k := 0; k < denseFactions; k++ {
		members := []any{}
		for _, m := range g.rng.Perm(nc)[:min(nc, 20+g.rng.IntN(41))] {
			members = append(members, slug(m))
		}
		factions[factionSlug(k)] = map[string]any{"name": fmt.Sprintf("宗门%d", k), "members": members,
			"description": longText(fmt.Sprintf("宗门%d", k), 1500)}
	}
	for k := 0; k < denseLocations; k++ {
		residents := []any{}
		for _, m := range g.rng.Perm(nc)[:min(nc, 10+g.rng.IntN(21))] {
			residents = append(residents, slug(m))
		}
		locations[locationSlug(k)] = map[string]any{"name": fmt.Sprintf("地点%d", k), "residents": residents,
			"description": longText(fmt.Sprintf("地点%d", k), 1500)}
	}
	for k := 0; k < denseItems; k++ {
		owner := slug(g.rng.IntN(nc))
		it := map[string]any{"name": fmt.Sprintf("法宝%d", k), "owner": owner, "description": longText(fmt.Sprintf("法宝%d", k), 120)}
		if k%5 != 0 { // most have a holder history
			it["holder_history"] = []any{map[string]any{"chapter": json.Number("0"), "holder": owner}}
		}
		items[itemSlug(k)] = it
	}
	// Characters carry what is left of the state budget as a long
	// background (≈ 3 bytes per character) and a few notes.
	bg := max(800, (g.o.StateBytes-3<<19)/nc/3)
	for i := range g.names {
		notes := []any{}
		for k := 0; k < 12; k++ {
			notes = append(notes, fmt.Sprintf("第%d章：与%s结下因果，欠下一笔人情。", g.rng.IntN(g.o.Chapters)+1, g.names[g.rng.IntN(nc)]))
		}
		chars[slug(i)] = map[string]any{"display_name": g.names[i], "level": json.Number("1"), "location": locationSlug(i % denseLocations),
			"faction": factionSlug(i % denseFactions), "background": longText(g.names[i], bg), "notes": notes}
	}
	state := map[string]any{"schema_version": json.Number("1"), "state_version": json.Number("0"), "last_updated_chapter": json.Number("0"),
		"characters": chars, "items": items, "locations": locations, "factions": factions,
		"world_state": map[string]any{"era": "天元历三千年"}, "active_foreshadowing": []any{}}
	return g.history(state, func(c int) []any {
		n := 10 + g.rng.IntN(21)
		ops := make([]any, 0, n)
		// One new holder per chapter: an item changes hands.
		who, it := slug(g.rng.IntN(nc)), itemSlug(g.rng.IntN(denseItems))
		ops = append(ops, map[string]any{"op": "set", "path": "items." + it + ".owner", "value": who},
			map[string]any{"op": "add", "path": "items." + it + ".holder_history",
				"value": map[string]any{"chapter": json.Number(fmt.Sprint(c)), "holder": who}})
		for len(ops) < n {
			who := slug(g.rng.IntN(nc))
			switch len(ops) % 3 {
			case 0:
				ops = append(ops, map[string]any{"op": "set", "path": "characters." + who + ".location", "value": locationSlug(g.rng.IntN(denseLocations))})
			case 1:
				ops = append(ops, map[string]any{"op": "inc", "path": "characters." + who + ".level", "value": json.Number("1")})
			case 2:
				ops = append(ops, map[string]any{"op": "set", "path": "characters." + who + ".mood", "value": fmt.Sprintf("第%d章后心绪难平", c)})
			}
		}
		return ops
	})
}

// revisions writes an accepted revision file every 100 chapters, as a
// project that went through the quality gate's revisions has.
func (g *gen) revisions() error {
	for c := 100; c <= g.o.Chapters; c += 100 {
		st := revision.New(c, revision.QualityGate, "节奏拖沓，需压缩第二场戏。", nowStamp)
		st.Decide(revision.StatusAccepted, "已按意见修改", nowStamp)
		data, err := jsonio.Marshal(st.Map())
		if err != nil {
			return err
		}
		if err := g.write(layout.Revision(c), data); err != nil {
			return err
		}
	}
	return nil
}
