// Package cli is the one runner every binary uses: kong parsing, the
// global flags (--project, --json, --text, --jq, -o), the single JSON
// document on stdout, the one-line JSON error on stderr, and exit codes.
package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/itchyny/gojq"

	"github.com/novelsuite/novel/internal/clock"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// Globals are the flags every binary accepts. Embed it in a grammar with
// `embed:""`.
type Globals struct {
	Project string `help:"Project root (default: $$NOVEL_PROJECT, else the nearest ancestor holding .checkpoint.json)." placeholder:"DIR"`
	JSON    bool   `name:"json" help:"Print the result as JSON (the default)."`
	Text    bool   `help:"Print a short human-readable form instead of JSON."`
	JQ      string `name:"jq" help:"Filter the result with a jq expression; string results print raw, one per line." placeholder:"EXPR"`
	Output  string `short:"o" name:"output" help:"Write the result to FILE atomically instead of stdout (a FIFO or device is written through, a symlink's target is replaced; the directory must exist; the project's own files are refused)." placeholder:"FILE"`
}

func (g *Globals) globals() *Globals { return g }

type hasGlobals interface{ globals() *Globals }

// IO is the process environment a command runs in.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	Cwd    string
}

// StdIO is the real process environment.
func StdIO() IO {
	cwd, _ := os.Getwd()
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Cwd: cwd}
}

// Context is handed to every command's Run method.
type Context struct {
	IO
	Name    string
	Globals *Globals

	root      *project.Root
	rootErr   error
	clk       *clock.Clock
	result    any
	text      func() string
	hasResult bool
	exit      int
	// lang is the message language a command chose before any project
	// settings exist (novel init --language en).
	lang string
}

// SetLanguage makes errors print in lang ("zh" or "en") when no project
// settings say otherwise: novel init's own --language, for the errors of
// the run that creates settings.json.
func (c *Context) SetLanguage(lang string) {
	if lang == "zh" || lang == "en" {
		c.lang = lang
	}
}

// ReportExit sets the exit status of a command whose result is a report
// with a verdict (novel doctor: 1 when unusable): the result is printed
// as usual and no error line is written.
func (c *Context) ReportExit(code int) { c.exit = code }

// Root resolves (once) the project root.
func (c *Context) Root() (*project.Root, error) {
	if c.root == nil && c.rootErr == nil {
		c.root, c.rootErr = project.Find(c.Globals.Project, c.Getenv("NOVEL_PROJECT"), c.Cwd)
	}
	return c.root, c.rootErr
}

// Project is Root for commands that create files before anything reads
// the checkpoint (the lock): a root without .checkpoint.json is refused.
func (c *Context) Project() (*project.Root, error) {
	root, err := c.Root()
	if err != nil {
		return nil, err
	}
	if err := root.Require(); err != nil {
		return nil, err
	}
	return root, nil
}

// Clock returns the suite clock (NOVEL_NOW aware).
func (c *Context) Clock() (clock.Clock, error) {
	if c.clk == nil {
		k, err := clock.FromEnv(c.Getenv)
		if err != nil {
			return k, err
		}
		c.clk = &k
	}
	return *c.clk, nil
}

// Settings loads the project's effective settings.
func (c *Context) Settings() (settings.Settings, error) {
	root, err := c.Root()
	if err != nil {
		return settings.Defaults(), err
	}
	return settings.Load(root, c.Getenv)
}

// Open resolves what most commands start with: the project root, its
// settings and the clock's timestamp for the writes.
func (c *Context) Open() (*project.Root, settings.Settings, string, error) {
	root, err := c.Root()
	if err != nil {
		return nil, settings.Defaults(), "", err
	}
	s, err := c.Settings()
	if err != nil {
		return nil, s, "", err
	}
	clk, err := c.Clock()
	if err != nil {
		return nil, s, "", err
	}
	return root, s, clk.Stamp(), nil
}

// Result records the command's result; text renders --text (nil falls
// back to JSON).
func (c *Context) Result(v any, text func() string) {
	c.result, c.text, c.hasResult = v, text, true
}

// Document prints doc (a book or a report) as it is: it goes through the
// text path, so the global -o still writes it atomically.
func (c *Context) Document(doc []byte) {
	c.Globals.Text = true
	text := string(doc)
	c.Result(nil, func() string { return text })
}

// Main runs a binary with the process's arguments and stdio.
func Main(name, description string, grammar any) int {
	tuneGC(os.Getenv)
	// A mapped file (jsonio.MapFile) truncated in place by another
	// program faults on access: as a panic, run reports it as an error.
	debug.SetPanicOnFault(true)
	return run(name, description, grammar, os.Args[1:], StdIO())
}

// Every binary is a short process that allocates a few MiB to a few tens
// of MiB and exits: collecting at the default GOGC=100 spends ~30% of the
// CPU of a large-project call on garbage that process exit frees anyway.
// A higher GOGC with a soft memory limit keeps that work away while the
// heap stays under the SPEC §14 64 MiB peak (the limit makes the GC work
// harder only as the heap approaches it). GOGC / GOMEMLIMIT in the
// environment still win.
const (
	gcPercent   = 400
	memoryLimit = 48 << 20
)

func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

type exitPanic int

// run parses args into grammar, runs the selected command and prints the
// result or the error. It returns the exit code.
func run(name, description string, grammar any, args []string, stdio IO) (code int) {
	if stdio.Getenv == nil {
		stdio.Getenv = func(string) string { return "" }
	}
	hg, ok := grammar.(hasGlobals)
	if !ok {
		panic("cli: grammar must embed cli.Globals")
	}
	ctx := &Context{IO: stdio, Name: name, Globals: hg.globals()}
	defer func() {
		if r := recover(); r != nil {
			if ep, ok := r.(exitPanic); ok {
				code = int(ep)
				return
			}
			code = report(ctx, errs.Newf(errs.IO, "内部错误：%v", "internal error: %v", r).
				Hint("这是程序缺陷，请附上命令和输入报告问题", "this is a bug; please report it with the command and inputs"))
		}
	}()
	opts := append([]kong.Option{
		kong.Name(name),
		kong.Description(description + "\n\n" + errs.ExitHelp + "\nError codes: " + strings.Join(errs.Codes, " ") + "."),
		kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(func(c int) { panic(exitPanic(c)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	}, numberMappers...)
	parser, err := kong.New(grammar, opts...)
	if err != nil {
		panic(err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return report(ctx, usageErr(err))
	}
	g := ctx.Globals
	if g.Text && g.JQ != "" {
		return report(ctx, UsageError("--text 与 --jq 不能同时使用", "--text and --jq cannot be combined"))
	}
	if g.Output != "" {
		// Refused before the command runs, so a refusal writes nothing.
		if err := ctx.CheckOutput(g.Output); err != nil {
			return report(ctx, err)
		}
	}
	if err := kctx.Run(ctx); err != nil {
		return report(ctx, err)
	}
	if !ctx.hasResult {
		return 0
	}
	out, err := render(ctx)
	if err != nil {
		return report(ctx, err)
	}
	if g.Output != "" {
		if err := ctx.WriteOutput(g.Output, out); err != nil {
			return report(ctx, err)
		}
		return ctx.exit
	}
	stdio.Out.Write(out)
	return ctx.exit
}

// CheckOutput refuses (E_PATH) an output path that is, or lies under, a
// file or folder of the project the suite manages (SPEC §22.1): `-o
// .checkpoint.json` or `export --out chapters/chapter-002.md` would
// replace the project's own data. Symlinks and ".." are resolved first.
// Without a project there is nothing to protect. Commands with their own
// --out call it before they read anything.
func (c *Context) CheckOutput(name string) error {
	if ownStream(name) != 0 {
		return nil
	}
	// Found without caching: a command such as init makes its project
	// after this check.
	root, err := project.Find(c.Globals.Project, c.Getenv("NOVEL_PROJECT"), c.Cwd)
	if err != nil {
		return nil
	}
	// Both readings of a path with ".." after a link are checked: where
	// the system resolves it and where the cleaned path (what the write
	// uses) points.
	rel, managed := root.Managed(c.rawOutputPath(name))
	if !managed {
		if rel, managed = root.Managed(c.outputPath(name)); !managed {
			return nil
		}
	}
	return errs.Newf(errs.Path, "输出路径 %s 指向项目自己的文件 %s，不会覆盖它", "the output path %s is the project's own file %s; it is not overwritten", name, rel).
		With("file", name).With("managed", rel).
		Hint("把输出写到项目之外，或写到项目根目录、logs/ 下的新文件", "write the output outside the project, or to a new file at the project root or under logs/")
}

// ownStream is 1 or 2 when name is this process's stdout or stderr, else 0.
func ownStream(name string) int {
	switch filepath.Clean(name) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return 1
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return 2
	}
	return 0
}

// outputPath is name made absolute against the working directory.
func (c *Context) outputPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(c.Cwd, name)
}

// rawOutputPath is outputPath not cleaned: "link/../x" read as the system
// reads it, past the link.
func (c *Context) rawOutputPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return c.Cwd + string(filepath.Separator) + name
}

// WriteOutput writes data to the file a user named with -o or --out
// (relative to the working directory; SPEC §1) after CheckOutput.
// /dev/stdout and /dev/stderr (and their /dev/fd, /proc/self/fd forms)
// are this process's own streams, written like a shell's >&1: re-opening
// them by name would truncate or replace a file the caller redirected
// them to with >>.
func (c *Context) WriteOutput(name string, data []byte) error {
	var w io.Writer
	switch ownStream(name) {
	case 1:
		w = c.Out
	case 2:
		w = c.Err
	default:
		if err := c.CheckOutput(name); err != nil {
			return err
		}
		return jsonio.WriteOutput(c.outputPath(name), data)
	}
	if _, err := w.Write(data); err != nil {
		return errs.Newf(errs.IO, "写入 %s 失败：%v", "cannot write %s: %v", name, err).With("file", name)
	}
	return nil
}

func usageErr(err error) *errs.Error {
	if e := errs.As(err); e != nil {
		return e // a mapper's own refusal (numbers) already says what to do
	}
	return errs.Newf(errs.Usage, "用法错误：%v", "usage: %v", err).Hint("用 --help 查看用法", "see --help")
}

// UsageError builds an E_USAGE error for commands' own argument checks.
func UsageError(zh, en string) *errs.Error {
	return errs.New(errs.Usage, zh, en).Hint("用 --help 查看用法", "see --help")
}

func render(ctx *Context) ([]byte, error) {
	g := ctx.Globals
	switch {
	case g.Text && ctx.text != nil:
		s := ctx.text()
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return []byte(s), nil
	case g.JQ != "":
		return applyJQ(g.JQ, ctx.result)
	}
	data, err := jsonio.Marshal(ctx.result)
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法编码结果：%v", "cannot encode the result: %v", err)
	}
	return data, nil
}

// applyJQ runs expr over v; strings print raw, other values as compact JSON.
func applyJQ(expr string, v any) ([]byte, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, jqErr("--jq 表达式无效：%v", "invalid --jq expression: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, jqErr("--jq 表达式无效：%v", "invalid --jq expression: %v", expr, err)
	}
	raw, err := jsonio.Marshal(v)
	if err != nil {
		return nil, err
	}
	var input any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&input); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	iter := code.Run(input)
	for {
		x, ok := iter.Next()
		if !ok {
			break
		}
		if e, isErr := x.(error); isErr {
			if h, isHalt := e.(*gojq.HaltError); isHalt && h.Value() == nil {
				break
			}
			// The result is valid; the expression does not fit it.
			return nil, jqErr("--jq 执行失败：%v", "--jq failed: %v", expr, e)
		}
		if s, isStr := x.(string); isStr {
			out.WriteString(s)
		} else {
			b, err := gojq.Marshal(x)
			if err != nil {
				return nil, err
			}
			out.Write(b)
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

func jqErr(zh, en, expr string, err error) *errs.Error {
	return errs.Newf(errs.Usage, zh, en, err).With("expr", expr).
		Hint("检查 --jq 表达式（gojq 语法），去掉 --jq 可看到完整结果", "check the --jq expression (gojq syntax); drop --jq to see the whole result")
}

// report prints err as the one-line JSON error and returns its exit code.
func report(ctx *Context, err error) int {
	e := errs.Coerce(err)
	lang := "zh"
	if ctx.lang != "" {
		lang = ctx.lang
	} else if ctx.root != nil {
		lang = settings.LoadLanguage(ctx.root)
	} else if r, rerr := project.Find(ctx.Globals.Project, ctx.Getenv("NOVEL_PROJECT"), ctx.Cwd); rerr == nil {
		lang = settings.LoadLanguage(r)
	}
	WriteError(ctx.Err, e, lang)
	if e.Exit == 0 {
		return errs.ExitFailed
	}
	return e.Exit
}

// WriteError prints the error envelope line.
func WriteError(w io.Writer, e *errs.Error, lang string) {
	line, err := jsonio.MarshalLine(e.Envelope(lang))
	if err != nil {
		line = []byte(fmt.Sprintf("{\"error\":{\"code\":%q,\"message\":%q,\"hint\":\"\",\"details\":{}}}\n", e.Code, e.Message(lang)))
	}
	w.Write(line)
}
