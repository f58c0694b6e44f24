package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// TSRatio is one command timed with the suite and with the TypeScript
// CLI on the same project (SPEC §14: the suite ≥ 10× faster on every
// command they share).
type TSRatio struct {
	Command  string  `json:"command"`
	OursMS   float64 `json:"ours_median_ms"`
	TheirsMS float64 `json:"ts_median_ms"`
	Ratio    float64 `json:"ratio"`
	OK       bool    `json:"ok"`
	Error    string  `json:"error,omitempty"`
}

const minTSRatio = 10

// tsCommand finds the TypeScript CLI in its install directory: an
// executable bin/novel (or node_modules/.bin/novel), or dist/cli.js run
// with node. ok is false (with the reason) when it or node is absent.
func tsCommand(dir string) ([]string, string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, "node is not on PATH"
	}
	for _, rel := range []string{"bin/novel", "node_modules/.bin/novel"} {
		p := filepath.Join(dir, rel)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return []string{p}, ""
		}
	}
	for _, rel := range []string{"dist/cli.js", "dist/index.js"} {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return []string{node, p}, ""
		}
	}
	return nil, "no bin/novel, node_modules/.bin/novel or dist/cli.js under " + dir
}

// vsTS times next, validate, advance, instructions and commit with both
// CLIs on copies of the same generated project. Each pair runs with the
// same warm-up and run counts; a command the TS CLI fails on is reported
// with its error instead of a ratio.
func (c *config) vsTS(o largeproject.Options, work, idle, replay string) ([]TSRatio, error) {
	ts, why := tsCommand(c.vsTSDir)
	if ts == nil {
		fmt.Fprintf(os.Stderr, "bench: --vs-ts skipped: %s\n", why)
		return nil, nil
	}
	step := "chapter:" + pad(o.Inflight())
	// The advance template: the idle project with chapter N+1's draft
	// staged (the replay recording), so `advance …:draft` is legal.
	adv := filepath.Join(c.dir, key(o), "advance")
	if _, err := os.Stat(filepath.Join(adv, layout.StagingChapter(o.Inflight()))); err != nil {
		if err := os.RemoveAll(adv); err != nil {
			return nil, err
		}
		if err := copyTree(idle, adv); err != nil {
			return nil, err
		}
		if err := copyFile(filepath.Join(replay, "chapter-"+pad(o.Inflight()), "chapter-writer.draft.r0.md"),
			filepath.Join(adv, layout.StagingChapter(o.Inflight()))); err != nil {
			return nil, err
		}
	}
	gated := filepath.Join(c.dir, key(o), "gated")
	run := filepath.Join(c.dir, "run")
	pairs := []struct {
		name            string
		ours, theirs    []string
		prepare, tsPrep func(int) (string, func(), error)
	}{
		{"next", []string{"novel-step", "next"}, []string{"next"}, nil, nil},
		{"validate " + step + ":draft", []string{"novel-step", "validate", step + ":draft"}, []string{"validate", step + ":draft"}, nil, nil},
		{"advance " + step + ":draft", []string{"novel-step", "advance", step + ":draft"}, []string{"advance", step + ":draft"}, copier(adv, run), nil},
		{"instructions " + step + ":draft", []string{"novel-manifest", "packet", step + ":draft"}, []string{"instructions", step + ":draft"}, nil, nil},
		{"commit --chapter " + pad(o.Inflight()), []string{"novel-commit", "--chapter", fmt.Sprint(o.Inflight())}, []string{"commit", "--chapter", fmt.Sprint(o.Inflight())}, copier(gated, run), tsCommitCopier(gated, run)},
	}
	var out []TSRatio
	for _, p := range pairs {
		r := TSRatio{Command: p.name}
		ours, err := c.measure(bench{name: "ours: " + p.name, prepare: p.prepare, argv: p.ours}, work, c.runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		tsPrep := p.prepare
		if p.tsPrep != nil {
			tsPrep = p.tsPrep
		}
		theirs, err := c.measure(bench{name: "TS CLI: " + p.name, prepare: tsPrep, argv: append(append([]string{}, ts...), p.theirs...)}, work, c.runs)
		r.OursMS = ours.MedianMS
		if err != nil {
			r.Error = lastLines(err.Error(), 1)
		} else {
			r.TheirsMS = theirs.MedianMS
			r.Ratio = theirs.MedianMS / ours.MedianMS
			r.OK = r.Ratio >= minTSRatio
		}
		out = append(out, r)
	}
	return out, nil
}

// tsCommitCopier is copier for the TS CLI's commit: that CLI moves each
// staged file into place and refuses to overwrite an existing one
// (src/commit.ts doRename), so a storyline memory the chapter updates
// would stop it on any chapter but its storyline's first. The copy's
// final memory.md is removed (untimed) wherever one is staged.
func tsCommitCopier(src, dst string) func(int) (string, func(), error) {
	cp := copier(src, dst)
	return func(i int) (string, func(), error) {
		dir, cleanup, err := cp(i)
		if err != nil {
			return "", nil, err
		}
		staged, _ := filepath.Glob(filepath.Join(dir, layout.StagingMemory("*")))
		for _, m := range staged {
			id := filepath.Base(filepath.Dir(m))
			if err := os.Remove(filepath.Join(dir, layout.Memory(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
				cleanup()
				return "", nil, err
			}
		}
		return dir, cleanup, nil
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func printTS(w io.Writer, rs []TSRatio) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| %-58s | %9s | %9s | %7s | %-4s |\n", "vs the TypeScript CLI (median ms; SPEC §14: ≥ 10×)", "ours", "TS CLI", "ratio", "")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 60), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 9), strings.Repeat("-", 6))
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(w, "| %-58s | %9.1f | %9s | %7s | %-4s |\n", r.Command+" (TS CLI failed: "+r.Error+")", r.OursMS, "–", "–", "MISS")
			continue
		}
		verdict := "ok"
		if !r.OK {
			verdict = "MISS"
		}
		fmt.Fprintf(w, "| %-58s | %9.1f | %9.1f | %6.1f× | %-4s |\n", r.Command, r.OursMS, r.TheirsMS, r.Ratio, verdict)
	}
}

var errTS = errors.New("the suite is less than 10× faster than the TypeScript CLI on some command (see MISS above)")
