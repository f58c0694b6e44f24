package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// fixtureProject extracts the committed project of the novel-report
// testscript (files under p/) into a temp dir, so both tests share one
// fixture.
func fixtureProject(t *testing.T) *project.Root {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testscripts", "novel-report", "report.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "p/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs headless Chromium on page with extra flags and returns
// stdout and stderr. The timeout only guards against a hung browser.
func runChromium(t *testing.T, bin, page string, extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
	}
	return out.String(), errb.String()
}

// TestBrowserRendersReport opens the report of the fixture project in
// headless Chromium: the page renders to a non-empty PNG, logs no console
// errors, and the rendered DOM holds the expected chart elements.
func TestBrowserRendersReport(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("Chromium is not installed but CI=true: install it (apt-get install -y chromium)")
		}
		t.Skip("Chromium is not installed; install it (apt-get install -y chromium) to run the browser test")
	}
	r, err := Collect(fixtureProject(t), settings.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, r.HTML(), 0o644); err != nil {
		t.Fatal(err)
	}

	shot := filepath.Join(dir, "shot.png")
	_, logs := runChromium(t, bin, page, "--screenshot="+shot, "--window-size=1280,2000",
		"--hide-scrollbars", "--enable-logging=stderr", "--v=0")
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, logs)
	}
	if len(png) < 10_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot is not a real PNG (%d bytes)", len(png))
	}
	if keep := os.Getenv("REPORT_SCREENSHOT"); keep != "" {
		// For looking at the page by eye.
		_ = os.WriteFile(keep, png, 0o644)
	}
	for _, ln := range strings.Split(logs, "\n") {
		if strings.Contains(ln, "Uncaught") || strings.Contains(ln, ":CONSOLE(") {
			t.Errorf("console error: %s", ln)
		}
	}

	dom, _ := runChromium(t, bin, page, "--dump-dom")
	for _, c := range []struct {
		re   string
		want int
	}{
		{`<svg id="chart-score"`, 1},
		{`<svg id="chart-words"`, 1},
		{`<svg id="chart-foreshadow"`, 1},
		{`<svg id="chart-storylines"`, 1},
		{`<svg id="chart-usage"`, 1},
		{`class="pt pt-`, 5},
		{`class="pt pt-force_passed"`, 1},
		{`class="bar"`, 7}, // 5 word-count bars + 2 usage bars (the chapters with a cost)
		{`class="span `, 3},
		{`class="span span-overdue"`, 1},
		{`class="cell"`, 5},
		{`class="dormant"`, 1},
		{`<script`, 0},
	} {
		if got := len(regexp.MustCompile(c.re).FindAllStringIndex(dom, -1)); got != c.want {
			t.Errorf("rendered DOM has %d × %s, want %d", got, c.re, c.want)
		}
	}
	if !strings.Contains(dom, "《灯下》 · 健康报告") {
		t.Error("the rendered DOM lacks the Chinese title")
	}
}
