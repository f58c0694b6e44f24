package stateops

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// StateVersion reads state_version of state/current-state.json; a
// project without a state file yet is at version 0. The state may be
// several MiB, so the canonical layout (sorted keys, 2-space indent, as
// the commit writes it) is exploited: state_version is a top-level line
// near the end, found by reading only the file's tail. Any other layout
// falls back to reading the whole file.
func StateVersion(root *project.Root) (int, error) { return FileVersion(root, layout.CurrentState) }

// FileVersion is StateVersion of any state-shaped file (the state, its
// baseline): the one reader of state_version.
func FileVersion(root *project.Root, rel string) (int, error) {
	abs, err := root.Abs(rel)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, errs.Newf(errs.IO, "读取 %s 失败：%v", "cannot read %s: %v", rel, err).With("file", rel).Wrap(err)
	}
	defer f.Close()
	if v, ok := tailStateVersion(f); ok {
		return v, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return 0, err
	}
	if v, ok := fastStateVersion(data); ok {
		return v, nil
	}
	var st struct {
		StateVersion json.RawMessage `json:"state_version"`
	}
	if err := jsonio.Decode(data, rel, &st); err != nil {
		if errs.Is(err, errs.Schema) {
			return 0, errs.Newf(errs.Schema, "%s 必须是 JSON 对象", "%s must be a JSON object", rel).With("file", rel)
		}
		return 0, err
	}
	if len(st.StateVersion) == 0 || string(st.StateVersion) == "null" {
		return 0, nil
	}
	n, err := strconv.Atoi(string(st.StateVersion))
	if err != nil || n < 0 {
		return 0, errs.Newf(errs.Schema, "%s 的 state_version 必须是 ≥ 0 的整数", "%s: state_version must be an integer ≥ 0", rel).
			With("file", rel).With("field", "state_version").
			Hint("修正 state_version；novel-commit rebuild --check 会说明能否从变更日志重建状态文件", "fix state_version; novel-commit rebuild --check says whether the changelog can rebuild the state file")
	}
	return n, nil
}

const tailSize = 64 << 10

// tailStateVersion reads the head (to confirm the canonical layout), then
// f backwards in 64 KiB chunks until the state_version line is found: in a
// canonically indented object every line that starts with exactly two
// spaces and a quote is a top-level key, and top-level keys are unique,
// so the last match is the real state_version. state_version sorts after
// the big groups, so this is usually one chunk, and never more than one
// read of the file whatever sits after it (a large world_state).
func tailStateVersion(f *os.File) (int, bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > jsonio.MaxFileSize {
		return 0, false
	}
	head := make([]byte, 8)
	n, _ := f.ReadAt(head, 0)
	head = jsonio.StripBOM(head[:n])
	if !bytes.HasPrefix(head, []byte("{\n  \"")) {
		return 0, false
	}
	end := st.Size()
	buf := make([]byte, min(end, tailSize+int64(len(stateVersionKey))+16))
	first := true
	for end > 0 {
		off := max(end-tailSize, 0)
		// Keep the start of the previous chunk after this one, so a key
		// line (and its number) split by the boundary is still whole.
		keep := min(int64(len(stateVersionKey))+16, st.Size()-end)
		chunk := buf[:end-off+keep]
		if _, err := f.ReadAt(chunk, off); err != nil && !(errors.Is(err, io.EOF) && off+int64(len(chunk)) == st.Size()) {
			return 0, false
		}
		// A truncated file (the usual corruption) does not end the
		// object; leave it to the full decode to report.
		if first && !bytes.HasSuffix(bytes.TrimRight(chunk, " \t\r\n"), []byte("}")) {
			return 0, false
		}
		first = false
		if i := bytes.LastIndex(chunk, stateVersionKey); i >= 0 {
			return parseVersionAt(chunk, i+len(stateVersionKey))
		}
		end = off
	}
	return 0, false
}

var stateVersionKey = []byte("\n  \"state_version\": ")

// fastStateVersion finds the depth-1 key of a canonically indented
// object: a raw newline cannot occur inside a JSON string, and deeper
// keys are indented by 4 or more spaces.
func fastStateVersion(data []byte) (int, bool) {
	if len(data) == 0 || data[0] != '{' || !bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n"), []byte("}")) ||
		bytes.Count(data, stateVersionKey) != 1 {
		return 0, false
	}
	return parseVersionAt(data, bytes.Index(data, stateVersionKey)+len(stateVersionKey))
}

func parseVersionAt(data []byte, i int) (int, bool) {
	j := i
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		j++
	}
	if j == i || j-i > 12 || j >= len(data) || (data[j] != ',' && data[j] != '\n') {
		return 0, false
	}
	n, err := strconv.Atoi(string(data[i:j]))
	return n, err == nil
}
