package commit

import (
	"encoding/json"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/mentions"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// Mentions ledger (SPEC §25): the commit appends chapter C's line to
// state/mentions.jsonl with the changelog line; amend, rollback and
// rebuild keep the file equal to what the chapters and the changelog
// derive (deriveMentions).

// prepareMentions counts the registered names in the committed text of
// j.Chapter: the characters' display names and the item and location
// names of the state the commit writes (doc with its applied ops). Only
// this chapter is read, so the commit does not grow with the book.
func prepareMentions(root *project.Root, j *Journal, doc *stateops.Doc, applied []stateops.Op) error {
	rel := layout.StagingChapter(j.Chapter)
	if j.Backfill {
		rel = layout.Chapter(j.Chapter) // an imported chapter is already in place
	}
	text, err := products.ChapterText(root, rel)
	if err != nil {
		return err
	}
	cr := castRead{}
	if j.cast != nil {
		cr = <-j.cast
	} else {
		cr.chars, _, cr.err = cast.Load(root)
	}
	if cr.err != nil {
		return cr.err
	}
	n := mentions.Names{Characters: mentions.Characters(cr.chars)}
	n.Items, n.Locations = mentions.StateNames(doc, applied)
	line, err := mentions.Count(j.Chapter, text, n).Marshal()
	if err != nil {
		return errs.Newf(errs.IO, "无法编码提及记录：%v", "cannot encode the mentions line: %v", err)
	}
	size, err := fileSize(root, layout.Mentions)
	if err != nil {
		return err
	}
	sep, err := appendSeparator(root, layout.Mentions, size)
	if err != nil {
		return err
	}
	j.Mentions = &journal.Append{File: layout.Mentions, SizeBefore: size, Text: sep + string(line)}
	return nil
}

// castRead is cast.Load's result, read ahead by Prepare.
type castRead struct {
	chars []cast.Character
	err   error
}

func preloadCast(root *project.Root) <-chan castRead {
	ch := make(chan castRead, 1)
	go func() {
		var r castRead
		r.chars, _, r.err = cast.Load(root)
		ch <- r
	}()
	return ch
}

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

// deriveMentionsFrom is deriveMentions over a given changelog (an amend's
// recomputed one); the base state is consumed.
func deriveMentionsFrom(root *project.Root, b *replayBase, entries []entry) ([]byte, error) {
	chars, _, err := cast.Load(root)
	if err != nil {
		return nil, err
	}
	names := mentions.Names{Characters: mentions.Characters(chars)}
	var lines []mentions.Line
	var ferr error
	named := false // names hold the state's item and location names
	_, _, err = replayWith(b, entries, 0, func(e entry, st map[string]any) {
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

// amendMentions stages the ledger the amended changelog gives (the
// chapter's new text is already in chapters/), replaced in the state step
// with the changelog. A project without a ledger gets none here: rebuild
// writes the whole of it.
func amendMentions(root *project.Root, j *AmendJournal, changelog []byte) error {
	if !root.Exists(layout.Mentions) {
		return nil
	}
	entries, err := readEntries(changelog)
	if err != nil {
		return err
	}
	b, err := loadBase(root)
	if err != nil {
		return err
	}
	data, err := deriveMentionsFrom(root, b, entries)
	if err != nil {
		return err
	}
	j.stage(&j.State, layout.Mentions, data)
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
