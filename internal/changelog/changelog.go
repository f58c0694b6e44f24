package changelog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// Line is one state/changelog.jsonl Entry (SPEC §8.2), field order as
// documented. Replaying Ops from the baseline reproduces the state.
type Line struct {
	Chapter          int                `json:"chapter"`
	StateVersion     int                `json:"state_version"`
	BaseStateVersion int                `json:"base_state_version"`
	StorylineID      string             `json:"storyline_id"`
	CommittedAt      string             `json:"committed_at"`
	Ops              []any              `json:"ops"`
	Dropped          []stateops.Dropped `json:"dropped"`
}

// rawLine is Line as read back (ops kept raw for replay).
type rawLine struct {
	Chapter      int               `json:"chapter"`
	StateVersion int               `json:"state_version"`
	StorylineID  string            `json:"storyline_id"`
	Ops          []json.RawMessage `json:"ops"`
}

// LastOnStoryline scans the changelog backwards for the newest chapter
// below before committed on storyline id; 0 when there is none. Reading
// backwards keeps this cheap on a long changelog (the line is usually a
// few chapters back).
func LastOnStoryline(root *project.Root, id string, before int) (int, error) {
	needle := []byte(`"storyline_id":` + string(mustJSON(id)))
	found := 0
	err := scanBack(root, layout.Changelog, func(ln []byte) bool {
		if !bytes.Contains(ln, needle) {
			return true
		}
		var rl rawLine
		if json.Unmarshal(ln, &rl) == nil && rl.StorylineID == id && rl.Chapter < before {
			found = rl.Chapter
			return false
		}
		return true
	})
	return found, err
}

// scanBack calls fn with each line of the log rel, last line first, until
// fn returns false; a missing log has no lines. Only the chunks it needs
// are read (64 KiB at a time), so the tail of a long log is cheap.
func scanBack(root *project.Root, rel string, fn func(line []byte) bool) error {
	abs, err := root.Abs(rel)
	if err != nil {
		return err
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return errs.AccessFailed(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return errs.AccessFailed(rel, err)
	}
	const chunk = 64 << 10
	end := st.Size()
	var tail []byte // an incomplete line carried to the next (earlier) chunk
	for end > 0 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start, int(end-start)+len(tail))
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return errs.AccessFailed(rel, err)
		}
		buf = append(buf, tail...)
		lines := bytes.Split(buf, []byte{'\n'})
		first := 0
		if start > 0 {
			tail, first = lines[0], 1
		}
		for i := len(lines) - 1; i >= first; i-- {
			if !fn(lines[i]) {
				return nil
			}
		}
		end = start
	}
	return nil
}

// ChapterTime is the story clock a committed chapter set (SPEC §25).
type ChapterTime struct {
	Chapter int    `json:"chapter"`
	Day     int    `json:"day"`
	Label   string `json:"label"`
}

// StoryTimes reads, from the changelog's tail, the story clock set by
// each committed chapter from..to (the last set op of its line), in
// chapter order; chapters that set none are left out. Lines are read
// back only until a chapter before from.
func StoryTimes(root *project.Root, from, to int) ([]ChapterTime, error) {
	needle := []byte(`"` + stateops.StoryTimePath + `"`)
	var out []ChapterTime
	seen := map[int]bool{}
	err := scanBack(root, layout.Changelog, func(ln []byte) bool {
		if len(bytes.TrimSpace(ln)) == 0 {
			return true
		}
		var rl rawLine
		if json.Unmarshal(ln, &rl) != nil {
			return true // a torn or foreign line: rebuild --check reports it
		}
		if rl.Chapter < from {
			return false
		}
		if rl.Chapter > to || seen[rl.Chapter] || !bytes.Contains(ln, needle) {
			return true
		}
		for i := len(rl.Ops) - 1; i >= 0; i-- {
			v, err := stateops.Decode(rl.Ops[i])
			if err != nil {
				continue
			}
			if op, reason := stateops.Validate(v); reason == "" && op.Kind == stateops.Set && op.Path == stateops.StoryTimePath {
				day, label, _ := stateops.StoryTime(op.Value)
				out = append(out, ChapterTime{Chapter: rl.Chapter, Day: day, Label: label})
				seen[rl.Chapter] = true
				break
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Chapter < out[j].Chapter })
	return out, err
}

func mustJSON(v any) []byte {
	b, _ := jsonio.MarshalLine(v)
	return bytes.TrimSpace(b)
}

// Entry is one changelog line as replay reads it. Three shapes are met
// (SPEC §22.1): the suite's own line (state_version set); the TypeScript
// CLI's and the plugin's chapter line, which is the committed delta as it
// was (no state_version: it produced base_state_version+1, and Foreign is
// set); and the plugin's per-op notes such as
// {"chapter","op":"canon_upgrade",…}, which carry neither ops nor a
// state_version and are not commits (Commit false).
type Entry struct {
	Chapter          int
	StateVersion     int
	BaseStateVersion int
	StorylineID      string
	Ops              []json.RawMessage
	Foreign          bool
	Commit           bool
}

// ParseEntry reads one changelog line in any of the shapes above.
func ParseEntry(ln []byte) (Entry, error) {
	var raw struct {
		Chapter          *int               `json:"chapter"`
		StateVersion     *int               `json:"state_version"`
		BaseStateVersion *int               `json:"base_state_version"`
		StorylineID      string             `json:"storyline_id"`
		Ops              *[]json.RawMessage `json:"ops"`
	}
	if err := jsonio.Decode(ln, layout.Changelog, &raw); err != nil {
		return Entry{}, err
	}
	var e Entry
	if raw.Chapter != nil {
		e.Chapter = *raw.Chapter
	}
	e.StorylineID = raw.StorylineID
	if raw.Chapter == nil || (raw.Ops == nil && raw.StateVersion == nil) {
		return e, nil // a note line (plugin canon_upgrade), not a commit
	}
	e.Commit = true
	if raw.Ops != nil {
		e.Ops = *raw.Ops
	}
	switch {
	case raw.StateVersion != nil:
		e.StateVersion = *raw.StateVersion
		if raw.BaseStateVersion != nil {
			e.BaseStateVersion = *raw.BaseStateVersion
		} else {
			e.BaseStateVersion = e.StateVersion - 1
		}
	case raw.BaseStateVersion != nil:
		e.Foreign = true
		e.BaseStateVersion, e.StateVersion = *raw.BaseStateVersion, *raw.BaseStateVersion+1
	default:
		// Neither version: it cannot be placed in the chain, so it only
		// ever counts as history from before any baseline.
		e.Foreign, e.StateVersion, e.BaseStateVersion = true, -1, -1
	}
	return e, nil
}

// readEntries parses the changelog; a line that does not parse is
// E_INVALID_JSON naming its number.
func readEntries(data []byte) ([]Entry, error) {
	lines := jsonio.SplitLines(data)
	out := make([]Entry, 0, len(lines))
	for i, ln := range lines {
		e, err := ParseEntry(ln)
		if err != nil {
			ee := errs.Coerce(err)
			return nil, errs.Newf(errs.InvalidJSON, "%s 第 %d 行无法解析：%s", "%s line %d does not parse: %s", layout.Changelog, i+1, ee.En0()).
				With("file", layout.Changelog).With("line", i+1).
				Hint("修复或删除该行（先备份），再运行 novel-commit rebuild --check", "fix or remove that line (back it up first), then run novel-commit rebuild --check")
		}
		out = append(out, e)
	}
	return out, nil
}
