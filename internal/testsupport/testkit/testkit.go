// Package testkit holds the helpers the suite's tests share: temporary
// projects built from a file map, tree copies and hashed tree listings.
// It is imported by tests only (the testscript harness, the reliability
// trials and package tests), never by a binary.
package testkit

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/project"
)

// WriteFiles writes each project-relative path of files with its content
// under dir, creating parent directories.
func WriteFiles(dir string, files map[string]string) error {
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Project writes files into a fresh temporary directory and opens it as
// a project root; any failure fails the test.
func Project(t testing.TB, files map[string]string) *project.Root {
	t.Helper()
	dir := t.TempDir()
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// CopyTree copies src to dst (regular files with their permissions,
// directories, symlinks as links). keepTimes also copies file mtimes, for
// copies that must look like the original to a write-boundary snapshot.
func CopyTree(src, dst string, keepTimes bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			return err
		}
		if !keepTimes {
			return nil
		}
		return os.Chtimes(target, info.ModTime(), info.ModTime())
	})
}

// Tree lists every entry under root by slash-separated relative path:
// "dir", "link TARGET", or "file HASH" (a prefix of the content's sha256),
// followed by the mtime in nanoseconds when withMtime is set (so even a
// same-content rewrite shows).
func Tree(root string, withMtime bool) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + l
		case d.IsDir():
			out[rel] = "dir"
		default:
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			v := fmt.Sprintf("file %x", h.Sum(nil)[:12])
			if withMtime {
				info, err := d.Info()
				if err != nil {
					return err
				}
				v += fmt.Sprintf(" %d", info.ModTime().UnixNano())
			}
			out[rel] = v
		}
		return nil
	})
	return out, err
}

// Listing renders a Tree as sorted "PATH ENTRY" lines, one per entry,
// ending in a newline: a file `cmp` can compare.
func Listing(tree map[string]string) string {
	lines := make([]string, 0, len(tree))
	for rel, v := range tree {
		lines = append(lines, rel+" "+v)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// Diff describes how two trees differ, one sorted line per path
// ("- P" only in a, "+ P" only in b, "~ P" different); "" when equal.
func Diff(a, b map[string]string) string {
	var lines []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			lines = append(lines, "- "+k)
		} else if w != v {
			lines = append(lines, "~ "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			lines = append(lines, "+ "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// DeadPID returns the pid of a process that has already exited (a writer
// killed mid-write, for the stale-temp tests); the test is skipped when
// no `true` command can be run.
func DeadPID(t testing.TB) int {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` command")
	}
	return dead.Process.Pid
}
