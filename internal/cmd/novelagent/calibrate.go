package novelagent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/examples/calibration"
	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/calibrate"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// builtinSet is how the report names the embedded calibration set.
const builtinSet = "built-in"

type calibrateCmd struct {
	Set      string `help:"Calibration set directory holding set.json (default: the built-in set, examples/calibration in the source tree)." placeholder:"DIR"`
	Role     string `enum:"quality-judge,quality-judge-secondary" default:"quality-judge" help:"Which configured judge to calibrate: quality-judge (llm.roles.quality-judge) or quality-judge-secondary."`
	Backend  string `enum:"replay,openai,command" default:"openai" help:"Executor: openai (the project's configured model, the default), command, or replay (recordings: DIR/{text path without .md}/chapter-NNN/…)."`
	Fixtures string `help:"replay: the recordings directory (default: $$NOVEL_REPLAY_DIR)." placeholder:"DIR"`
	Cmd      string `help:"command backend: the command the prompt is piped to (default: $$NOVEL_AGENT_CMD)." placeholder:"CMD"`
}

// Run judges the set in scratch copies of its projects; the author's
// project is only read (its model configuration and prompt overrides).
func (c *calibrateCmd) Run(ctx *cli.Context) error {
	author, err := ctx.Root()
	if err != nil {
		return err
	}
	if err := author.Require(); err != nil {
		return err
	}
	set, err := c.loadSet(ctx)
	if err != nil {
		return err
	}
	if c.Backend == "replay" {
		// Checked once up front, not at the first pair.
		if _, err := newBackend(ctx, c.Backend, c.Fixtures, c.Cmd, author, author); err != nil {
			return err
		}
	}
	rep, err := calibrate.Run(set, calibrate.Options{Role: c.Role, Getenv: ctx.Getenv, Author: author,
		Backend: func(work *project.Root, key string) (agent.Backend, error) {
			b, err := newBackend(ctx, c.Backend, c.Fixtures, c.Cmd, author, work)
			if r, ok := b.(agent.Replay); ok {
				r.Dir = filepath.Join(r.Dir, filepath.FromSlash(key))
				return r, err
			}
			return b, err
		}})
	if err != nil {
		return err
	}
	ctx.Result(rep, func() string { return calibrationText(rep) })
	return nil
}

func (c *calibrateCmd) loadSet(ctx *cli.Context) (*calibrate.Set, error) {
	if c.Set == "" {
		return calibrate.LoadSet(calibration.FS, builtinSet)
	}
	dir := c.Set
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ctx.Cwd, dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, errs.Newf(errs.MissingFile, "校准集目录 %s 不存在", "the calibration set directory %s does not exist", c.Set).
			With("file", c.Set).Hint("--set 指向含 set.json 的目录，或去掉 --set 使用内置校准集", "point --set at a directory holding set.json, or drop --set for the built-in set")
	}
	return calibrate.LoadSet(os.DirFS(dir), c.Set)
}

// calibrationText is the --text form: the verdict, then one line a pair.
func calibrationText(r *calibrate.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) on the %s set: %s — %d/%d pairs passed (%d ranked clean ≥ %.1f above flawed, %d defects caught)\n",
		r.Role, r.Model, r.Set, r.Verdict, r.Passed, r.Pairs, r.RankedCorrectly, calibrate.MinMargin, r.DefectsCaught)
	for _, p := range r.PerPair {
		mark := "FAIL"
		if p.Passed {
			mark = "ok  "
		}
		fmt.Fprintf(&b, "%s %-22s ch%d clean %s flawed %s lowest %s", mark, p.ID, p.Chapter, score(p.Clean), score(p.Flawed),
			strings.Join(p.Flawed.Lowest, ","))
		if len(p.Flawed.Violations) > 0 {
			fmt.Fprintf(&b, " violations %s", strings.Join(p.Flawed.Violations, ","))
		}
		fmt.Fprintf(&b, " (wanted %s)\n", wanted(p))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func score(v calibrate.Variant) string {
	if v.Overall == nil {
		return "invalid"
	}
	return strconv.FormatFloat(*v.Overall, 'f', 2, 64)
}

func wanted(p calibrate.PairResult) string {
	if len(p.Checks) == 0 {
		return p.Dimension
	}
	return p.Dimension + " or " + strings.Join(p.Checks, ",")
}
