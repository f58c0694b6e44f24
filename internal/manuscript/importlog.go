package manuscript

// Log is logs/import.json, the record of a `novel import` (SPEC §23); the
// backfill reads which chapters came from the manuscript.
type Log struct {
	SchemaVersion int          `json:"schema_version"`
	Source        string       `json:"source"`
	Encoding      string       `json:"encoding"`
	ImportedAt    string       `json:"imported_at"`
	Chapters      []LogChapter `json:"chapters"`
	PreambleLines int          `json:"preamble_lines"`
	TOCLines      int          `json:"toc_lines"`
}

// LogChapter is one imported chapter.
type LogChapter struct {
	Chapter    int    `json:"chapter"`
	Title      string `json:"title"`
	File       string `json:"file"`
	Paragraphs int    `json:"paragraphs"`
}
