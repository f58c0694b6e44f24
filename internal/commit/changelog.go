package commit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// Line is one state/changelog.jsonl entry (SPEC §8.2), field order as
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

// lastOnStoryline scans the changelog backwards for the newest chapter
// below before committed on storyline id; 0 when there is none. Reading
// backwards keeps this cheap on a long changelog (the line is usually a
// few chapters back).
func lastOnStoryline(root *project.Root, id string, before int) (int, error) {
	abs, err := root.Abs(layout.Changelog)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, errs.AccessFailed(layout.Changelog, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, errs.AccessFailed(layout.Changelog, err)
	}
	needle := []byte(`"storyline_id":` + string(mustJSON(id)))
	const chunk = 64 << 10
	end := st.Size()
	var tail []byte // an incomplete line carried to the next (earlier) chunk
	for end > 0 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start, int(end-start)+len(tail))
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return 0, errs.AccessFailed(layout.Changelog, err)
		}
		buf = append(buf, tail...)
		lines := bytes.Split(buf, []byte{'\n'})
		first := 0
		if start > 0 {
			tail, first = lines[0], 1
		}
		for i := len(lines) - 1; i >= first; i-- {
			ln := lines[i]
			if !bytes.Contains(ln, needle) {
				continue
			}
			var rl rawLine
			if json.Unmarshal(ln, &rl) == nil && rl.StorylineID == id && rl.Chapter < before {
				return rl.Chapter, nil
			}
		}
		end = start
	}
	return 0, nil
}

func mustJSON(v any) []byte {
	b, _ := jsonio.MarshalLine(v)
	return bytes.TrimSpace(b)
}

// fileSize is the size of a project file, 0 when it does not exist.
func fileSize(root *project.Root, rel string) (int64, error) {
	abs, err := root.Abs(rel)
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, errs.AccessFailed(rel, err)
	}
	return st.Size(), nil
}
