package setupstep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/stepid"
)

var ruleIDRE = lazyre.New(`^W-[0-9]{3}$`)

// Staged lists the staged outputs of a setup stage as final paths (the
// staging copy of each is StagedPath(final)), sorted. Only the files the
// stage may produce are listed; anything else in staging/setup/ is not the
// stage's and is never moved.
func Staged(root *project.Root, stage string) ([]string, error) {
	var out []string
	add := func(final string) {
		if root.IsFile(StagedPath(final)) {
			out = append(out, final)
		}
	}
	switch stage {
	case stepid.SetupWorld:
		docs, err := root.List(StagedPath(WorldDir), ".md", false)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out = append(out, strings.TrimPrefix(d, Staging+"/"))
		}
		add(layout.WorldRules)
		add(Storylines)
		add(StoryTime)
	case stepid.SetupCharacters:
		for _, ext := range []string{".json", ".md"} {
			fs, err := root.List(StagedPath(layout.CharactersActive), ext, false)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				out = append(out, strings.TrimPrefix(f, Staging+"/"))
			}
		}
	case stepid.SetupBook:
		add(bookplan.File)
		add(bookplan.Doc)
	case stepid.SetupStyle:
		add(layout.StyleProfile)
		add(StyleSamples)
	}
	sort.Strings(out)
	return out, nil
}

// Validate checks every staged output of a setup stage (SPEC §17): the
// required files exist, Markdown is non-empty UTF-8, JSON follows its
// schema, ids are unique, slugs are slugs. It returns the staged files.
func Validate(root *project.Root, stage string) ([]string, error) {
	files, err := Staged(root, stage)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			if err := checkMarkdown(root, f); err != nil {
				return nil, err
			}
		}
	}
	switch stage {
	case stepid.SetupWorld:
		err = validateWorld(root, files)
	case stepid.SetupCharacters:
		err = validateCharacters(root, files)
	case stepid.SetupBook:
		err = validateBook(root, files)
	case stepid.SetupStyle:
		err = validateStyle(root, files)
	}
	if err != nil {
		return nil, err
	}
	return files, nil
}

func missing(stage, final, zh, en string) error {
	rel := StagedPath(final)
	return errs.New(errs.MissingFile, "setup:"+stage+" 缺少 "+rel+"（"+zh+"）", "setup:"+stage+" lacks "+rel+" ("+en+")").
		With("file", rel).With("step", "setup:"+stage).
		Hint("重新运行 setup:"+stage+" 的执行器（make -f pipeline.mk start），或补上该文件", "run the setup:"+stage+" executor again (make -f pipeline.mk start) or add the file")
}

// schemaErr is E_SCHEMA naming the staged file and field.
func schemaErr(final, field, zh, en string) *errs.Error {
	rel := StagedPath(final)
	return errs.New(errs.Schema, rel+"："+zh, rel+": "+en).With("file", rel).With("field", field).
		Hint("修正 "+rel+" 后重新校验（novel validate setup:…），或重新运行该设定步骤", "fix "+rel+" and validate again (novel validate setup:…), or run the setup step again")
}

func checkMarkdown(root *project.Root, final string) error {
	rel := StagedPath(final)
	text, err := root.ReadText(rel)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return schemaErr(final, "", "内容为空", "is empty")
	}
	return checkSlugName(final)
}

// checkSlugName: the file name (without extension) becomes part of a path
// and, for characters, the entity id, so it must be a slug.
func checkSlugName(final string) error {
	base := final[strings.LastIndex(final, "/")+1:]
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".md")
	if final == layout.StyleProfile || final == StyleSamples || final == layout.WorldRules || final == Storylines || final == bookplan.Doc || project.IsSlug(stem) {
		return nil
	}
	return schemaErr(final, "file", fmt.Sprintf("文件名 %q 不是 slug（小写字母、数字和连字符）", stem),
		fmt.Sprintf("the file name %q is not a slug (lowercase letters, digits, hyphens)", stem)).With("value", stem)
}

// readObject reads a staged JSON file that must be an object.
func readObject(root *project.Root, final string) (map[string]any, error) {
	var v any
	if err := root.ReadJSON(StagedPath(final), &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr(final, "", "必须是 JSON 对象", "must be a JSON object")
	}
	return m, nil
}

// objects reads the array field key of a staged JSON object, every
// element an object.
func objects(root *project.Root, final, key string) ([]map[string]any, error) {
	m, err := readObject(root, final)
	if err != nil {
		return nil, err
	}
	arr, ok := m[key].([]any)
	if !ok {
		return nil, schemaErr(final, key, key+" 必须是数组", key+" must be an array")
	}
	out := make([]map[string]any, len(arr))
	for i, x := range arr {
		o, ok := x.(map[string]any)
		if !ok {
			f := fmt.Sprintf("%s[%d]", key, i)
			return nil, schemaErr(final, f, f+" 必须是对象", f+" must be an object")
		}
		out[i] = o
	}
	return out, nil
}

func str(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok && strings.TrimSpace(s) != ""
}

func has(files []string, f string) bool {
	for _, x := range files {
		if x == f {
			return true
		}
	}
	return false
}

func validateWorld(root *project.Root, files []string) error {
	st := stepid.SetupWorld
	docs := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			docs++
		}
	}
	if docs == 0 {
		return missing(st, WorldDir+"/overview.md", "至少一篇世界设定文档 world/*.md", "at least one world document world/*.md")
	}
	if !has(files, layout.WorldRules) {
		return missing(st, layout.WorldRules, "世界规则", "the world rules")
	}
	if !has(files, Storylines) {
		return missing(st, Storylines, "故事线", "the storylines")
	}
	if err := validateRules(root); err != nil {
		return err
	}
	if has(files, StoryTime) {
		if _, err := storyTime(root, StagedPath(StoryTime), StoryTime); err != nil {
			return err
		}
	}
	return validateStorylines(root)
}

// storyTime reads a story clock file {"day": N ≥ 1, "label": "…"} (the
// shape of world_state.story_time, SPEC §25); final names it in errors.
func storyTime(root *project.Root, rel, final string) (map[string]any, error) {
	var v any
	if err := root.ReadJSON(rel, &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr(final, "", "必须是 JSON 对象 {\"day\":1,\"label\":\"…\"}", "must be a JSON object {\"day\":1,\"label\":\"…\"}")
	}
	if _, _, ok := stateops.StoryTime(m); !ok {
		field := "day"
		if _, isStr := m["label"].(string); !isStr {
			field = "label"
		}
		if d, isNum := jsonio.Int(m["day"]); isNum && d >= 1 && field == "day" {
			field = ""
		}
		return nil, schemaErr(final, field, "故事时钟应为 {\"day\": N（≥ 1 的整数，从全书第一个场景算起）, \"label\": \"书中的日期或时辰\"}，不含其他字段",
			"the story clock must be {\"day\": N (an integer ≥ 1, counted from the book's first scene), \"label\": \"the in-world date or time\"} and nothing else")
	}
	return m, nil
}

func validateRules(root *project.Root) error {
	f := layout.WorldRules
	rules, err := objects(root, f, "rules")
	if err != nil {
		return err
	}
	if len(rules) < minRules {
		return schemaErr(f, "rules", fmt.Sprintf("至少需要 %d 条规则，只有 %d 条", minRules, len(rules)),
			fmt.Sprintf("needs at least %d rules, has %d", minRules, len(rules)))
	}
	seen := map[string]bool{}
	for i, r := range rules {
		at := fmt.Sprintf("rules[%d]", i)
		id, _ := r["id"].(string)
		switch {
		case !ruleIDRE().MatchString(id):
			return schemaErr(f, at+".id", fmt.Sprintf("%s.id %q 不是 W-NNN 形式", at, id), fmt.Sprintf("%s.id %q is not of the form W-NNN", at, id)).With("value", id)
		case seen[id]:
			return schemaErr(f, at+".id", "规则 id "+id+" 重复", "the rule id "+id+" appears twice").With("value", id)
		}
		seen[id] = true
		for _, k := range []string{"category", "rule"} {
			if _, ok := str(r, k); !ok {
				return schemaErr(f, at+"."+k, at+"."+k+" 必须是非空字符串", at+"."+k+" must be a non-empty string").With("rule", id)
			}
		}
		if ct, _ := r["constraint_type"].(string); ct != "hard" && ct != "soft" {
			return schemaErr(f, at+".constraint_type", at+".constraint_type 只能是 hard 或 soft", at+".constraint_type must be hard or soft").With("rule", id)
		}
		if ex, ok := r["exceptions"]; ok && ex != nil {
			list, isList := ex.([]any)
			for _, x := range list {
				if _, isStr := x.(string); !isStr {
					isList = false
				}
			}
			if !isList {
				return schemaErr(f, at+".exceptions", at+".exceptions 必须是字符串数组", at+".exceptions must be an array of strings").With("rule", id)
			}
		}
		// keywords put the rule in play in a chapter that uses them (SPEC §25).
		if kw, ok := r["keywords"]; ok && kw != nil {
			list, isList := kw.([]any)
			for _, x := range list {
				if w, isStr := x.(string); !isStr || strings.TrimSpace(w) == "" {
					isList = false
				}
			}
			if !isList {
				return schemaErr(f, at+".keywords", at+".keywords 必须是非空字符串数组（本规则在正文中的关键词）",
					at+".keywords must be an array of non-empty strings (the words that put the rule in play)").With("rule", id)
			}
		}
	}
	return nil
}

func validateStorylines(root *project.Root) error {
	f := Storylines
	lines, err := objects(root, f, "storylines")
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return schemaErr(f, "storylines", "至少需要一条故事线", "needs at least one storyline")
	}
	seen := map[string]bool{}
	for i, l := range lines {
		at := fmt.Sprintf("storylines[%d]", i)
		id, _ := l["id"].(string)
		if !project.IsSlug(id) {
			return schemaErr(f, at+".id", fmt.Sprintf("%s.id %q 不是 slug（小写字母、数字和连字符）", at, id),
				fmt.Sprintf("%s.id %q is not a slug (lowercase letters, digits, hyphens)", at, id)).With("value", id)
		}
		if seen[id] {
			return schemaErr(f, at+".id", "故事线 id "+id+" 重复", "the storyline id "+id+" appears twice").With("value", id)
		}
		seen[id] = true
		for _, k := range []string{"name", "type"} {
			if _, ok := str(l, k); !ok {
				return schemaErr(f, at+"."+k, at+"."+k+" 必须是非空字符串", at+"."+k+" must be a non-empty string").With("storyline", id)
			}
		}
	}
	return nil
}

func validateCharacters(root *project.Root, files []string) error {
	st := stepid.SetupCharacters
	protagonists := []string{}
	names := map[string]string{}
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".json") {
			continue
		}
		if err := checkSlugName(f); err != nil {
			return err
		}
		n++
		md := strings.TrimSuffix(f, ".json") + ".md"
		if !has(files, md) {
			return missing(st, md, "每个人物都要有档案 {slug}.md", "every character needs its profile {slug}.md")
		}
		c, err := readObject(root, f)
		if err != nil {
			return err
		}
		name, ok := str(c, "display_name")
		if !ok {
			return schemaErr(f, "display_name", "display_name 必须是非空字符串", "display_name must be a non-empty string")
		}
		if other, dup := names[name]; dup {
			return schemaErr(f, "display_name", "显示名 "+name+" 与 "+StagedPath(other)+" 重复", "the display name "+name+" is also used by "+StagedPath(other)).With("value", name)
		}
		names[name] = f
		role, ok := str(c, "role")
		if !ok {
			return schemaErr(f, "role", "role 必须是非空字符串（如 protagonist、ally、antagonist）", "role must be a non-empty string (protagonist, ally, antagonist, …)")
		}
		if role == roleProtagonst {
			protagonists = append(protagonists, f)
		}
		if _, ok := c["abilities"].([]any); !ok {
			return schemaErr(f, "abilities", "abilities 必须是数组", "abilities must be an array")
		}
		// The suite writes an object; the plugin writes a list of edges
		// ({target, type, …}), possibly empty. Both are read as they are.
		switch c["relationships"].(type) {
		case map[string]any, []any:
		default:
			return schemaErr(f, "relationships", "relationships 必须是对象（显示名 → 关系）或数组（插件的关系列表）",
				"relationships must be an object (display name → relation) or an array (the plugin's list of relations)")
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".md") && !has(files, strings.TrimSuffix(f, ".md")+".json") {
			return missing(st, strings.TrimSuffix(f, ".md")+".json", "档案 "+f+" 没有对应的人物合同", "the profile "+f+" has no character contract")
		}
	}
	if n < minCharacters {
		return schemaErr(layout.CharactersActive, "", fmt.Sprintf("至少需要 %d 个人物，只有 %d 个", minCharacters, n),
			fmt.Sprintf("needs at least %d characters, has %d", minCharacters, n))
	}
	if len(protagonists) != 1 {
		return schemaErr(layout.CharactersActive, "role", fmt.Sprintf("必须恰好有一个 role 为 protagonist 的人物，现有 %d 个", len(protagonists)),
			fmt.Sprintf("exactly one character must have role protagonist; there are %d", len(protagonists))).With("protagonists", protagonists)
	}
	return nil
}

// validateBook checks the staged book plan (SPEC §25) against the
// committed cast: its characters must be registered display names.
func validateBook(root *project.Root, files []string) error {
	st := stepid.SetupBook
	if !has(files, bookplan.File) {
		return missing(st, bookplan.File, "全书规划", "the book plan")
	}
	if !has(files, bookplan.Doc) {
		return missing(st, bookplan.Doc, "给作者看的全书规划说明", "the book plan for the author to read")
	}
	_, err := bookplan.Read(root, StagedPath(bookplan.File))
	return err
}

var sourceTypes = map[string]bool{"original": true, "reference": true, "template": true}

func validateStyle(root *project.Root, files []string) error {
	st := stepid.SetupStyle
	f := layout.StyleProfile
	if !has(files, f) {
		return missing(st, f, "文风档案", "the style profile")
	}
	if !has(files, StyleSamples) {
		return missing(st, StyleSamples, "文风样本", "the style samples")
	}
	p, err := readObject(root, f)
	if err != nil {
		return err
	}
	if _, ok := str(p, "platform"); !ok {
		return schemaErr(f, "platform", "platform 必须是非空字符串", "platform must be a non-empty string")
	}
	if s, _ := p["source_type"].(string); !sourceTypes[s] {
		return schemaErr(f, "source_type", "source_type 只能是 original、reference 或 template", "source_type must be original, reference or template").With("value", p["source_type"])
	}
	if n, ok := number(p["avg_sentence_length"]); !ok || n <= 0 {
		return schemaErr(f, "avg_sentence_length", "avg_sentence_length 必须是正数", "avg_sentence_length must be a positive number")
	}
	if n, ok := number(p["dialogue_ratio"]); !ok || n < 0 || n > 1 {
		return schemaErr(f, "dialogue_ratio", "dialogue_ratio 必须是 0 到 1 之间的数", "dialogue_ratio must be a number from 0 to 1")
	}
	if _, ok := p["preferred_expressions"].([]any); !ok {
		return schemaErr(f, "preferred_expressions", "preferred_expressions 必须是数组", "preferred_expressions must be an array")
	}
	voice, _ := p["voice"].(map[string]any)
	for _, k := range []string{"narrator", "protagonist_tone"} {
		if _, ok := str(voice, k); !ok {
			return schemaErr(f, "voice."+k, "voice."+k+" 必须是非空字符串", "voice."+k+" must be a non-empty string")
		}
	}
	return nil
}

// number reads a JSON number (decoded as json.Number).
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
