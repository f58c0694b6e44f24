// Package novel is the front door: `novel next|advance|validate|status`
// run novel-step (next and status as the agent route: --executor agent), `novel instructions STEP` runs novel-manifest packet,
// `novel doctor` runs novel-agent doctor,
// and `novel X …` runs novel-X (next to this binary or on PATH). It execs
// the target, so no extra process stands between the caller and the tool
// (the lock records the caller's pid).
package novel

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/settings"
)

// stepAliases are the novel-step commands reachable directly.
var stepAliases = map[string]bool{"next": true, "advance": true, "validate": true, "status": true}

// tools lists the suite's binaries with a one-line description, for --help.
var tools = [][2]string{
	{"novel-step", "next / advance / validate / status / abandon / redraft / fail / retry / volume: the checkpoint and the next step"},
	{"novel-lock", "acquire / release / heartbeat / status / break / run: the project lock"},
	{"novel-outline", "extract a chapter's outline block, key lines and the volume range"},
	{"novel-manifest", "packet STEP: the instruction packet for an agent or deterministic step"},
	{"novel-gate", "decide / check / resolve / pending: quality gate and pending-revision hard gate"},
	{"novel-commit", "commit a chapter, setup steps, volume plans; rebuild and rollback the state"},
	{"novel-foreshadow", "query / list / stats: foreshadowing"},
	{"novel-agent", "run an executor backend (replay, openai, command) on a packet"},
	{"novel-report", "render the project's health report (html, md, json)"},
	{"novel-init", "create a new novel project (QUICK_START) with a brief to fill in"},
	{"novel-import", "import an existing manuscript (UTF-8 or GB18030/GBK) as chapter files"},
	{"novel-migrate", "check a plugin or TypeScript-CLI project and apply what the suite needs (--dry-run lists it)"},
	{"novel-export", "export the committed chapters as a book (txt, md, epub)"},
	{"novel-audit", "continuity: sliding-window consistency audit of the committed chapters"},
	{"novel-lint", "lint a chapter: platform word counts, heading, model artefacts, leaks, style (§20)"},
	{"novel-mcp", "serve the project as MCP tools over stdio, for chat clients that bring their own model (§27)"},
}

// Main runs the front door with the process's arguments.
func Main() int { return run(os.Args[0], os.Args[1:], cli.StdIO(), syscall.Exec) }

type execFunc func(path string, argv []string, env []string) error

func run(self string, args []string, stdio cli.IO, execve execFunc) int {
	globals, rest := splitGlobals(args)
	if len(rest) == 0 {
		// A failure keeps stdout empty (SPEC §1): the usage goes to stderr.
		help(stdio.Err)
		return fail(stdio.Err, cli.UsageError("缺少子命令", "missing subcommand"))
	}
	if rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help" {
		help(stdio.Out)
		return 0
	}
	sub, subArgs := rest[0], rest[1:]
	var tool string
	var argv []string
	switch {
	case stepAliases[sub]:
		tool, argv = "novel-step", append([]string{sub}, subArgs...)
		if (sub == "next" || sub == "status") && !hasFlag(subArgs, "--executor") {
			// The front door is the agent route: whoever asks it for the
			// next step is the model (SPEC §25, §27).
			argv = append(argv, "--executor", settings.ExecutorAgent)
		}
	case sub == "instructions":
		tool, argv = "novel-manifest", append([]string{"packet"}, subArgs...)
	case sub == "doctor":
		tool, argv = "novel-agent", append([]string{"doctor"}, subArgs...)
	case strings.HasPrefix(sub, "-") || strings.ContainsAny(sub, "/\\"):
		return fail(stdio.Err, cli.UsageError(fmt.Sprintf("未知参数 %q", sub), fmt.Sprintf("unknown argument %q", sub)))
	default:
		tool, argv = "novel-"+sub, subArgs
	}
	path := cli.Locate(self, tool)
	if path == "" {
		return fail(stdio.Err, errs.Newf(errs.Usage, "未知命令 %q：找不到 %s", "unknown command %q: %s not found", sub, tool).
			With("command", sub).Hint("用 novel --help 查看可用命令，或把 novel-* 所在目录加入 PATH", "see novel --help, or put the novel-* binaries on PATH"))
	}
	full := append([]string{path}, withGlobals(argv, globals)...)
	if err := execve(path, full, os.Environ()); err != nil {
		return fail(stdio.Err, errs.Newf(errs.IO, "无法执行 %s：%v", "cannot run %s: %v", path, err))
	}
	return 0
}

// hasFlag reports whether args give the flag name (--name V or --name=V).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// splitGlobals moves global flags given before the subcommand
// (`novel --project p next`) behind it.
func splitGlobals(args []string) (globals, rest []string) {
	takesValue := map[string]bool{"--project": true, "--jq": true, "-o": true, "--output": true}
	i := 0
	for i < len(args) {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "--help" || a == "-h" || a == "--" {
			break
		}
		name := a
		if j := strings.IndexByte(a, '='); j >= 0 {
			name = a[:j]
		}
		switch {
		case takesValue[name] && name == a && i+1 < len(args):
			globals = append(globals, a, args[i+1])
			i += 2
		case takesValue[name] || name == "--json" || name == "--text":
			globals = append(globals, a)
			i++
		default:
			return globals, args[i:]
		}
	}
	return globals, args[i:]
}

// withGlobals puts the moved global flags behind the subcommand's own
// arguments but before a `--`, whose remainder is a command line of its
// own (`novel lock run -- CMD…`) and must reach CMD untouched.
func withGlobals(argv, globals []string) []string {
	out := make([]string, 0, len(argv)+len(globals))
	for i, a := range argv {
		if a == "--" {
			out = append(out, argv[:i]...)
			out = append(out, globals...)
			return append(out, argv[i:]...)
		}
	}
	out = append(out, argv...)
	return append(out, globals...)
}

func help(w io.Writer) {
	fmt.Fprintln(w, "Usage: novel [--project DIR] [--json|--text] [--jq EXPR] [-o FILE] <command> [args…]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The deterministic backbone of an LLM novel-writing pipeline.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Shortcuts:")
	fmt.Fprintln(w, "  novel next|advance|validate|status …   runs novel-step next|advance|validate|status …")
	fmt.Fprintln(w, "  novel instructions STEP …              runs novel-manifest packet STEP …")
	fmt.Fprintln(w, "  novel doctor [--offline] …             runs novel-agent doctor …")
	fmt.Fprintln(w, "  novel X …                              runs novel-X … (next to novel, or on PATH)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, t := range tools {
		fmt.Fprintf(w, "  %-18s %s\n", strings.TrimPrefix(t[0], "novel-"), t[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, errs.ExitHelp)
	fmt.Fprintln(w, "Error codes: "+strings.Join(errs.Codes, " ")+".")
}

func fail(w io.Writer, e *errs.Error) int {
	cli.WriteError(w, e, "zh")
	return e.Exit
}
