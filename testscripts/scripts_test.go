// Package testscripts runs every binary of the suite through testscript:
// one directory of .txtar scripts per binary, plus end-to-end pipelines.
// The binaries are registered with testscript.Main, so scripts (and the
// make recipes they start) run the real commands as subprocesses.
package testscripts

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/novelsuite/novel/internal/cmd/novel"
	"github.com/novelsuite/novel/internal/cmd/novelagent"
	"github.com/novelsuite/novel/internal/cmd/novelaudit"
	"github.com/novelsuite/novel/internal/cmd/novelcommit"
	"github.com/novelsuite/novel/internal/cmd/novelexport"
	"github.com/novelsuite/novel/internal/cmd/novelforeshadow"
	"github.com/novelsuite/novel/internal/cmd/novelgate"
	"github.com/novelsuite/novel/internal/cmd/novelimport"
	"github.com/novelsuite/novel/internal/cmd/novelinit"
	"github.com/novelsuite/novel/internal/cmd/novellint"
	"github.com/novelsuite/novel/internal/cmd/novellock"
	"github.com/novelsuite/novel/internal/cmd/novelmanifest"
	"github.com/novelsuite/novel/internal/cmd/novelmcp"
	"github.com/novelsuite/novel/internal/cmd/novelmigrate"
	"github.com/novelsuite/novel/internal/cmd/noveloutline"
	"github.com/novelsuite/novel/internal/cmd/novelreport"
	"github.com/novelsuite/novel/internal/cmd/novelstep"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
	"github.com/novelsuite/novel/internal/testsupport/llmfake"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// epubcheckJar is where Debian's epubcheck package puts the validator.
const epubcheckJar = "/usr/share/java/epubcheck.jar"

// Commands are the binaries scripts can exec, by name.
var Commands = map[string]func(){
	"novel":            func() { os.Exit(novel.Main()) },
	"novel-step":       func() { os.Exit(novelstep.Main()) },
	"novel-lock":       func() { os.Exit(novellock.Main()) },
	"novel-outline":    func() { os.Exit(noveloutline.Main()) },
	"novel-manifest":   func() { os.Exit(novelmanifest.Main()) },
	"novel-gate":       func() { os.Exit(novelgate.Main()) },
	"novel-commit":     func() { os.Exit(novelcommit.Main()) },
	"novel-foreshadow": func() { os.Exit(novelforeshadow.Main()) },
	"novel-agent":      func() { os.Exit(novelagent.Main()) },
	"novel-report":     func() { os.Exit(novelreport.Main()) },
	"novel-export":     func() { os.Exit(novelexport.Main()) },
	"novel-import":     func() { os.Exit(novelimport.Main()) },
	"novel-migrate":    func() { os.Exit(novelmigrate.Main()) },
	"novel-init":       func() { os.Exit(novelinit.Main()) },
	"novel-audit":      func() { os.Exit(novelaudit.Main()) },
	"novel-lint":       func() { os.Exit(novellint.Main()) },
	"novel-mcp":        func() { os.Exit(novelmcp.Main()) },
	// Test-only: a scripted OpenAI-compatible server on loopback.
	"fake-llm": func() { os.Exit(llmfake.Main()) },
}

func TestMain(m *testing.M) { testscript.Main(m, Commands) }

// TestScripts runs each suite directory (testscripts/<suite>/*.txtar).
func TestScripts(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(e.Name(), "*.txtar"))
		if len(matches) == 0 {
			continue
		}
		dir := e.Name()
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			testscript.Run(t, Params(dir))
		})
	}
}

// Params are the shared testscript settings for a suite directory.
func Params(dir string) testscript.Params {
	repo, _ := filepath.Abs("..")
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("DEMO", filepath.Join(repo, "examples", "demo", "project"))
			env.Setenv("DEMO_REPLAY", filepath.Join(repo, "examples", "demo", "replay"))
			env.Setenv("PIPELINE_MK", filepath.Join(repo, "pipeline.mk"))
			env.Setenv("LANG", "C.UTF-8")
			return nil
		},
		// [epubcheck]: Debian's epubcheck (run by java) is installed (.ci/run installs it where the
		// package can be had).
		// Under -short (make test) the 20-second Java validator is left to make test-long.
		Condition: func(cond string) (bool, error) {
			if cond != "epubcheck" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if testing.Short() {
				return false, nil
			}
			_, jarErr := os.Stat(epubcheckJar)
			_, javaErr := exec.LookPath("java")
			return jarErr == nil && javaErr == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      cmdExitcode,
			"tree-snapshot": cmdTreeSnapshot,
			"cpdir":         cmdCpdir,
			"waitfile":      cmdWaitfile,
			"envfile":       cmdEnvfile,
			"gbk":           cmdGBK,
			"genproject":    cmdGenproject,
			"fake-usage":    cmdFakeUsage,
			"committed":     cmdCommitted,
		},
	}
}

// exitcode N prog args… runs prog and requires exit status N.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exec %s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s: exit status %d, want %d", args[1], got, want)
	}
}

// tree-snapshot DIR FILE writes one line per entry under DIR (path, kind,
// sha256 of the content) to FILE, so `cmp` shows what changed.
func cmdTreeSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tree-snapshot DIR FILE")
	}
	tree, err := testkit.Tree(ts.MkAbs(args[0]), false)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(testkit.Listing(tree)), 0o644))
}

// cpdir SRC DST copies a directory tree (the demo project, fixtures).
func cmdCpdir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpdir SRC DST")
	}
	ts.Check(testkit.CopyTree(ts.MkAbs(args[0]), ts.MkAbs(args[1]), false))
}

// waitfile FILE [SECONDS] waits until FILE exists (default 20 s).
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [SECONDS]")
	}
	limit := 20.0
	if len(args) == 2 {
		f, err := strconv.ParseFloat(args[1], 64)
		ts.Check(err)
		limit = f
	}
	deadline := time.Now().Add(time.Duration(limit * float64(time.Second)))
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("timed out waiting for %s", args[0])
}

// envfile VAR FILE sets VAR to FILE's content (trimmed), e.g. the URL a
// background fake server wrote.
func cmdEnvfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
}

// fake-usage LOG [IN CACHE_IN OUT CURRENCY] prints what the loopback fake
// reported in its request log's usage lines, summed:
// `requests=N prompt=P completion=C cache_hit=H reasoning=R cost=A CUR`
// (null for a count no answer carried). The cost prices each request like
// SPEC §18 (uncached input, cached input, output per million tokens,
// rounded to 1e-8), so a test can check the client's accounting against
// the server's own numbers.
func cmdFakeUsage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || (len(args) != 1 && len(args) != 5) {
		ts.Fatalf("usage: fake-usage LOG [IN CACHE_IN OUT CURRENCY]")
	}
	var price [3]float64
	cur := ""
	if len(args) == 5 {
		for i := range price {
			v, err := strconv.ParseFloat(args[i+1], 64)
			ts.Check(err)
			price[i] = v
		}
		cur = args[4]
	}
	sums := map[string]*int64{}
	add := func(k string, v *int64) {
		if v == nil {
			return
		}
		if sums[k] == nil {
			sums[k] = new(int64)
		}
		*sums[k] += *v
	}
	requests := 0
	var cost *float64
	for _, ln := range strings.Split(ts.ReadFile(args[0]), "\n") {
		var rec struct {
			Usage *struct {
				Prompt     *int64 `json:"prompt_tokens"`
				Completion *int64 `json:"completion_tokens"`
				CacheHit   *int64 `json:"prompt_cache_hit_tokens"`
				Details    *struct {
					Reasoning *int64 `json:"reasoning_tokens"`
				} `json:"completion_tokens_details"`
			} `json:"usage"`
			N int `json:"n"`
		}
		if !strings.Contains(ln, `"usage":`) || json.Unmarshal([]byte(ln), &rec) != nil {
			continue
		}
		requests++
		u := rec.Usage
		if u == nil {
			continue
		}
		add("prompt", u.Prompt)
		add("completion", u.Completion)
		add("cache_hit", u.CacheHit)
		if u.Details != nil {
			add("reasoning", u.Details.Reasoning)
		}
		if cur != "" && u.Prompt != nil && u.Completion != nil {
			hit := int64(0)
			if u.CacheHit != nil {
				hit = *u.CacheHit
			}
			c := math.Round((float64(*u.Prompt-hit)*price[0]+float64(hit)*price[1]+float64(*u.Completion)*price[2])/1e6*1e8) / 1e8
			if cost == nil {
				cost = new(float64)
			}
			*cost = math.Round((*cost+c)*1e8) / 1e8
		}
	}
	show := func(k string) string {
		if sums[k] == nil {
			return "null"
		}
		return strconv.FormatInt(*sums[k], 10)
	}
	costText := "null"
	if cost != nil {
		costText = strconv.FormatFloat(*cost, 'f', -1, 64) + " " + cur
	}
	fmt.Fprintf(ts.Stdout(), "requests=%d prompt=%s completion=%s cache_hit=%s reasoning=%s cost=%s\n",
		requests, show("prompt"), show("completion"), show("cache_hit"), show("reasoning"), costText)
}

// gbk SRC DST writes SRC (UTF-8) re-encoded as GBK, the encoding of many
// manuscripts saved by Chinese editors on Windows.
func cmdGBK(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gbk SRC DST")
	}
	out, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
}

// committed DIR N gives a hand-made fixture the committed files of
// chapters 1…N that it lacks (a chapter file and a summary each, never
// replacing one the fixture has), so a checkpoint claiming N chapters
// passes the integrity check (SPEC §22.1).
func cmdCommitted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: committed DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	for c := 1; c <= n; c++ {
		for rel, body := range map[string]string{
			layout.Chapter(c): fmt.Sprintf("# 第%d章\n\n夜色渐深。\n", c),
			layout.Summary(c): fmt.Sprintf("# 第%d章摘要\n\n夜色渐深。\n", c),
		} {
			abs := filepath.Join(ts.MkAbs(args[0]), filepath.FromSlash(rel))
			if _, err := os.Lstat(abs); err == nil {
				continue
			}
			ts.Check(os.MkdirAll(filepath.Dir(abs), 0o755))
			ts.Check(os.WriteFile(abs, []byte(body), 0o644))
		}
	}
}

// genproject DIR N [REPLAY] writes a small idle project of N committed
// chapters in one volume (internal/testsupport/largeproject), and with REPLAY the
// replay recordings of chapter N+1 there.
func cmdGenproject(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: genproject DIR N [REPLAY]")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	o := largeproject.Options{Chapters: n, Volumes: 1, Characters: 10, Foreshadow: 20, StateBytes: 20000, Seed: 1, Idle: true}
	ts.Check(largeproject.Generate(ts.MkAbs(args[0]), o))
	if len(args) == 3 {
		ts.Check(largeproject.WriteReplay(ts.MkAbs(args[2]), o))
	}
}
