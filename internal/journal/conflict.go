package journal

import (
	"bytes"
	"os"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// Dest is one file a journaled commit will put in place: From is the
// project file that moves there, or Data the bytes written there.
type Dest struct {
	File string
	From string
	Data []byte
}

// WayOut is the hint of a refused destination: how to get past it
// (for a chapter: roll it back, or move the file aside).
type WayOut struct{ Zh, En string }

// WayOutFor builds the hint for the refused file.
type WayOutFor func(file string) WayOut

// CheckDestinations refuses (E_CONFLICT, exit 1) the first destination
// that already exists with different content (SPEC §22: nothing
// committed is overwritten). A destination holding exactly what would be
// written is fine: that is a commit being redone. It writes nothing, so a
// commit calls it before its journal exists (and --dry-run does the same).
func CheckDestinations(root *project.Root, dests []Dest, wayOut WayOutFor) error {
	for _, d := range dests {
		same, exists, err := sameContent(root, d)
		if err != nil {
			return err
		}
		if exists && !same {
			return errs.Newf(errs.Conflict, "%s 已存在且内容不同，提交不会覆盖它", "%s already exists with different content; the commit will not overwrite it", d.File).
				With("file", d.File).Hint(wayOut(d.File).Zh, wayOut(d.File).En)
		}
	}
	return nil
}

// sameContent compares d's destination with what would be written there.
func sameContent(root *project.Root, d Dest) (same, exists bool, err error) {
	abs, err := root.Abs(d.File)
	if err != nil {
		return false, false, err
	}
	st, err := os.Lstat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return false, false, nil
		}
		return false, true, errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", d.File, err).With("file", d.File)
	}
	if !st.Mode().IsRegular() {
		return false, true, nil // a directory or symlink is never what a commit writes
	}
	want := d.Data
	if d.From != "" {
		if want, err = root.ReadFile(d.From); err != nil {
			return false, true, err
		}
	}
	if st.Size() != int64(len(want)) {
		return false, true, nil
	}
	have, err := root.ReadFile(d.File)
	if err != nil {
		return false, true, err
	}
	return bytes.Equal(have, want), true, nil
}
