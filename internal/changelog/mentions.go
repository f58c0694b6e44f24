package changelog

import (
	"encoding/json"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
)

// deriveMentions is the ledger the chapters and the changelog give: one
// line per commit line, in changelog order, counting the chapter file
// against today's registered characters and the item and location names
// of the state replayed through that chapter. A chapter whose file is gone
// counts nothing.
func deriveMentions(root *project.Root) ([]byte, error) {
	b, entries, err := replayInputs(root)
	if err != nil {
		return nil, err
	}
	return deriveMentionsFrom(root, b, entries)
}

// MentionsFor is the ledger the changelog data gives (an amend's
// recomputed one) from the project's baseline.
func MentionsFor(root *project.Root, data []byte) ([]byte, error) {
	entries, err := readEntries(data)
	if err != nil {
		return nil, err
	}
	b, err := loadBase(root)
	if err != nil {
		return nil, err
	}
	return deriveMentionsFrom(root, b, entries)
}

// deriveMentionsFrom is deriveMentions over a given changelog (an amend's
// recomputed one); the base state is consumed.
func deriveMentionsFrom(root *project.Root, b *replayBase, entries []Entry) ([]byte, error) {
	chars, _, err := cast.Load(root)
	if err != nil {
		return nil, err
	}
	names := mentions.Names{Characters: mentions.Characters(chars)}
	var lines []mentions.Line
	var ferr error
	named := false // names hold the state's item and location names
	_, _, err = replayWith(b, entries, 0, func(e Entry, st map[string]any) {
		if ferr != nil {
			return
		}
		text := ""
		if root.IsFile(layout.Chapter(e.Chapter)) {
			if text, ferr = products.ChapterText(root, layout.Chapter(e.Chapter)); ferr != nil {
				return
			}
		}
		if !named || touchesNames(e.Ops) {
			names.Items, names.Locations = mentions.GroupNames(st["items"]), mentions.GroupNames(st["locations"])
			named = true
		}
		lines = append(lines, mentions.Count(e.Chapter, text, names))
	})
	if err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	return mentions.Encode(lines)
}

// CheckMentions compares state/mentions.jsonl with deriveMentions for
// rebuild --check and reports it in res.Mentions: "matches"; "missing" or
// "partial" for a project committed before the ledger existed (no file,
// or one that starts at the first chapter committed since and matches
// from there); or "differs", with res.MentionsDifference naming the first
// differing chapter. None of these fails the check: the ledger is derived
// from the chapters' text, which the author may have edited ahead of
// `make … amend` (the amend re-derives it), and rebuild rewrites it.
func CheckMentions(root *project.Root, res *RebuildResult) error {
	want, err := deriveMentions(root)
	if err != nil {
		return err
	}
	if !root.Exists(layout.Mentions) {
		res.Mentions = "missing"
		if len(want) == 0 {
			res.Mentions = "matches"
		}
		return nil
	}
	have, err := root.ReadFile(layout.Mentions)
	if err != nil {
		return err
	}
	if string(have) == string(want) {
		res.Mentions = "matches"
		return nil
	}
	where := "(file does not parse)"
	if hl, err := mentions.Parse(have); err == nil {
		wl, _ := mentions.Parse(want)
		if len(hl) > 0 {
			for len(wl) > 0 && wl[0].Chapter < hl[0].Chapter {
				wl = wl[1:]
			}
		}
		if where = mentions.Diff(hl, wl); where == "" {
			res.Mentions = "partial"
			return nil
		}
	}
	res.Mentions, res.MentionsDifference = "differs", where
	return nil
}

// rebuildMentions rewrites state/mentions.jsonl when it is missing or
// differs from deriveMentions, keeping the old file under state/backups/.
func rebuildMentions(root *project.Root, res *RebuildResult, now string) error {
	want, err := deriveMentions(root)
	if err != nil {
		return err
	}
	have, err := root.ReadIfExists(layout.Mentions)
	if err != nil {
		return err
	}
	if have != nil && string(have) == string(want) || have == nil && len(want) == 0 {
		res.Mentions = "matches"
		return nil
	}
	if err := replaceKept(root, res, layout.Mentions, have, want, now); err != nil {
		return err
	}
	res.Mentions = "rebuilt"
	return nil
}

// touchesNames reports whether a changelog line's ops may rename an item
// or a location (mentions.TouchesNames).
func touchesNames(ops []json.RawMessage) bool {
	for _, raw := range ops {
		var op struct{ Op, Path string }
		if json.Unmarshal(raw, &op) == nil && mentions.TouchesNames(op.Op, op.Path) {
			return true
		}
	}
	return false
}
