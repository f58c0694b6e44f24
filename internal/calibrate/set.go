// Package calibrate tells a usable judge model from a lenient one (SPEC
// §24): it runs the configured judge on a calibration set — pairs of a
// clean chapter and the same chapter with one known defect — and reports
// whether the judge ranks the clean version above the flawed one and
// names the defect.
package calibrate

import (
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// setFile is the index of a calibration set directory.
const setFile = "set.json"

// Pair is one clean/flawed pair of set.json. Base is a project directory
// of the set whose last committed chapter is Chapter−1: the judge sees
// both versions in exactly the context the pipeline would give it. Clean
// and Flawed are the chapter texts; Dimension is the rubric dimension that
// must come out lowest in the flawed eval, Checks the contract check ids
// (l1…ls) whose violation also counts as catching the defect.
type Pair struct {
	ID        string   `json:"id"`
	Chapter   int      `json:"chapter"`
	Base      string   `json:"base"`
	Clean     string   `json:"clean"`
	Flawed    string   `json:"flawed"`
	Defect    string   `json:"defect"`
	Dimension string   `json:"dimension"`
	Checks    []string `json:"checks"`
}

// Set is a calibration set: set.json and the files it names, read from
// FS (the built-in embedded set or a directory).
type Set struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	Pairs   []Pair `json:"pairs"`

	FS     fs.FS  `json:"-"`
	Source string `json:"-"` // what the user named: "built-in" or the directory
}

// LoadSet reads and validates set.json of fsys. source names the set in
// errors and in the report.
func LoadSet(fsys fs.FS, source string) (*Set, error) {
	file := path.Join(source, setFile)
	data, err := fs.ReadFile(fsys, setFile)
	if err != nil {
		return nil, errs.Newf(errs.MissingFile, "校准集 %s 中没有 %s", "the calibration set %s has no %s", source, setFile).
			With("file", file).Hint("--set 指向含 set.json 的校准集目录（格式见 docs/CALIBRATION.md），或去掉 --set 使用内置校准集",
			"point --set at a calibration set directory holding set.json (format in docs/CALIBRATION.md), or drop --set for the built-in set")
	}
	var s Set
	if err := jsonio.Decode(data, file, &s); err != nil {
		return nil, err
	}
	s.FS, s.Source = fsys, source
	if err := s.validate(file); err != nil {
		return nil, err
	}
	return &s, nil
}

func setErr(file, field, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, append([]any{file}, args...)...).
		With("file", file).With("field", field).
		Hint("按 docs/CALIBRATION.md 修正 set.json 后重新运行 novel-agent calibrate",
			"fix set.json as docs/CALIBRATION.md describes, then run novel-agent calibrate again")
}

func (s *Set) validate(file string) error {
	if s.Version != 1 {
		return setErr(file, "version", "version 应为 1，实际为 %d", "version must be 1, got %d", s.Version)
	}
	if len(s.Pairs) == 0 {
		return setErr(file, "pairs", "pairs 为空", "pairs is empty")
	}
	dims := map[string]bool{}
	for _, d := range eval.Rubric {
		dims[d.Name] = true
	}
	ids := map[string]bool{}
	for i, p := range s.Pairs {
		field := "pairs[" + itoa(i) + "]"
		switch {
		case !project.IsSlug(p.ID) || ids[p.ID]:
			return setErr(file, field+".id", "%s 的 id %q 不是唯一的 slug", "%s: id %q is not a unique slug", field, p.ID)
		case p.Chapter < 1:
			return setErr(file, field+".chapter", "%s 的 chapter 应 ≥ 1", "%s: chapter must be ≥ 1", field)
		case !dims[p.Dimension]:
			return setErr(file, field+".dimension", "%s 的 dimension %q 不是评分标准的维度", "%s: dimension %q is not a rubric dimension", field, p.Dimension)
		case p.Clean == p.Flawed:
			return setErr(file, field, "%s 的 clean 与 flawed 是同一个文件", "%s: clean and flawed name the same file", field)
		}
		ids[p.ID] = true
		for _, rel := range []string{p.Clean, p.Flawed} {
			if !fs.ValidPath(rel) || !strings.HasSuffix(rel, ".md") {
				return setErr(file, field, "%s 的章节文件 %q 应是集内的 .md 相对路径", "%s: chapter file %q must be a .md path inside the set", field, rel)
			}
			if _, err := fs.Stat(s.FS, rel); err != nil {
				return setErr(file, field, "%s 的章节文件 %s 不存在", "%s: chapter file %s does not exist", field, rel)
			}
		}
		if err := s.checkBase(file, field, p); err != nil {
			return err
		}
	}
	return nil
}

// checkBase requires the base project to have committed exactly the
// chapters before the judged one.
func (s *Set) checkBase(file, field string, p Pair) error {
	if !fs.ValidPath(p.Base) {
		return setErr(file, field+".base", "%s 的 base %q 应是集内的相对目录", "%s: base %q must be a directory inside the set", field, p.Base)
	}
	data, err := fs.ReadFile(s.FS, path.Join(p.Base, layout.Checkpoint))
	if err != nil {
		return setErr(file, field+".base", "%s 的 base %s 不是项目（没有 %s）", "%s: base %s is not a project (no %s)", field, p.Base, layout.Checkpoint)
	}
	cp, err := checkpoint.Parse(data)
	if err != nil || cp.LastCompleted != p.Chapter-1 {
		return setErr(file, field+".base", "%s 的 base %s 应已提交到第 %d 章（评审第 %d 章）", "%s: base %s must have committed chapter %d (chapter %d is judged)",
			field, p.Base, p.Chapter-1, p.Chapter)
	}
	return nil
}

// key is the replay recording subdirectory of a chapter text: its path in
// the set without .md (pairs/pov-break → DIR/pairs/pov-break/chapter-NNN/…).
func key(text string) string { return strings.TrimSuffix(text, ".md") }

func itoa(n int) string { return strconv.Itoa(n) }
