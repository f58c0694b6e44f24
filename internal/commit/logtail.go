package commit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// appendSeparator checks the end of an append-only log before a commit
// appends to it (a journaled append is always replayed from the recorded
// size, so a torn line can only come from outside the suite). A log that
// ends with a complete line but no newline gets one in front of the new
// text; a log that ends in a partial line is refused, since appending
// would glue the new line onto it and break every later replay.
func appendSeparator(root *project.Root, rel string, size int64) (string, error) {
	if size == 0 {
		return "", nil
	}
	abs, err := root.Abs(rel)
	if err != nil {
		return "", err
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", errs.AccessFailed(rel, err)
	}
	defer f.Close()
	// Read back until the start of the last line.
	var tail []byte
	for end := size; end > 0; {
		start := max(end-64<<10, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return "", errs.AccessFailed(rel, err)
		}
		tail = append(buf, tail...)
		if len(tail) > 0 && tail[len(tail)-1] == '\n' {
			return "", nil
		}
		if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
			break
		}
		end = start
	}
	if json.Valid(bytes.TrimSpace(tail)) {
		return "\n", nil
	}
	return "", errs.Newf(errs.State, "%s 的最后一行不完整（可能是被中断的写入）", "the last line of %s is incomplete (an interrupted write?)", rel).
		With("file", rel).With("size", size).WithExit(errs.ExitFailed).
		Hint("先备份，再删除该不完整的最后一行，然后运行 novel-commit rebuild --check", "back it up, remove the incomplete last line, then run novel-commit rebuild --check")
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
