package volumeplan

import (
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
)

// charactersDir holds the plan's proposed new characters
// ({slug}.json + {slug}.md), committed into characters/active/ with the
// volume (SPEC §17: new characters proposed by a volume plan).
const charactersDir = "characters"

// checkCharacters validates a staged plan's proposed characters and
// refuses a contract whose preconditions.character_states names someone
// who is neither in characters/active/ nor proposed (E_CONTRACT); in
// place, where nothing is proposed, such a name is a warning, as in the
// chapter packets (SPEC §6). Each proposal becomes a move into
// characters/active/ (an existing different file is E_CONFLICT through
// checkDestinations).
func checkCharacters(s source, p *Plan, storylines map[int]string) ([]proposal, error) {
	root, v := s.root, s.v
	committed, _, err := cast.Load(root)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, c := range committed {
		known[c.DisplayName] = true
	}
	var proposed []proposal
	if s.staged {
		if proposed, err = proposals(root, v); err != nil {
			return nil, err
		}
	}
	for _, pr := range proposed {
		if known[pr.name] && !root.IsFile(layout.CharactersActive+"/"+pr.slug+".json") {
			return nil, schemaErr(pr.json, "display_name", "提议的新人物 "+pr.name+" 与已有人物重名", "the proposed character "+pr.name+" has the name of an existing character")
		}
		known[pr.name] = true
	}
	croot, err := s.contractRoot()
	if err != nil {
		return nil, err
	}
	for _, c := range p.contracts {
		names, err := manifest.ContractCharacters(croot, v, c, storylines[c])
		if err != nil {
			return nil, s.fix(err)
		}
		for _, n := range names {
			if known[n] {
				continue
			}
			rel := s.contractFile(c)
			if !s.staged {
				p.Warnings = append(p.Warnings, "章节契约 "+rel+" 提到“"+n+"”，但 characters/active/ 中没有这个人物（写作时指令包会提示） / the chapter contract "+
					rel+" names "+strconv.Quote(n)+", which characters/active/ lacks (the chapter packets warn about it)")
				continue
			}
			return nil, errs.Newf(errs.Contract, "章节契约 %s 的 preconditions.character_states 提到“%s”，但 characters/active/ 中没有这个人物，卷规划也没有在 %s/ 中提议",
				"the chapter contract %s names %q in preconditions.character_states, but characters/active/ has no such character and the plan proposes none in %s/",
				rel, n, staged(v, charactersDir)).With("file", rel).With("chapter", c).With("character", n).
				Hint("用已有人物的显示名，或在卷规划的 new_characters 中登记该人物（"+staged(v, charactersDir)+"/{slug}.json 与 .md），然后重新提交",
					"use an existing character's display name, or propose the character in the plan's new_characters ("+staged(v, charactersDir)+"/{slug}.json and .md) and commit again")
		}
	}
	return proposed, nil
}

// contractFile is chapter c's contract file in the source.
func (s source) contractFile(c int) string { return s.path(contractsDir + "/" + s.contractName(c)) }

// contractName is chapter c's contract file name: the .json, or the
// plugin's Markdown one when only that exists (SPEC §22).
func (s source) contractName(c int) string {
	if md := "chapter-" + layout.Pad(c) + ".md"; !s.root.IsFile(s.path(contractsDir+"/"+layout.ContractFile(c))) && s.root.IsFile(s.path(contractsDir+"/"+md)) {
		return md
	}
	return layout.ContractFile(c)
}

type proposal struct{ slug, name, json string }

// proposals reads staging/volumes/vol-VV/characters/: every {slug}.json
// with its {slug}.md, a display_name and a role.
func proposals(root *project.Root, v int) ([]proposal, error) {
	dir := staged(v, charactersDir)
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
