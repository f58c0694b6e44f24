// Package project locates a novel project's root and resolves
// project-relative paths, refusing any that would leave the project.
package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
)

// Root is a project directory. Dir is absolute; Real is Dir with symlinks
// resolved, used for containment checks.
type Root struct {
	Dir  string
	Real string
	// w does every write through this Root: it lists each directory's
	// stale temp files once and can defer directory fsyncs (Writer).
	w *jsonio.Writer
}

// Find resolves the root: flag (relative to cwd) wins, then env
// NOVEL_PROJECT, then the nearest ancestor of cwd holding .checkpoint.json.
func Find(flag, env, cwd string) (*Root, error) {
	if flag != "" {
		return open(flag, cwd, "--project")
	}
	if env != "" {
		return open(env, cwd, "NOVEL_PROJECT")
	}
	dir := cwd
	for {
		if st, err := os.Stat(filepath.Join(dir, layout.Checkpoint)); err == nil && !st.IsDir() {
			return New(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return nil, errs.Newf(errs.NoProject, "在 %[2]s 及其上级目录中找不到 %[1]s", "no %[1]s in %[2]s or any parent directory",
		layout.Checkpoint, cwd).With("cwd", cwd).
		Hint("在项目目录中运行，或用 --project DIR / NOVEL_PROJECT 指定项目", "run inside a project, or pass --project DIR or set NOVEL_PROJECT")
}

func open(p, cwd, source string) (*Root, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return nil, errs.Newf(errs.NoProject, "%[2]s 指定的项目目录 %[1]s 不存在", "project directory %[1]s given by %[2]s does not exist", p, source).
			With("project", p).With("source", source).
			Hint("检查路径，或在项目目录中运行", "check the path, or run inside the project")
	}
	return New(p)
}

// Require refuses a directory that holds no .checkpoint.json. Commands
// that would create files there before reading the checkpoint (taking the
// lock) call it: outside a project nothing is created, not even a lock
// file (SPEC §22).
func (r *Root) Require() error {
	if st, err := os.Stat(filepath.Join(r.Dir, layout.Checkpoint)); err == nil && st.Mode().IsRegular() {
		return nil
	}
	return errs.Newf(errs.NoProject, "%[1]s 不是小说项目（没有 %[2]s），未创建任何文件", "%[1]s is not a novel project (no %[2]s); nothing was created",
		r.Dir, layout.Checkpoint).With("project", r.Dir).
		Hint("在项目目录中运行，或用 --project DIR、NOVEL_PROJECT 或 make 的 PROJECT=DIR 指定项目",
			"run inside a project, or name it with --project DIR, NOVEL_PROJECT or make's PROJECT=DIR")
}

// New makes a Root for an existing directory.
func New(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法解析目录 %s", "cannot resolve directory %s", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, errs.Newf(errs.NoProject, "无法打开项目目录 %s", "cannot open project directory %s", abs).With("project", abs)
	}
	return &Root{Dir: abs, Real: real, w: &jsonio.Writer{}}, nil
}

// Abs resolves a project-relative path and checks that it stays inside the
// project after resolving "..", and symlinks of every existing component.
func (r *Root) Abs(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", pathErr(rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", pathErr(rel)
	}
	abs := filepath.Join(r.Dir, clean)
	if err := r.checkSymlinks(clean); err != nil {
		return "", err
	}
	return abs, nil
}

// checkSymlinks walks the existing prefix of clean; any symlink among its
// components must resolve inside the project.
func (r *Root) checkSymlinks(clean string) error {
	parts := strings.Split(clean, string(filepath.Separator))
	cur := r.Dir
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // the rest does not exist yet
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(cur)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				// A dangling link: judge where it points.
				if t, rerr := os.Readlink(cur); rerr == nil {
					if !filepath.IsAbs(t) {
						t = filepath.Join(filepath.Dir(cur), t)
					}
					if !r.inside(filepath.Clean(t)) {
						return pathErr(strings.Join(parts[:i+1], "/"))
					}
				}
				return nil
			}
			return pathErr(strings.Join(parts[:i+1], "/"))
		}
		if !r.inside(target) {
			return pathErr(strings.Join(parts[:i+1], "/")).With("resolves_to", target)
		}
	}
	return nil
}

func (r *Root) inside(p string) bool {
	for _, base := range []string{r.Real, r.Dir} {
		if p == base || strings.HasPrefix(p, base+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Rel converts an absolute path inside the project back to a project
// relative, slash-separated path.
func (r *Root) Rel(abs string) string {
	rel, err := filepath.Rel(r.Dir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

func pathErr(rel string) *errs.Error {
	return errs.Newf(errs.Path, "路径 %s 超出了项目目录", "path %s leaves the project directory", rel).
		With("path", rel).Hint("只使用项目内的相对路径，并检查符号链接", "use project-relative paths only and check symlinks")
}

// Exists reports whether rel exists (any type) inside the project. An
// entry that is there but whose symlink leaves the project also "exists",
// so the caller's read fails with E_PATH instead of treating the file as
// missing (an optional file must not be silently ignored, SPEC §1).
func (r *Root) Exists(rel string) bool {
	abs, err := r.Abs(rel)
	if err != nil {
		if !errs.Is(err, errs.Path) || rel == "" || filepath.IsAbs(rel) {
			return false
		}
		clean := filepath.Clean(filepath.FromSlash(rel))
		if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return false
		}
		_, lerr := os.Lstat(filepath.Join(r.Dir, clean))
		return lerr == nil
	}
	_, err = os.Stat(abs)
	return err == nil
}

// IsFile reports whether rel is an existing regular file.
func (r *Root) IsFile(rel string) bool {
	abs, err := r.Abs(rel)
	if err != nil {
		return false
	}
	st, err := os.Stat(abs)
	return err == nil && st.Mode().IsRegular()
}

// ReadFile reads a project file (containment-checked, BOM stripped).
func (r *Root) ReadFile(rel string) ([]byte, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return nil, err
	}
	return jsonio.ReadFile(abs, rel)
}

// ReadIfExists is ReadFile for an optional file: nil bytes (and no
// error) when rel does not exist.
func (r *Root) ReadIfExists(rel string) ([]byte, error) {
	if !r.Exists(rel) {
		return nil, nil
	}
	return r.ReadFile(rel)
}

// MapFile is ReadFile for a large file a short command scans
// (jsonio.MapFile: mapped, never released; the bytes may be kept).
func (r *Root) MapFile(rel string) ([]byte, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return nil, err
	}
	return jsonio.MapFile(abs, rel)
}

// ReadText reads a project text file (Markdown) as UTF-8, the BOM
// stripped; other encodings are E_SCHEMA naming the file (jsonio.Text).
func (r *Root) ReadText(rel string) (string, error) {
	data, err := r.ReadFile(rel)
	if err != nil {
		return "", err
	}
	return jsonio.Text(data, rel)
}

// ReadJSON reads and decodes a project JSON file into v.
func (r *Root) ReadJSON(rel string, v any) error {
	data, err := r.ReadFile(rel)
	if err != nil {
		return err
	}
	return jsonio.Decode(data, rel, v)
}

// WriteFile writes a project file atomically.
func (r *Root) WriteFile(rel string, data []byte) error {
	abs, err := r.Abs(rel)
	if err != nil {
		return err
	}
	return r.w.WriteFile(abs, data)
}

// Writer is the atomic writer of every write through r, for a write
// outside WriteFile (a spliced state) and for the transactions that
// defer directory fsyncs (jsonio.Writer.DeferDirSyncs).
func (r *Root) Writer() *jsonio.Writer { return r.w }

// WriteJSON writes v canonically and atomically to a project file.
func (r *Root) WriteJSON(rel string, v any) error {
	abs, err := r.Abs(rel)
	if err != nil {
		return err
	}
	return r.w.WriteJSON(abs, v)
}

var slugRE = lazyre.New(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// IsSlug reports whether s is a slug: ^[a-z0-9]+(-[a-z0-9]+)*$.
func IsSlug(s string) bool { return len(s) <= 128 && slugRE().MatchString(s) }

// CheckSlug returns E_SCHEMA when s (named what, read from file) is not
// a slug.
func CheckSlug(s, what, file string) error {
	if IsSlug(s) {
		return nil
	}
	return errs.Newf(errs.Schema, "%s 中的 %s %q 不是合法的 slug（小写字母、数字和连字符）", "%s: %s %q is not a slug (lowercase letters, digits, hyphens)",
		file, what, s).With("file", file).With("field", what).With("value", s).
		Hint("改为形如 main-arc 的 slug", "use a slug such as main-arc")
}

// Managed reports whether abs, an absolute path a user named as an output
// (-o, --out), is or lies under one of the files and folders the suite
// manages (layout.Managed) once "..", a symlink at abs and symlinked
// folders on the way are resolved; rel is that project-relative path.
// The file need not exist yet.
func (r *Root) Managed(abs string) (rel string, managed bool) {
	// Not cleaned first: "x/link/.." is resolved as the system will, with
	// the link followed before "..".
	p := abs
	for range 40 { // a chain of symlinks at the file itself
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		dest, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(dest) {
			dest = parentOf(p) + string(filepath.Separator) + dest
		}
		p = dest
	}
	// The folder holding it, its symlinks and ".." resolved (when it exists).
	dir, base := parentOf(p), p[len(parentOf(p)):]
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	p = filepath.Join(dir, base)
	for _, top := range []string{r.Real, r.Dir} {
		rp, err := filepath.Rel(top, p)
		if err != nil || rp == "." || rp == ".." || strings.HasPrefix(rp, ".."+string(filepath.Separator)) {
			continue
		}
		rp = filepath.ToSlash(rp)
		first, _, _ := strings.Cut(rp, "/")
		for _, m := range layout.Managed {
			if first == m {
				return rp, true
			}
		}
	}
	return "", false
}

// Optional is the one checked look-up of an optional project file (a
// memory, the brief, a profile, a summary offered to a packet): present
// when rel is a regular file, false when it is not there, and E_PATH when
// rel or a folder on its way is a symlink resolving outside the project —
// such a file is refused, never silently left out (SPEC §22.1).
func (r *Root) Optional(rel string) (bool, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return false, err
	}
	st, err := os.Stat(abs)
	return err == nil && st.Mode().IsRegular(), nil
}

// parentOf is the part of path p before its last separator, not cleaned
// (so a ".." in it is still resolved against the real folders).
func parentOf(p string) string {
	i := strings.LastIndexByte(p, filepath.Separator)
	if i <= 0 {
		return string(filepath.Separator)
	}
	return p[:i]
}
