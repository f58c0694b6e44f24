// Command bench times the suite's binaries as whole processes on the
// generated large project (SPEC §14) and prints a table: median and p90
// wall time, peak RSS (wait4 rusage), the target and ok/MISS.
//
//	bench [-bin ./bin] [-dir ./.bench] [-runs 15] [-warmup 3] [-chapters 2000] [-only REGEXP]
//
// Projects are generated once per (seed, size) under -dir and reused;
// commands that write (commit, the pipeline) run on a fresh copy each
// time, and the copy is not timed.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// genVersion is bumped whenever the generator's output changes, so a
// cached project from an older generator is not reused.
const genVersion = largeproject.Version

const now = "2026-11-02T00:00:00Z"

type config struct {
	bin, dir      string
	pipeline      string
	runs, warmup  int
	opts          largeproject.Options
	only          *regexp.Regexp
	ratioChapters int
	jsonOut       string
	skipRatio     bool
	pipelineRuns  int
	demo          string // examples/demo (project and replay recordings)
	vsTSDir       string // a TypeScript CLI install (--vs-ts)
}

// sample is one timed process.
type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system, the process and its waited-for children
	rss  int64         // bytes
}

// Result is one row of the table.
type Result struct {
	Name     string  `json:"name"`
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms"`
	CPUMS    float64 `json:"cpu_median_ms"`
	PeakMiB  float64 `json:"peak_rss_mib"`
	TargetMS float64 `json:"target_ms"`
	OK       bool    `json:"ok"`
}

// Report is what -json writes.
type Report struct {
	Date        string        `json:"date"`
	Machine     string        `json:"machine"`
	Profile     string        `json:"profile"`
	Chapters    int           `json:"chapters"`
	Results     []Result      `json:"results"`
	Estimates   []Estimate    `json:"packet_estimates,omitempty"`
	CommitRatio *float64      `json:"commit_ratio,omitempty"`
	Prefix      []PrefixShare `json:"prefix_shares,omitempty"`
	VsTS        []TSRatio     `json:"vs_ts,omitempty"`
	RatioBase   int           `json:"commit_ratio_base_chapters,omitempty"`
}

const memLimitMiB = 64

// Estimate is one packet's token estimate (SPEC §19) against its target.
type Estimate struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Target int    `json:"target_tokens,omitempty"` // 0: shown for scale
	OK     bool   `json:"ok"`
}

// estimates reads the SPEC §19 token estimates of the draft and summarize
// packets at the large project's in-flight chapter and on a 300-chapter
// project made by the same generator (foreshadowing scaled to the same
// density per chapter, two volumes).
func (c *config) estimates(work string) ([]Estimate, error) {
	small := c.opts
	small.Chapters, small.Volumes = 300, 2
	small.Foreshadow = max(1, c.opts.Foreshadow*small.Chapters/c.opts.Chapters)
	dir := filepath.Join(c.dir, key(small)+"-estimate")
	if _, err := os.Stat(filepath.Join(dir, ".checkpoint.json")); err != nil {
		fmt.Fprintf(os.Stderr, "bench: generating %s …\n", dir)
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := generate(small, dir); err != nil {
			return nil, err
		}
	}
	var out []Estimate
	// SPEC §19's targets: draft and summarize at chapter 2000, the draft
	// of the 300-chapter project (its summarize packet is shown for scale).
	projects := []struct {
		dir              string
		o                largeproject.Options
		chapters, sumTgt int
	}{{work, c.opts, c.opts.Chapters, 16000}, {dir, small, small.Chapters, 0}}
	// SPEC §14 names chapter 2000: the periodic-commit project (one
	// chapter shorter) has it in flight, with its contract's cast; it is
	// there when that row was generated.
	tenth := c.opts
	tenth.Chapters = (c.opts.Chapters+1)/10*10 - 1
	if pristine := filepath.Join(c.dir, key(tenth), "pristine"); tenth.Chapters != c.opts.Chapters && exists(filepath.Join(pristine, ".checkpoint.json")) {
		projects = append(projects, struct {
			dir              string
			o                largeproject.Options
			chapters, sumTgt int
		}{pristine, tenth, tenth.Chapters, 16000})
	}
	for _, p := range projects {
		for _, s := range []struct {
			stage  string
			target int
		}{{"draft", 24000}, {"summarize", p.sumTgt}} {
			step := "chapter:" + pad(p.o.Inflight()) + ":" + s.stage
			raw, err := c.tool(p.dir, "novel-manifest", "packet", step, "--jq", ".estimate.tokens")
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(strings.TrimSpace(raw))
			if err != nil {
				return nil, fmt.Errorf("%s: estimate %q: %v", step, raw, err)
			}
			out = append(out, Estimate{Name: fmt.Sprintf("packet estimate %s (%d chapters)", step, p.chapters), Tokens: n, Target: s.target,
				OK: s.target == 0 || n <= s.target})
		}
	}
	return out, nil
}

func main() {
	var c config
	var only string
	flag.StringVar(&c.bin, "bin", "bin", "directory holding the built binaries")
	flag.StringVar(&c.pipeline, "pipeline", "pipeline.mk", "the pipeline make file")
	flag.StringVar(&c.vsTSDir, "vs-ts", "", "a TypeScript CLI install directory: time next, validate, advance, instructions and commit with both and report the ratios (skipped when node or the CLI is absent)")
	flag.StringVar(&c.demo, "demo", "examples/demo", "the demo (project/ and replay/) for the prefix share; empty skips it")
	flag.StringVar(&c.dir, "dir", ".bench", "scratch directory (generated projects are cached here)")
	flag.IntVar(&c.runs, "runs", 15, "timed runs per command")
	flag.IntVar(&c.warmup, "warmup", 3, "untimed warm-up runs per command")
	flag.IntVar(&c.pipelineRuns, "pipeline-runs", 0, "timed runs of the pipeline (default -runs)")
	flag.IntVar(&c.opts.Chapters, "chapters", 2000, "committed chapters of the large project")
	flag.IntVar(&c.opts.Volumes, "volumes", 10, "volumes of the large project")
	flag.IntVar(&c.opts.Characters, "characters", 300, "active characters")
	flag.IntVar(&c.opts.Foreshadow, "foreshadow", 2000, "foreshadowing items")
	flag.IntVar(&c.ratioChapters, "ratio-chapters", 500, "smaller project for the commit growth ratio")
	flag.BoolVar(&c.skipRatio, "no-ratio", false, "skip the commit growth ratio")
	flag.StringVar(&only, "only", "", "run only commands whose name matches this regexp")
	flag.StringVar(&c.jsonOut, "json", "", "also write the results as JSON to this file")
	profiles := flag.String("profiles", "standard,dense", "generator profiles to run, comma-separated (SPEC §14: standard and dense)")
	genProfile := flag.String("profile", "", "internal: with -generate, the generator profile")
	flag.DurationVar(&settle, "settle", settle, "pause after syncing each fresh copy for a writing command (untimed)")
	seed := flag.Uint64("seed", 1, "generator seed")
	genDir := flag.String("generate", "", "internal: generate one project into this directory and exit")
	genIdle := flag.Bool("generate-idle", false, "internal: with -generate, the idle variant")
	genReplay := flag.String("generate-replay", "", "internal: with -generate, also write replay recordings here")
	flag.Parse()
	if *genDir != "" {
		c.opts.Seed, c.opts.Idle, c.opts.Profile = *seed, *genIdle, *genProfile
		if err := largeproject.Generate(*genDir, c.opts); err != nil {
			fail(err)
		}
		if *genReplay != "" {
			if err := largeproject.WriteReplay(*genReplay, c.opts); err != nil {
				fail(err)
			}
		}
		return
	}
	c.opts.Seed = *seed
	if c.pipelineRuns == 0 {
		c.pipelineRuns = c.runs
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			fail(err)
		}
		c.only = re
	}
	var err error
	if c.bin, err = filepath.Abs(c.bin); err != nil {
		fail(err)
	}
	if c.pipeline, err = filepath.Abs(c.pipeline); err != nil {
		fail(err)
	}
	if c.dir, err = filepath.Abs(c.dir); err != nil {
		fail(err)
	}
	if c.demo != "" {
		if c.demo, err = filepath.Abs(c.demo); err != nil {
			fail(err)
		}
	}
	var reps []Report
	var missed error
	for _, p := range strings.Split(*profiles, ",") {
		pc := c
		switch p = strings.TrimSpace(p); p {
		case "standard":
			pc.opts.Profile = ""
		case largeproject.Dense:
			pc.opts.Profile = p
		default:
			fail(fmt.Errorf("unknown profile %q (standard, dense)", p))
		}
		rep, err := run(&pc)
		if rep != nil {
			reps = append(reps, *rep)
		}
		if err != nil {
			if rep == nil {
				fail(err)
			}
			missed = err
		}
	}
	if c.jsonOut != "" {
		data, _ := json.MarshalIndent(reps, "", "  ")
		if err := os.WriteFile(c.jsonOut, append(data, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
	if missed != nil {
		fail(missed)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// bench is one command of the table.
type bench struct {
	name   string
	target float64 // ms
	// prepare makes the directory a run happens in (untimed); nil runs in
	// the shared work copy.
	prepare func(i int) (dir string, cleanup func(), err error)
	argv    []string
	env     []string
}

// run benches one profile; the report is nil when nothing could be
// measured, and the error says which targets were missed.
func run(c *config) (*Report, error) {
	big := c.opts
	work, idle, replay, err := c.projects(big)
	if err != nil {
		return nil, err
	}
	inflight := strconv.Itoa(big.Inflight())
	step := "chapter:" + pad(big.Inflight())

	lintFile := filepath.Join(c.dir, "lint-chapter.md")
	if err := os.WriteFile(lintFile, lintChapter(big.Inflight(), 5000), 0o644); err != nil {
		return nil, err
	}

	benches := []bench{
		{name: "novel-step --help (process start)", argv: []string{"novel-step", "--help"}},
		{name: "novel-step next", target: 10, argv: []string{"novel-step", "next"}},
		{name: "novel-outline --chapter " + inflight, target: 10, argv: []string{"novel-outline", "--chapter", inflight}},
		{name: "novel-gate decide --chapter " + inflight, target: 10, argv: []string{"novel-gate", "decide", "--chapter", inflight}},
		{name: "novel-foreshadow query --chapter " + inflight, target: 15, argv: []string{"novel-foreshadow", "query", "--chapter", inflight}},
		{name: "novel-manifest packet " + step + ":draft", target: 30, argv: []string{"novel-manifest", "packet", step + ":draft"}},
		{name: "novel-manifest packet " + step + ":judge", target: 30, argv: []string{"novel-manifest", "packet", step + ":judge"}},
		{name: "novel-step validate " + step + ":draft (write boundary)", target: 60, argv: []string{"novel-step", "validate", step + ":draft"}},
		{name: "novel-audit continuity (window 10)", target: 60, argv: []string{"novel-audit", "continuity"},
			prepare: removingAfter(work, layout.ContinuityReport(big.Inflight()-1), layout.ContinuityLatest)},
		{name: "novel-lint --chapter " + inflight + " (5,000 字)", target: 15, argv: []string{"novel-lint", "--chapter", inflight, "--file", lintFile, "--stage", "refine"}},
		c.commitBench("novel-commit --chapter "+inflight, big, filepath.Join(c.dir, key(big), "gated")),
		{name: "pipeline.mk chapter (replay, draft→commit)", target: 1000,
			prepare: copier(idle, filepath.Join(c.dir, "run")),
			argv: []string{"make", "-s", "-f", c.pipeline, "chapter", "C=" + inflight,
				"AGENT=novel-agent --backend replay --fixtures " + replay}},
	}
	if pb, ok, err := c.periodicCommit(big); err != nil {
		return nil, err
	} else if ok {
		// After the plain commit, before the pipeline.
		benches = slices.Insert(benches, len(benches)-1, pb)
	}
	var results []Result
	var commitMedian float64
	for _, b := range benches {
		if c.only != nil && !c.only.MatchString(b.name) {
			continue
		}
		runs := c.runs
		if strings.HasPrefix(b.name, "pipeline.mk") {
			runs = c.pipelineRuns
		}
		r, err := c.measure(b, work, runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		results = append(results, r)
		if b.name == "novel-commit --chapter "+inflight {
			commitMedian = r.MedianMS
		}
	}
	rep := Report{Date: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Profile: profileName(big), Chapters: big.Chapters, Results: results}
	if c.only == nil || c.only.MatchString("packet estimate") {
		if rep.Estimates, err = c.estimates(work); err != nil {
			return nil, err
		}
	}
	if c.only == nil || c.only.MatchString("prefix share") {
		if rep.Prefix, err = c.prefixShares(big, idle, replay); err != nil {
			return nil, err
		}
	}
	if c.vsTSDir != "" {
		if rep.VsTS, err = c.vsTS(big, work, idle, replay); err != nil {
			return nil, err
		}
	}
	if !c.skipRatio && commitMedian > 0 && c.ratioChapters > 0 && c.ratioChapters != big.Chapters {
		small := big
		small.Chapters = c.ratioChapters
		// Same chapters per volume and the same state size: only the
		// history (chapters, summaries, changelog) grows.
		small.Volumes = max(1, c.opts.Volumes*c.ratioChapters/big.Chapters)
		if _, _, _, err := c.projects(small); err != nil {
			return nil, err
		}
		b := c.commitBench(fmt.Sprintf("novel-commit --chapter %d (%d chapters)", small.Inflight(), small.Chapters), small,
			filepath.Join(c.dir, key(small), "gated"))
		r, err := c.measure(b, "", c.runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		rep.Results = append(rep.Results, r)
		ratio := commitMedian / r.MedianMS
		rep.CommitRatio, rep.RatioBase = &ratio, small.Chapters
	}
	printTable(os.Stdout, rep)
	for _, r := range rep.Results {
		if !r.OK {
			return &rep, errors.New("some targets were missed (see MISS above)")
		}
	}
	for _, e := range rep.Estimates {
		if !e.OK {
			return &rep, errors.New("some packet estimates are over their targets (see MISS above)")
		}
	}
	for _, p := range rep.Prefix {
		if !p.OK {
			return &rep, errors.New("a draft request shares less than half of it with the previous chapter's (see MISS above)")
		}
	}
	for _, r := range rep.VsTS {
		if !r.OK {
			return &rep, errTS
		}
	}
	if rep.CommitRatio != nil && *rep.CommitRatio > 1.5 {
		return &rep, errors.New("commit cost grows more than 1.5× from the small to the large project")
	}
	return &rep, nil
}

func (c *config) commitBench(name string, o largeproject.Options, gated string) bench {
	return bench{name: name, target: 60, prepare: copier(gated, filepath.Join(c.dir, "run")),
		argv: []string{"novel-commit", "--chapter", strconv.Itoa(o.Inflight())}}
}

// periodicCommit is the commit of a 10th chapter (SPEC §14: with the
// 5-chapter quality brief, the continuity audit and the 10-chapter
// inventories, ≤ 100 ms). The generator leaves chapter Chapters+1 in
// flight, so a second project one chapter (or a few) shorter puts the
// inflight chapter on a multiple of 10; it is generated only when the
// bench is selected.
func (c *config) periodicCommit(big largeproject.Options) (bench, bool, error) {
	o := big
	o.Chapters = (big.Chapters+1)/10*10 - 1
	name := fmt.Sprintf("novel-commit --chapter %d (10th: briefs, audit, inventories)", o.Inflight())
	if o.Chapters < 10 || (c.only != nil && !c.only.MatchString(name)) {
		return bench{}, false, nil
	}
	if _, _, _, err := c.projects(o); err != nil {
		return bench{}, false, err
	}
	b := c.commitBench(name, o, filepath.Join(c.dir, key(o), "gated"))
	b.target = 100
	return b, true, nil
}

func profileName(o largeproject.Options) string {
	if o.Profile == "" {
		return "standard"
	}
	return o.Profile
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func pad(n int) string { return fmt.Sprintf("%03d", n) }

func key(o largeproject.Options) string {
	k := fmt.Sprintf("g%d-s%d-c%d-v%d-ch%d-f%d", genVersion, o.Seed, o.Chapters, o.Volumes, o.Characters, o.Foreshadow)
	if o.Profile != "" {
		k += "-" + o.Profile
	}
	return k
}

// projects generates (once) the base project of o, a work copy with the
// write-boundary snapshot of the draft step, a copy with the gate applied
// (the commit template), an idle variant and its replay recordings.
func (c *config) projects(o largeproject.Options) (work, idle, replay string, err error) {
	base := filepath.Join(c.dir, key(o))
	done := filepath.Join(base, ".complete")
	work, idle, replay = filepath.Join(base, "work"), filepath.Join(base, "idle"), filepath.Join(base, "replay")
	if _, err := os.Stat(done); err == nil {
		return work, idle, replay, nil
	}
	if err := os.RemoveAll(base); err != nil {
		return "", "", "", err
	}
	fmt.Fprintf(os.Stderr, "bench: generating %s …\n", base)
	pristine := filepath.Join(base, "pristine")
	if err := generate(o, pristine); err != nil {
		return "", "", "", err
	}
	if err := generate(o, idle, "-generate-idle", "-generate-replay", replay); err != nil {
		return "", "", "", err
	}
	step := "chapter:" + pad(o.Inflight())
	if err := copyTree(pristine, work); err != nil {
		return "", "", "", err
	}
	if _, err := c.tool(work, "novel-manifest", "packet", step+":draft", "--write-manifest"); err != nil {
		return "", "", "", err
	}
	gated := filepath.Join(base, "gated")
	if err := copyTree(pristine, gated); err != nil {
		return "", "", "", err
	}
	if _, err := c.tool(gated, "novel-gate", "decide", "--chapter", strconv.Itoa(o.Inflight()), "--apply"); err != nil {
		return "", "", "", err
	}
	// The generated project must be valid for the tools that check it.
	if out, err := c.tool(pristine, "novel-commit", "rebuild", "--check", "--jq", ".matches"); err != nil || strings.TrimSpace(out) != "true" {
		return "", "", "", fmt.Errorf("generated project fails novel-commit rebuild --check: %s %v", out, err)
	}
	if err := os.WriteFile(done, []byte(key(o)+"\n"), 0o644); err != nil {
		return "", "", "", err
	}
	return work, idle, replay, nil
}

// generate runs the generator in a child process. Linux charges a
// vfork'ed child's peak RSS with its parent's at exec time, so the
// harness itself must stay small for the RSS column to mean anything.
func generate(o largeproject.Options, dir string, extra ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{"-generate", dir, "-seed", strconv.FormatUint(o.Seed, 10), "-chapters", strconv.Itoa(o.Chapters), "-volumes", strconv.Itoa(o.Volumes),
		"-characters", strconv.Itoa(o.Characters), "-foreshadow", strconv.Itoa(o.Foreshadow), "-profile", o.Profile}, extra...)
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func (c *config) env() []string {
	env := []string{"PATH=" + c.bin + string(os.PathListSeparator) + os.Getenv("PATH"), "NOVEL_NOW=" + now, "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
	return env
}

// tool runs one of the suite's binaries (or make, from PATH).
func (c *config) tool(dir string, argv ...string) (string, error) {
	return c.toolEnv(dir, nil, argv...)
}

// toolEnv is tool with extra environment variables.
func (c *config) toolEnv(dir string, extra []string, argv ...string) (string, error) {
	path := filepath.Join(c.bin, argv[0])
	if argv[0] == "make" {
		if p, err := exec.LookPath("make"); err == nil {
			path = p
		}
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(c.env(), extra...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s in %s: %v: %s", strings.Join(argv, " "), dir, err, stderr.String())
	}
	return string(out), nil
}

// settle is the pause after syncing a fresh copy (-settle).
var settle = 500 * time.Millisecond

// removingAfter runs in the shared work copy and removes rels after each
// run: the audit writes its report there, and the cached copy must stay as
// generated, since the validate bench of the next bench run compares it
// with the draft snapshot taken at generation.
func removingAfter(work string, rels ...string) func(int) (string, func(), error) {
	return func(int) (string, func(), error) {
		return work, func() {
			for _, rel := range rels {
				os.Remove(filepath.Join(work, rel))
			}
		}, nil
	}
}

func copier(src, dst string) func(int) (string, func(), error) {
	return func(int) (string, func(), error) {
		if err := os.RemoveAll(dst); err != nil {
			return "", nil, err
		}
		if err := copyTree(src, dst); err != nil {
			return "", nil, err
		}
		// Flush the copy's dirty pages now, untimed, and let the disk
		// settle: otherwise the timed command's own fsyncs would pay for
		// writing back a 64 MB copy (a cost no real commit has).
		syscall.Sync()
		time.Sleep(settle)
		return dst, func() { os.RemoveAll(dst) }, nil
	}
}

// copyTree uses cp -a: it is much faster than a Go walk for 15k files and
// the copy is not timed anyway.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := exec.Command("cp", "-a", src, dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
	return nil
}

// measure runs b warmup+runs times; every run must exit 0 with output.
func (c *config) measure(b bench, work string, runs int) (Result, error) {
	fmt.Fprintf(os.Stderr, "bench: %s ", b.name)
	var samples []sample
	for i := 0; i < c.warmup+runs; i++ {
		dir, cleanup := work, func() {}
		if b.prepare != nil {
			d, cl, err := b.prepare(i)
			if err != nil {
				return Result{}, err
			}
			dir, cleanup = d, cl
		}
		s, err := c.once(dir, b)
		cleanup()
		if err != nil {
			return Result{}, err
		}
		if i >= c.warmup {
			samples = append(samples, s)
		}
		fmt.Fprint(os.Stderr, ".")
	}
	fmt.Fprintln(os.Stderr)
	walls := make([]float64, len(samples))
	cpus := make([]float64, len(samples))
	var peak int64
	for i, s := range samples {
		walls[i] = float64(s.wall.Microseconds()) / 1000
		cpus[i] = float64(s.cpu.Microseconds()) / 1000
		peak = max(peak, s.rss)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	r := Result{Name: b.name, Runs: len(samples), MedianMS: median(walls), P90MS: percentile(walls, 0.9), CPUMS: median(cpus),
		PeakMiB: float64(peak) / (1 << 20), TargetMS: b.target}
	r.OK = r.PeakMiB <= memLimitMiB && (b.target == 0 || r.MedianMS <= b.target)
	return r, nil
}

// once runs the command as a process; wall time spans start to reap, and
// Maxrss is the largest resident set of the process or any descendant it
// waited for (so make's children count for the pipeline).
func (c *config) once(dir string, b bench) (sample, error) {
	path := b.argv[0]
	if !strings.Contains(path, "/") && path != "make" {
		path = filepath.Join(c.bin, path)
	}
	cmd := exec.Command(path, b.argv[1:]...)
	if path == "make" {
		if p, err := exec.LookPath("make"); err == nil {
			cmd.Path = p
		}
		cmd.Args = append(cmd.Args, "PROJECT="+dir)
	}
	cmd.Dir, cmd.Env = dir, append(c.env(), b.env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	err := cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("exit: %v\n%s", err, lastLines(stderr.String(), 5))
	}
	if stdout.Len() == 0 && path != "make" {
		return sample{}, errors.New("no output")
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // KiB on Linux
	}
	return sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss: rss}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// percentile uses the nearest-rank method.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func machine() string {
	model := ""
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, ln := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(ln, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs, %s, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model, runtime.Version())
}

func printTable(w io.Writer, rep Report) {
	fmt.Fprintf(w, "\n%s · %s · profile %s · %d chapters\n\n", rep.Date, rep.Machine, rep.Profile, rep.Chapters)
	fmt.Fprintf(w, "| %-58s | %9s | %9s | %9s | %8s | %7s | %-4s |\n", "command", "median ms", "p90 ms", "cpu ms", "RSS MiB", "target", "")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 60), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 10), strings.Repeat("-", 9), strings.Repeat("-", 6))
	for _, r := range rep.Results {
		target, verdict := "-", "ok"
		if r.TargetMS > 0 {
			target = fmt.Sprintf("≤ %g", r.TargetMS)
		}
		if !r.OK {
			verdict = "MISS"
		}
		fmt.Fprintf(w, "| %-58s | %9.1f | %9.1f | %9.1f | %8.1f | %7s | %-4s |\n", r.Name, r.MedianMS, r.P90MS, r.CPUMS, r.PeakMiB, target, verdict)
	}
	if rep.CommitRatio != nil {
		verdict := "ok"
		if *rep.CommitRatio > 1.5 {
			verdict = "MISS"
		}
		fmt.Fprintf(w, "\ncommit growth %d → %d chapters: %.2f× (target ≤ 1.5×) %s\n", rep.RatioBase, rep.Chapters, *rep.CommitRatio, verdict)
	}
	if len(rep.Estimates) > 0 {
		fmt.Fprintf(w, "\n| %-58s | %9s | %9s | %-4s |\n", "packet (SPEC §19: tokens = ⌈0.6 CJK + 0.3 other⌉)", "tokens", "target", "")
		fmt.Fprintf(w, "|%s|%s|%s|%s|\n", strings.Repeat("-", 60), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 6))
		for _, e := range rep.Estimates {
			target, verdict := "-", "ok"
			if e.Target > 0 {
				target = fmt.Sprintf("≤ %d", e.Target)
			}
			if !e.OK {
				verdict = "MISS"
			}
			fmt.Fprintf(w, "| %-58s | %9d | %9s | %-4s |\n", e.Name, e.Tokens, target, verdict)
		}
	}
	printTS(w, rep.VsTS)
	if len(rep.Prefix) > 0 {
		fmt.Fprintf(w, "\n| %-58s | %9s | %9s | %7s | %-4s |\n", "draft request prefix share (same storyline, SPEC §14)", "prefix", "chars", "share", "")
		fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 60), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 9), strings.Repeat("-", 6))
		for _, p := range rep.Prefix {
			verdict := "ok"
			if !p.OK {
				verdict = "MISS"
			}
			fmt.Fprintf(w, "| %-58s | %9d | %9d | %6.1f%% | %-4s |\n", fmt.Sprintf("%s: chapter %d after %d", p.Project, p.Second, p.First),
				p.PrefixChars, p.Chars, 100*p.Share, verdict)
		}
	}
	fmt.Fprintf(w, "peak RSS limit %d MiB per call; cpu = user+system time (less sensitive to a busy machine than wall time)\n", memLimitMiB)
}

// lintChapter is a chapter of at least words 字 that keeps every check busy:
// dialogue and narration, similes, connectors, dashes, a few long
// paragraphs.
func lintChapter(c, words int) []byte {
	lines := []string{
		"陆照提着灯走下石阶，山风从松林里灌进来，灯火晃了晃，又稳住了。",
		"「你真要下山？」秦守一没有抬头，手里的灯芯剪得极慢。",
		"「鲸脂撑不过三夜。」陆照把油壶放在案上——壶底只剩薄薄一层。",
		"然而殿里的灯仿佛听懂了什么，一盏接一盏地暗下去，又一盏接一盏地亮起来……",
		"他不是怕黑，而是怕那盏灯在他走后熄灭。因此他在灯册上补了一行小字，写完又看了很久，直到天边泛白，直到山下的钟声一下一下地传上来，直到他终于确定自己必须走这一趟，哪怕戒律堂的人会在半路上等他，哪怕周伯留下的那半块守灯令根本照不出任何东西，哪怕这一路上每一个人都在劝他回头。",
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# 第%d章 下山\n\n", c)
	for i := 0; textmeasure.WordCount(b.String()) < words; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteString("\n\n")
	}
	return []byte(b.String())
}
