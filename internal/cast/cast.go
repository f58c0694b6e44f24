// Package cast reads the project's active characters (characters/active/
// {slug}.json): the entity map of packets and the known names of the
// continuity audit.
package cast

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Character is one characters/active/{slug}.json.
type Character struct {
	Slug        string
	DisplayName string
}

// Load lists characters/active/*.json sorted by slug. Files
// whose name is not a slug cannot be referenced by ops and are skipped
// with a warning.
func Load(root *project.Root) ([]Character, []string, error) {
	dir, err := root.Listing(layout.CharactersActive)
	if err != nil {
		return nil, nil, err
	}
	defer dir.Close()
	// The files are read first, all at once (hundreds of small files:
	// the system calls run in parallel), then taken in name order, so
	// the first bad file is the one reported, as before.
	var files, slugFiles []fs.DirEntry
	for _, e := range dir.Entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		files = append(files, e)
		if project.IsSlug(strings.TrimSuffix(name, ".json")) {
			slugFiles = append(slugFiles, e)
		}
	}
	data, readErrs := dir.ReadFiles(slugFiles)
	var chars []Character
	var warns []string
	next := 0 // the next of slugFiles
	for _, e := range files {
		slug := strings.TrimSuffix(e.Name(), ".json")
		rel := layout.CharacterContract(slug)
		if !project.IsSlug(slug) {
			warns = append(warns, fmt.Sprintf("角色文件 %s 的文件名不是合法的 slug，已忽略 / character file %s: the name is not a slug; skipped", rel, rel))
			continue
		}
		var c struct {
			DisplayName any `json:"display_name"`
		}
		err := readErrs[next]
		if err == nil {
			err = jsonio.Decode(data[next], rel, &c)
		}
		next++
		if err != nil {
			if errs.Is(err, errs.Schema) {
				return nil, nil, errs.New(errs.Schema, rel+" 必须是 JSON 对象", rel+" must be a JSON object").With("file", rel).
					Hint("按 SPEC §2 的格式修正该文件后重试", "fix the file to the documented format (SPEC §2) and retry")
			}
			return nil, nil, err
		}
		dn, _ := c.DisplayName.(string)
		dn = strings.TrimSpace(dn)
		if dn == "" {
			warns = append(warns, fmt.Sprintf("角色文件 %s 缺少 display_name，按 slug 处理 / character file %s has no display_name; using the slug", rel, rel))
			dn = slug
		}
		chars = append(chars, Character{Slug: slug, DisplayName: dn})
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i].Slug < chars[j].Slug })
	return chars, warns, nil
}
