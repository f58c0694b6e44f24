package commit

import (
	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/changelog"
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

// amendMentions stages the ledger the amended changelog gives (the
// chapter's new text is already in chapters/), replaced in the state step
// with the changelog. A project without a ledger gets none here: rebuild
// writes the whole of it.
func amendMentions(root *project.Root, j *AmendJournal, log []byte) error {
	if !root.Exists(layout.Mentions) {
		return nil
	}
	data, err := changelog.MentionsFor(root, log)
	if err != nil {
		return err
	}
	j.stage(&j.State, layout.Mentions, data)
	return nil
}
