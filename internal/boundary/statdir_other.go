//go:build !linux

package boundary

import "os"

// dir is an open directory; elsewhere than Linux entries are Lstat'ed by
// path (os.DirEntry.Info).
type dir struct{ *os.File }

func openDir(abs string) (*dir, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	return &dir{f}, nil
}

func (d *dir) stat(e os.DirEntry) (size, mtime int64, err error) {
	info, err := e.Info()
	if err != nil {
		return 0, 0, err
	}
	return info.Size(), info.ModTime().UnixNano(), nil
}
