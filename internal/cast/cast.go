// Package cast reads the project's active characters (characters/active/
// {slug}.json): the entity map of packets and the known names of the
// continuity audit.
package cast

import (
	"encoding/json"
	"fmt"
	"io/fs"
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
		if err == nil {
			dn, err = displayName(data[next], rel)
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
		chars = append(chars, Character{Slug: slug, DisplayName: dn})
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i].Slug < chars[j].Slug })
	return chars, warns, nil
}

// displayName is a character file's display_name ("" when absent or not
// a string), as decoding it into a struct with that one field gives. A
// valid object whose keys are plain ASCII is split, not decoded (a packet
// reads hundreds of these files); anything else — invalid JSON, another
// type, a key encoding/json might fold onto display_name — is decoded.
func displayName(data []byte, rel string) (string, error) {
	if body, err := jsonio.Validate(data, rel); err == nil {
		var raw []byte
		plain := true
		ok := jsonio.SplitObjectBytes(body, func(k []byte, v json.RawMessage) {
			if string(k) == "display_name" {
				raw = v // the last one wins, as in encoding/json
			} else if !isPlainKey(k) {
				plain = false
			}
		})
		if ok && plain {
			dn, _ := jsonio.String(raw)
			return dn, nil
		}
	}
	var c struct {
		DisplayName any `json:"display_name"`
	}
	if err := jsonio.Decode(data, rel, &c); err != nil {
		return "", err
	}
	dn, _ := c.DisplayName.(string)
	return dn, nil
}

// isPlainKey: an ASCII key that encoding/json's case-insensitive field
// match cannot take for display_name.
func isPlainKey(k []byte) bool {
	for _, c := range k {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return !strings.EqualFold(string(k), "display_name")
}
