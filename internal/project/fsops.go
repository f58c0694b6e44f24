package project

// File-system operations on project paths: every path is containment-
// checked by Abs, so callers never touch os directly.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// Move renames the project path from (a file or a directory) to to, both
// containment-checked, creating to's parent directories. Both directories
// are synced so the rename survives a crash. A failed rename is E_IO
// wrapping the OS error, so callers can still test for fs.ErrNotExist.
func (r *Root) Move(from, to string) error {
	src, err := r.Abs(from)
	if err != nil {
		return err
	}
	dst, err := r.Abs(to)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return errs.Newf(errs.IO, "无法创建 %s：%v", "cannot create %s: %v", filepath.ToSlash(filepath.Dir(to)), err).
			With("file", to).Wrap(err)
	}
	if err := os.Rename(src, dst); err != nil {
		return errs.Newf(errs.IO, "无法把 %s 移到 %s：%v", "cannot move %s to %s: %v", from, to, err).
			With("file", from).Wrap(err)
	}
	r.w.SyncDir(filepath.Dir(dst))
	r.w.SyncDir(filepath.Dir(src))
	return nil
}

// Remove deletes the project file rel (containment-checked); one that is
// already gone is fine. The directory is synced so the removal is durable.
func (r *Root) Remove(rel string) error {
	abs, err := r.Abs(rel)
	if err != nil {
		return err
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.Newf(errs.IO, "无法删除 %s：%v", "cannot remove %s: %v", rel, err).With("file", rel).Wrap(err)
	}
	r.w.SyncDir(filepath.Dir(abs))
	return nil
}

// ReadDir lists the project directory rel, sorted by name; a directory
// that does not exist is empty (nil, nil). Other failures are E_IO.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	l, err := r.Listing(rel)
	if err != nil {
		return nil, err
	}
	l.Close()
	return l.Entries, nil
}

// Listing is a project directory listed once (ReadDir's entries) whose
// files can then be read without checking the directory's path again.
// Close it when done.
type Listing struct {
	root     *Root
	rel, abs string
	dir      *os.File // nil when the directory does not exist
	scratch  []byte
	Entries  []fs.DirEntry
}

// Listing lists the project directory rel as ReadDir does (a missing one
// has no entries), keeping it open for ReadFile.
func (r *Root) Listing(rel string) (*Listing, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return nil, err
	}
	l := &Listing{root: r, rel: rel, abs: abs}
	f, err := os.Open(abs)
	if err == nil {
		l.dir = f
		l.Entries, err = f.ReadDir(-1)
		sort.Slice(l.Entries, func(i, j int) bool { return l.Entries[i].Name() < l.Entries[j].Name() })
	}
	if err != nil {
		l.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return &Listing{root: r, rel: rel, abs: abs}, nil
		}
		return nil, errs.Newf(errs.IO, "无法读取目录 %s：%v", "cannot read directory %s: %v", rel, err).With("file", rel).Wrap(err)
	}
	return l, nil
}

// Close releases the directory.
func (l *Listing) Close() {
	if l.dir != nil {
		l.dir.Close()
		l.dir = nil
	}
}

// ReadFile reads the file entry e of the listing names, as Root.ReadFile
// would. The directory's components were checked for symlinks when it
// was listed, so a plain-file entry is opened relative to the open
// directory (not following a symlink there): reading the hundreds of
// small files of characters/active paid three Lstats, a full path walk
// and an *os.File each. Any other entry, one that has become a symlink
// since the listing, and any failure take Root.ReadFile's way (and its
// errors).
func (l *Listing) ReadFile(e fs.DirEntry) ([]byte, error) {
	var data []byte
	var err error
	data, l.scratch, err = l.read(e, l.scratch)
	return data, err
}

func (l *Listing) read(e fs.DirEntry, scratch []byte) ([]byte, []byte, error) {
	if e.Type() == 0 && l.dir != nil {
		data, scratch, err := jsonio.ReadPlainAt(l.dir, e.Name(), scratch)
		if err == nil {
			return data, scratch, nil
		}
	}
	data, err := l.root.ReadFile(l.rel + "/" + e.Name())
	return data, scratch, err
}

// ReadFiles is ReadFile for each of ents, read on up to GOMAXPROCS
// goroutines when there are many (each small file costs a few system
// calls, which run in parallel): data[i] and errors[i] are ents[i]'s.
func (l *Listing) ReadFiles(ents []fs.DirEntry) (data [][]byte, errors []error) {
	data, errors = make([][]byte, len(ents)), make([]error, len(ents))
	workers := min(runtime.GOMAXPROCS(0), 4, len(ents)/32+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []byte
			for i := w; i < len(ents); i += workers {
				data[i], scratch, errors[i] = l.read(ents[i], scratch)
			}
		}()
	}
	wg.Wait()
	return data, errors
}

// List lists the entries of the project directory rel whose names end in
// suffix — regular files, or directories when dirs — skipping hidden
// ones, project-relative and sorted by name; a missing directory lists
// nothing.
func (r *Root) List(rel, suffix string, dirs bool) ([]string, error) {
	ents, err := r.ReadDir(rel)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() != dirs || !strings.HasSuffix(name, suffix) {
			continue
		}
		out = append(out, rel+"/"+name)
	}
	return out, nil
}

// Unused returns prefix-N for the smallest N ≥ 1 that names nothing in
// the project yet: a fresh folder to set files aside in, so nothing set
// aside earlier is ever overwritten.
func (r *Root) Unused(prefix string) (string, error) {
	for n := 1; ; n++ {
		rel := prefix + "-" + strconv.Itoa(n)
		if there, err := r.Lexists(rel); err != nil || !there {
			return rel, err
		}
	}
}

// Lexists reports whether the project path rel exists, without following
// a final symlink (a journal step asks whether its own rename happened).
// Failures other than not-exist are E_IO.
func (r *Root) Lexists(rel string) (bool, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, errs.Newf(errs.IO, "无法访问 %s：%v", "cannot access %s: %v", rel, err).With("file", rel).Wrap(err)
	}
	return true, nil
}
