package manifest

import (
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/setupstep"
	"github.com/novelsuite/novel/internal/stepid"
)

// briefGenre reads the 类型 line novel init writes into brief.md.
var briefGenre = lazyre.New(`(?m)^-\s*\*\*类型\*\*[:：]\s*(.+?)\s*$`)

// setup is the packet of setup:world|characters|book|style (SPEC §17,
// §25): the brief, platform and genre, every research/*.md;
// character-weaver also gets the committed world, plot-architect's book
// plan the world and the cast, style-analyzer the author's
// style-samples/*.md.
// Inputs that are not UTF-8 are E_SCHEMA naming the file, with or without
// --embed, so no executor ever sees mojibake.
func (b *builder) setup() error {
	stage := b.st.Stage
	b.p.Agent = Agent{Name: b.st.Agent(), Kind: KindAgent, Mode: stepid.SetupMode(stage)}
	b.p.Next = []string{"novel-step validate " + b.st.String(), "novel-commit setup --step " + stage}
	if !b.has(layout.Brief) {
		return errs.Newf(errs.MissingFile, "缺少 %s：设定步骤从项目简介出发", "%s is missing: the setup steps start from the project brief", layout.Brief).
			With("file", layout.Brief).Hint("用 novel init 创建项目，或写一份 brief.md", "create the project with novel init, or write a brief.md")
	}
	plat := b.set.Platform
	if plat == "" {
		plat = "general"
	}
	b.in.Set("platform", plat)
	b.in.Set("platform_name", platform.Label(plat))
	brief, err := b.root.ReadText(layout.Brief)
	if err != nil {
		return err
	}
	if m := briefGenre().FindStringSubmatch(brief); m != nil && !strings.Contains(m[1], "待补充") {
		b.in.Set("genre", m[1])
	}
	if b.set.WordsPerChapter > 0 {
		b.in.Set("words_per_chapter", b.set.WordsPerChapter)
	}
	b.ps.Set("project_brief", layout.Brief)
	if err := b.textPaths("research", layout.ResearchDir); err != nil {
		return err
	}
	switch stage {
	case stepid.SetupWorld:
		b.pathIf("storyline_spec", layout.StorylineSpec)
		b.setupOutputs(setupstep.WorldDir+"/overview.md", layout.WorldRules, setupstep.Storylines)
		// The story clock's opening value is optional (SPEC §25).
		b.output(setupstep.StagedPath(setupstep.StoryTime), false, ViaFile)
	case stepid.SetupCharacters:
		if err := b.textPaths("world_docs", setupstep.WorldDir); err != nil {
			return err
		}
		b.pathIf("world_rules", layout.WorldRules)
		b.pathIf("storylines", setupstep.Storylines)
		b.setupOutputs(layout.CharactersActive + "/{slug}.json")
		b.output(setupstep.StagedPath(layout.CharactersActive+"/{slug}.md"), true, ViaFile)
	case stepid.SetupBook:
		if err := b.setupBook(); err != nil {
			return err
		}
	case stepid.SetupStyle:
		if err := b.textPaths("style_samples", setupstep.SamplesDir); err != nil {
			return err
		}
		_, has := b.ps.Get("style_samples")
		b.in.Set("source_type_hint", map[bool]string{true: "original", false: "reference"}[has])
		b.pathIf("world_rules", layout.WorldRules)
		b.setupOutputs(layout.StyleProfile, setupstep.StyleSamples)
	}
	return nil
}

// textPaths lists dir/*.md under key after checking each is UTF-8 text.
func (b *builder) textPaths(key, dir string) error {
	files, err := b.root.List(dir, ".md", false)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := b.root.ReadText(f); err != nil {
			return err
		}
	}
	b.pathsIf(key, files)
	return nil
}

func (b *builder) setupOutputs(finals ...string) {
	for _, f := range finals {
		b.output(setupstep.StagedPath(f), true, ViaFile)
	}
}

// setupBook is the book plan's packet (SPEC §25): the committed world and
// cast, the book's target length (the brief's 目标章数, else
// bookplan.Default), the volume length when one is set, and the display
// names main_arcs may use.
func (b *builder) setupBook() error {
	if err := b.textPaths("world_docs", setupstep.WorldDir); err != nil {
		return err
	}
	b.pathIf("world_rules", layout.WorldRules)
	b.pathIf("storylines", setupstep.Storylines)
	chars, err := b.characters()
	if err != nil {
		return err
	}
	var contracts, profiles, names []string
	for _, c := range chars {
		contracts = append(contracts, layout.CharacterContract(c.Slug))
		profiles = append(profiles, layout.CharacterProfile(c.Slug))
		names = append(names, c.DisplayName)
	}
	b.pathsIf("character_contracts", contracts)
	b.pathsIf("character_profiles", profiles)
	b.in.Set("target_chapters", bookplan.Target(b.root))
	if n, _ := b.target(); n > 0 {
		b.in.Set("chapters_per_volume", n)
	}
	b.in.Set("cast_names", names)
	b.setupOutputs(bookplan.File, bookplan.Doc)
	return nil
}
