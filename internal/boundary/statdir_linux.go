package boundary

import (
	"os"

	"golang.org/x/sys/unix"
)

// dir is an open directory whose entries are stat'ed relative to its file
// descriptor (fstatat), so the kernel does not resolve the full path of
// each of the ~15k files again: on a large project that path walk was
// most of the check's system time.
type dir struct{ *os.File }

func openDir(abs string) (*dir, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	return &dir{f}, nil
}

func (d *dir) stat(e os.DirEntry) (size, mtime int64, err error) {
	var st unix.Stat_t
	for {
		err = unix.Fstatat(int(d.Fd()), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, &os.PathError{Op: "lstat", Path: d.Name() + "/" + e.Name(), Err: err}
	}
	return st.Size, st.Mtim.Nano(), nil
}
