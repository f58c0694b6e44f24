// Package cast reads the project's active characters (characters/active/
// {slug}.json): the entity map of packets and the known names of the
// continuity audit.
package cast

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Character is one characters/active/{slug}.json.
type Character struct {
	Slug        string
	DisplayName string
	// Aliases are the other names the text may call the character by
	// (the file's aliases: 小满 for 沈小满), trimmed, without the display
	// name or duplicates.
	Aliases []string
}

// Names are the names the text may use for the character: the display
// name, then the aliases.
func (c Character) Names() []string {
	out := make([]string, 0, 1+len(c.Aliases))
	if c.DisplayName != "" {
		out = append(out, c.DisplayName)
	}
	return append(out, c.Aliases...)
}

// NamedIn reports whether text names the character by any of its names.
func (c Character) NamedIn(text string) bool {
	for _, n := range c.Names() {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
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
		err := readErrs[next]
		var dn string
		var aliases []string
		if err == nil {
			dn, aliases, err = names(data[next], rel)
		}
		next++
		if err != nil {
			if errs.Is(err, errs.Schema) {
				return nil, nil, errs.New(errs.Schema, rel+" 必须是 JSON 对象", rel+" must be a JSON object").With("file", rel).
					Hint("按 SPEC §2 的格式修正该文件后重试", "fix the file to the documented format (SPEC §2) and retry")
			}
			return nil, nil, err
		}
		dn = strings.TrimSpace(dn)
		if dn == "" {
			warns = append(warns, fmt.Sprintf("角色文件 %s 缺少 display_name，按 slug 处理 / character file %s has no display_name; using the slug", rel, rel))
			dn = slug
		}
		chars = append(chars, Character{Slug: slug, DisplayName: dn, Aliases: cleanAliases(aliases, dn)})
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i].Slug < chars[j].Slug })
	return chars, warns, nil
}

// names are a character file's display_name ("" when absent or not a
// string) and the strings of its aliases array, as decoding it into a
// struct with those two fields gives. A valid object whose keys are plain
// ASCII is split, not decoded (a packet reads hundreds of these files);
// anything else — invalid JSON, another type, a key encoding/json might
// fold onto either field — is decoded.
func names(data []byte, rel string) (string, []string, error) {
	if body, err := jsonio.Validate(data, rel); err == nil {
		var rawName, rawAliases []byte
		plain := true
		ok := jsonio.SplitObjectBytes(body, func(k []byte, v json.RawMessage) {
			switch {
			case string(k) == "display_name":
				rawName = v // the last one wins, as in encoding/json
			case string(k) == "aliases":
				rawAliases = v
			case !isPlainKey(k):
				plain = false
			}
		})
		if ok && plain {
			dn, _ := jsonio.String(rawName)
			var list any
			if rawAliases != nil {
				_ = json.Unmarshal(rawAliases, &list) // valid JSON: Validate checked the file
			}
			return dn, stringsOf(list), nil
		}
	}
	var c struct {
		DisplayName any `json:"display_name"`
		Aliases     any `json:"aliases"`
	}
	if err := jsonio.Decode(data, rel, &c); err != nil {
		return "", nil, err
	}
	dn, _ := c.DisplayName.(string)
	return dn, stringsOf(c.Aliases), nil
}

// stringsOf is the strings of a decoded array (nil for anything else).
func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// cleanAliases trims the aliases and drops empty ones, the display name
// and repeats.
func cleanAliases(aliases []string, dn string) []string {
	var out []string
	for _, a := range aliases {
		a = strings.TrimSpace(a)
		if a != "" && a != dn && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// isPlainKey: an ASCII key that encoding/json's case-insensitive field
// match cannot take for display_name or aliases.
func isPlainKey(k []byte) bool {
	for _, c := range k {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return !strings.EqualFold(string(k), "display_name") && !strings.EqualFold(string(k), "aliases")
}
