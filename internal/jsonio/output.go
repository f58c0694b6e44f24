package jsonio

import (
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/errs"
)

// WriteOutput writes a command's result to a file the user named (-o FILE,
// --out FILE; SPEC §1). Unlike WriteFile it never replaces what is not a
// regular file: a FIFO, a device (/dev/null) or a terminal that exists is
// opened and written through; a symlink is followed and its target is
// replaced atomically, so the link stays a link; a missing parent
// directory is E_IO, not created (a typo in the path should not grow a
// directory tree).
func WriteOutput(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return outputErr(path, "是一个目录", "is a directory")
		}
		return writeThrough(path, data)
	}
	target, err := followLinks(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Dir(target)); err != nil || !fi.IsDir() {
		return outputErr(path, "所在目录不存在", "is in a directory that does not exist").With("dir", filepath.Dir(target))
	}
	return (*Writer)(nil).replaceFile(target, [][]byte{data})
}

// writeThrough writes into an existing non-regular file without creating
// or renaming anything (a FIFO blocks until it has a reader, as with a
// shell redirection).
func writeThrough(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return writeErr(path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return writeErr(path, err)
	}
	if err := f.Close(); err != nil {
		return writeErr(path, err)
	}
	return nil
}

// followLinks resolves a chain of symlinks at path to the file it ends at,
// which may not exist yet (a dangling link is written through to its
// target). A loop is E_IO.
func followLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", writeErr(path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", outputErr(path, "的符号链接层数过多（循环？）", "has too many levels of symbolic links (a loop?)")
}

func outputErr(path, zh, en string) *errs.Error {
	return errs.New(errs.IO, "无法写入 "+path+"："+zh, "cannot write "+path+": "+en).With("file", path).
		Hint("检查路径；输出文件所在的目录必须已经存在", "check the path; the output file's directory must already exist")
}
