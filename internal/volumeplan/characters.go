package volumeplan

import (
	"strings"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
)

// CharactersDir holds the plan's proposed new characters
// ({slug}.json + {slug}.md), committed into characters/active/ with the
// volume (SPEC §17: new characters proposed by a volume plan).
const CharactersDir = "characters"

// checkCharacters validates the proposed characters and refuses a
// contract whose preconditions.character_states names someone who is
// neither in characters/active/ nor proposed (E_CONTRACT). Each proposal
// becomes a move into characters/active/ (an existing different file is
// E_CONFLICT through checkDestinations).
func checkCharacters(root *project.Root, v int, p *Plan, contracts []int, storylines map[int]string) error {
	committed, _, err := cast.Load(root)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, c := range committed {
		known[c.DisplayName] = true
	}
	proposed, err := proposals(root, v)
	if err != nil {
		return err
	}
	for _, pr := range proposed {
		if known[pr.name] && !root.IsFile(layout.CharactersActive+"/"+pr.slug+".json") {
			return schemaErr(pr.json, "display_name", "提议的新人物 "+pr.name+" 与已有人物重名", "the proposed character "+pr.name+" has the name of an existing character")
		}
		known[pr.name] = true
		for _, ext := range []string{".json", ".md"} {
			p.Moves = append(p.Moves, journal.Move{From: Staged(v, CharactersDir+"/"+pr.slug+ext), To: layout.CharactersActive + "/" + pr.slug + ext})
		}
	}
	sroot, err := stagingRoot(root)
	if err != nil {
		return err
	}
	for _, c := range contracts {
		names, err := manifest.ContractCharacters(sroot, v, c, storylines[c])
		if err != nil {
			return restage(err, v)
		}
		for _, n := range names {
			if known[n] {
				continue
			}
			rel := "staging/" + layout.Contract(v, c)
			return errs.Newf(errs.Contract, "章节契约 %s 的 preconditions.character_states 提到“%s”，但 characters/active/ 中没有这个人物，卷规划也没有在 %s/ 中提议",
				"the chapter contract %s names %q in preconditions.character_states, but characters/active/ has no such character and the plan proposes none in %s/",
				rel, n, Staged(v, CharactersDir)).With("file", rel).With("chapter", c).With("character", n).
				Hint("用已有人物的显示名，或在卷规划的 new_characters 中登记该人物（"+Staged(v, CharactersDir)+"/{slug}.json 与 .md），然后重新提交",
					"use an existing character's display name, or propose the character in the plan's new_characters ("+Staged(v, CharactersDir)+"/{slug}.json and .md) and commit again")
		}
	}
	return nil
}

type proposal struct{ slug, name, json string }

// proposals reads staging/volumes/vol-VV/characters/: every {slug}.json
// with its {slug}.md, a display_name and a role.
func proposals(root *project.Root, v int) ([]proposal, error) {
	dir := Staged(v, CharactersDir)
	ents, err := root.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = !e.IsDir()
	}
	var out []proposal
	names := map[string]string{}
	for _, e := range ents {
		name := e.Name()
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".md")
		rel := dir + "/" + name
		switch {
		case e.IsDir() || (!strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".md")) || !project.IsSlug(stem):
			return nil, schemaErr(rel, "file", "提议的人物文件必须命名为 {slug}.json 与 {slug}.md", "proposed character files must be named {slug}.json and {slug}.md")
		case strings.HasSuffix(name, ".md"):
			if !have[stem+".json"] {
				return nil, schemaErr(rel, "file", "没有对应的人物合同 "+stem+".json", "has no character contract "+stem+".json")
			}
			if text, err := root.ReadText(rel); err != nil {
				return nil, err
			} else if strings.TrimSpace(text) == "" {
				return nil, schemaErr(rel, "", "内容为空", "is empty")
			}
			continue
		}
		if !have[stem+".md"] {
			return nil, schemaErr(rel, "file", "没有对应的人物档案 "+stem+".md", "has no character profile "+stem+".md")
		}
		var c map[string]any
		if err := root.ReadJSON(rel, &c); err != nil {
			return nil, err
		}
		dn, _ := c["display_name"].(string)
		role, _ := c["role"].(string)
		switch {
		case strings.TrimSpace(dn) == "":
			return nil, schemaErr(rel, "display_name", "display_name 必须是非空字符串", "display_name must be a non-empty string")
		case strings.TrimSpace(role) == "":
			return nil, schemaErr(rel, "role", "role 必须是非空字符串", "role must be a non-empty string")
		case names[dn] != "":
			return nil, schemaErr(rel, "display_name", "显示名 "+dn+" 与 "+names[dn]+" 重复", "the display name "+dn+" is also used by "+names[dn])
		}
		names[dn] = rel
		out = append(out, proposal{slug: stem, name: dn, json: rel})
	}
	return out, nil
}

func schemaErr(rel, field, zh, en string) error {
	return errs.New(errs.Schema, rel+"："+zh, rel+": "+en).With("file", rel).With("field", field).
		Hint("修正该文件后重新提交，或重新规划", "fix the file and commit again, or re-plan")
}
