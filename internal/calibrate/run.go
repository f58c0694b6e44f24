package calibrate

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/runlog"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

// Roles calibrate can run.
const (
	RolePrimary   = "quality-judge"
	RoleSecondary = "quality-judge-secondary"
)

// Verdicts (SPEC §24): usable when ≥ 7/8 of the pairs pass, weak ≥ 5/8.
const (
	Usable   = "usable"
	Weak     = "weak"
	Unusable = "unusable"
)

// MinMargin is how much higher the clean version must score.
const MinMargin = 0.5

// Options say which judge to ask and how.
type Options struct {
	Role string // RolePrimary or RoleSecondary
	// Backend is the executor for one judged text, run in its scratch
	// project root; key is the text's Key (replay reads DIR/key/…).
	Backend func(root *project.Root, key string) (agent.Backend, error)
	Getenv  func(string) string
	// Author is the author's project: its prompts/ overrides make the
	// configured judge, so they are copied into every scratch project.
	Author *project.Root
}

// Variant is the judge's verdict on one version of a pair.
type Variant struct {
	File       string   `json:"file"`
	Overall    *float64 `json:"overall"`
	Lowest     []string `json:"lowest"`
	Violations []string `json:"violations"`
	// Error is an answer the judge could not make valid (the pair fails).
	Error string `json:"error,omitempty"`
	// scores are the dimension scores, for comparing the two versions.
	scores map[string]float64
}

// PairResult is one pair's line of the report.
type PairResult struct {
	ID        string   `json:"id"`
	Chapter   int      `json:"chapter"`
	Defect    string   `json:"defect"`
	Dimension string   `json:"dimension"`
	Checks    []string `json:"checks"`
	Clean     Variant  `json:"clean"`
	Flawed    Variant  `json:"flawed"`
	Margin    *float64 `json:"margin"`
	Ranked    bool     `json:"ranked"`
	Caught    bool     `json:"caught"`
	Passed    bool     `json:"passed"`
}

// Usage is what the run cost, summed like a run-log line (SPEC §18).
type Usage struct {
	Evaluations int             `json:"evaluations"`
	Tokens      json.RawMessage `json:"tokens"`
	Cost        runlog.Cost     `json:"cost"`
}

// Report is novel-agent calibrate's output.
type Report struct {
	Set             string       `json:"set"`
	Role            string       `json:"role"`
	Model           string       `json:"model"`
	Pairs           int          `json:"pairs"`
	RankedCorrectly int          `json:"ranked_correctly"`
	DefectsCaught   int          `json:"defects_caught"`
	Passed          int          `json:"passed"`
	PerPair         []PairResult `json:"per_pair"`
	Verdict         string       `json:"verdict"`
	Usage           Usage        `json:"usage"`
}

// Run judges every text of the set once (a clean chapter shared by
// several pairs is judged once) and scores the pairs.
func Run(s *Set, o Options) (*Report, error) {
	r := &runner{set: s, opt: o, judged: map[string]Variant{}}
	rep := &Report{Set: s.Source, Role: o.Role, Pairs: len(s.Pairs), PerPair: []PairResult{}}
	for _, p := range s.Pairs {
		clean, err := r.judge(p, p.Clean)
		if err != nil {
			return nil, err
		}
		flawed, err := r.judge(p, p.Flawed)
		if err != nil {
			return nil, err
		}
		pr := score(p, clean, flawed)
		if pr.Ranked {
			rep.RankedCorrectly++
		}
		if pr.Caught {
			rep.DefectsCaught++
		}
		if pr.Passed {
			rep.Passed++
		}
		rep.PerPair = append(rep.PerPair, pr)
	}
	rep.Verdict = verdict(rep.Passed, rep.Pairs)
	var line runlog.Line
	line.AddUsage(r.usage.Bytes())
	rep.Model, rep.Usage = line.Model, Usage{Evaluations: len(r.judged), Tokens: line.Tokens, Cost: line.Cost}
	if rep.Usage.Tokens == nil {
		rep.Usage.Tokens = json.RawMessage("{}")
	}
	if rep.Usage.Cost == nil {
		rep.Usage.Cost = runlog.Cost{}
	}
	return rep, nil
}

func verdict(passed, pairs int) string {
	switch {
	case passed*8 >= 7*pairs:
		return Usable
	case passed*8 >= 5*pairs:
		return Weak
	}
	return Unusable
}

// score compares the two verdicts: ranked when the clean version scores
// at least MinMargin higher; caught when the labelled dimension is (one
// of) the flawed version's lowest and scored below the clean version's —
// a judge that gives every dimension the same score catches nothing by
// the tie — or the judge reports a violation of a labelled check.
func score(p Pair, clean, flawed Variant) PairResult {
	pr := PairResult{ID: p.ID, Chapter: p.Chapter, Defect: p.Defect, Dimension: p.Dimension, Checks: p.Checks,
		Clean: clean, Flawed: flawed}
	if pr.Checks == nil {
		pr.Checks = []string{}
	}
	if clean.Overall != nil && flawed.Overall != nil {
		m := eval.Round2(*clean.Overall - *flawed.Overall)
		pr.Margin = &m
		pr.Ranked = m >= MinMargin
	}
	if flawed.Overall != nil {
		pr.Caught = slices.Contains(flawed.Lowest, p.Dimension) && clean.Overall != nil &&
			flawed.scores[p.Dimension] < clean.scores[p.Dimension]
		for _, id := range flawed.Violations {
			pr.Caught = pr.Caught || slices.Contains(p.Checks, id)
		}
	}
	pr.Passed = pr.Ranked && pr.Caught
	return pr
}

type runner struct {
	set    *Set
	opt    Options
	judged map[string]Variant
	usage  bytes.Buffer
}

// judge asks the judge about one text of pair p in a scratch copy of the
// pair's base project, as the pipeline would: the text is the staging
// chapter, the packet is built and written, the executor answers, and the
// eval is validated strictly. An answer that stays invalid is recorded in
// the variant; any other failure (no project, the provider refusing)
// stops the run.
func (r *runner) judge(p Pair, text string) (Variant, error) {
	if v, ok := r.judged[text]; ok {
		return v, nil
	}
	scratch, err := os.MkdirTemp("", "novel-calibrate-")
	if err != nil {
		return Variant{}, errs.Newf(errs.IO, "无法创建校准用的临时目录：%v", "cannot create the calibration scratch directory: %v", err).
			Hint("检查 TMPDIR 是否可写", "check that TMPDIR is writable").Wrap(err)
	}
	defer os.RemoveAll(scratch)
	v, err := r.judgeIn(scratch, p, text)
	if err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.Schema {
			v = Variant{File: text, Lowest: []string{}, Violations: []string{}, Error: e.Message("en")}
			err = nil
		}
	}
	if err != nil {
		return Variant{}, err
	}
	r.judged[text] = v
	return v, nil
}

func (r *runner) judgeIn(scratch string, p Pair, text string) (Variant, error) {
	if err := copyTree(r.set.FS, p.Base, scratch); err != nil {
		return Variant{}, copyErr(r.set.Source, p.Base, err)
	}
	if err := r.copyPrompts(scratch); err != nil {
		return Variant{}, copyErr(r.opt.Author.Dir, "prompts", err)
	}
	root, err := project.New(scratch)
	if err != nil {
		return Variant{}, err
	}
	chapter, err := fs.ReadFile(r.set.FS, text)
	if err != nil {
		return Variant{}, errs.Newf(errs.MissingFile, "校准集 %s 中的 %s 不可读：%v", "cannot read %s of the calibration set %s: %v", r.set.Source, text, err)
	}
	if err := root.WriteFile(layout.StagingChapter(p.Chapter), chapter); err != nil {
		return Variant{}, err
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return Variant{}, err
	}
	set, err := settings.Load(root, r.opt.Getenv)
	if err != nil {
		return Variant{}, err
	}
	st := stepid.Chapter(p.Chapter, stepid.Judge)
	role := ""
	if r.opt.Role == RoleSecondary {
		role = stepid.RoleSecondary
	}
	mp, err := manifest.Build(root, cp, set, st, manifest.Options{Role: role})
	if err != nil {
		return Variant{}, err
	}
	if err := manifest.Write(root, mp, st, role); err != nil {
		return Variant{}, err
	}
	abs, err := root.Abs(mp.WrittenManifestPath)
	if err != nil {
		return Variant{}, err
	}
	pk, err := agent.LoadPacket(abs, mp.WrittenManifestPath)
	if err != nil {
		return Variant{}, err
	}
	backend, err := r.opt.Backend(root, key(text))
	if err != nil {
		return Variant{}, err
	}
	out, err := agent.ExecuteRecording(root, pk, backend, r.record, nil)
	if err != nil {
		return Variant{}, err
	}
	// The judge's eval is a stdout output: the pipeline redirects it into
	// its file, so calibrate does the same.
	for _, o := range mp.ExpectedOutputs {
		if o.Via == "stdout" && out.Stdout != nil {
			if err := root.WriteFile(o.Path, out.Stdout); err != nil {
				return Variant{}, err
			}
		}
	}
	e, err := products.Eval(root, p.Chapter, role != "", set.Weights())
	if err != nil {
		return Variant{}, err
	}
	return variant(text, e, set.Weights()), nil
}

// record keeps each answer's usage line, as a run log would.
func (r *runner) record(u any) error {
	line, err := jsonio.MarshalLine(u)
	if err != nil {
		return err
	}
	r.usage.Write(line)
	return nil
}

func variant(text string, e *eval.Eval, weights map[string]float64) Variant {
	ov, _ := e.Weighted(weights)
	v := Variant{File: text, Overall: &ov, Lowest: []string{}, Violations: []string{}, scores: map[string]float64{}}
	low := 6.0
	for _, d := range e.Dimensions {
		if weights[d.Name] <= 0 {
			continue
		}
		v.scores[d.Name] = d.Score
		switch {
		case d.Score < low:
			low, v.Lowest = d.Score, []string{d.Name}
		case d.Score == low:
			v.Lowest = append(v.Lowest, d.Name)
		}
	}
	for _, c := range e.Checks {
		if c.IsViolation() {
			v.Violations = append(v.Violations, c.ID)
		}
	}
	return v
}

// copyPrompts gives the scratch project the author's prompt overrides.
func (r *runner) copyPrompts(scratch string) error {
	if r.opt.Author == nil {
		return nil
	}
	dir := filepath.Join(r.opt.Author.Dir, "prompts")
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	return copyTree(os.DirFS(dir), ".", filepath.Join(scratch, "prompts"))
}

// copyTree copies the regular files under dir of fsys into dst.
func copyTree(fsys fs.FS, dir, dst string) error {
	return fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(p))
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil // links are never followed out of a set
		}
		data, err := fs.ReadFile(fsys, path.Clean(p))
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func copyErr(source, dir string, err error) error {
	return errs.Newf(errs.IO, "无法把 %s 的 %s 复制到校准用的临时项目：%v", "cannot copy %[2]s of %[1]s into the calibration scratch project: %[3]v", source, dir, err).
		Hint("检查该目录可读、TMPDIR 可写", "check that the directory is readable and TMPDIR writable").Wrap(err)
}
