package manuscript

// Log is logs/import.json, the record of a `novel import` (SPEC §23,
// §22.1); the backfill reads which chapters came from the manuscript.
// Chapters lists every imported chapter of the project: a later part of
// the book (--start N) keeps the earlier import's chapters below N, and
// that import's record moves into Previous.
type Log struct {
	SchemaVersion int          `json:"schema_version"`
	Source        string       `json:"source"`
	Encoding      string       `json:"encoding"`
	ImportedAt    string       `json:"imported_at"`
	Start         int          `json:"start"`
	Unwrap        string       `json:"unwrap"` // "on" when hard-wrapped lines were re-joined, else "off"
	Chapters      []LogChapter `json:"chapters"`
	Volumes       []VolumeMark `json:"volumes"`
	FrontMatter   []Matter     `json:"front_matter"`
	BackMatter    []Matter     `json:"back_matter"`
	PreambleLines int          `json:"preamble_lines"`
	TOCLines      int          `json:"toc_lines"`
	SkippedLines  []Skipped    `json:"skipped_lines"`
	Previous      []Log        `json:"previous,omitempty"`
}

// LogChapter is one imported chapter.
type LogChapter struct {
	Chapter    int    `json:"chapter"`
	Title      string `json:"title"`
	File       string `json:"file"`
	Paragraphs int    `json:"paragraphs"`
}

// Continue makes l, the log of an import starting at chapter l.Start,
// follow old (the project's log, nil when it has none): old's chapters below start
// are kept in Chapters, and old's record (with its own Previous) is kept
// when it imported any of them; a re-import of the same part replaces it.
func (l *Log) Continue(old *Log) {
	if old == nil {
		return
	}
	var kept []LogChapter
	for _, c := range old.Chapters {
		if c.Chapter < l.Start {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return
	}
	l.Chapters = append(kept, l.Chapters...)
	for _, p := range append(old.Previous, *old) {
		if p.Start < l.Start {
			p.Chapters = own(p, l.Start)
			p.Previous = nil
			l.Previous = append(l.Previous, p)
		}
	}
}

// own is the chapters a previous import wrote itself (from its start) that
// the new import, starting at start, keeps.
func own(p Log, start int) []LogChapter {
	out := []LogChapter{}
	for _, c := range p.Chapters {
		if c.Chapter >= p.Start && c.Chapter < start {
			out = append(out, c)
		}
	}
	return out
}
