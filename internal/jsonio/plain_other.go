//go:build !linux

package jsonio

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// readPlainAt reads name in dir without following a final symlink, at
// most MaxFileSize+1 bytes.
func readPlainAt(dir *os.File, name string, scratch []byte) (int, []byte, error) {
	f, err := os.OpenFile(filepath.Join(dir.Name(), name), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, scratch, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	return len(data), data, err
}

// mapOpen reads the file: mapping is only used on Linux.
func mapOpen(f *os.File, size int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && int64(len(data)) != size {
		err = io.ErrUnexpectedEOF
	}
	return data, err
}
