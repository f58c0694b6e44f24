// Package novelagent is the command surface of novel-agent: the executor
// backends (SPEC §11) and the pipeline's per-step helpers (SPEC §10).
package novelagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

type grammar struct {
	cli.Globals `embed:""`
	Run         runCmd       `cmd:"" default:"withargs" help:"Run an executor on an instruction packet (the default command): novel-agent [--backend replay] --fixtures DIR PACKET."`
	Pipeline    pipelineCmd  `cmd:"" help:"Per-step mechanics used by pipeline.mk."`
	Prompt      promptCmd    `cmd:"" help:"Print the messages a live backend would send for PACKET (role prompt with its output format, then the context): for running an agent by hand."`
	Prompts     promptsCmd   `cmd:"" help:"The built-in role prompts: --dump DIR writes them (copy one to the project's prompts/{role}.md to replace it)."`
	Apply       applyCmd     `cmd:"" help:"Write a packet's outputs from an answer in the role prompt's own format (FILE or stdin), with the same hygiene, validation and lints as a live backend; on failure details.reask is the message to act on."`
	Calibrate   calibrateCmd `cmd:"" help:"Run the configured judge on a calibration set (built in: 8 clean/flawed chapter pairs of the demo novel) and say whether it is usable, weak or unusable as this project's judge (SPEC §24)."`
	Doctor      doctorCmd    `cmd:"" help:"Check the project, the tools and the model configuration (one tiny request per model; --offline skips the network): a report with a fix for every failing check; exit 0 when usable, 1 otherwise (SPEC §26)."`
}

type promptsCmd struct {
	Dump string `required:"" help:"Directory (must exist) to write the built-in prompts into, one {role}.md each." placeholder:"DIR"`
}

func (c *promptsCmd) Run(ctx *cli.Context) error {
	dir := c.Dump
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ctx.Cwd, dir)
	}
	written, err := agent.DumpPrompts(dir)
	if err != nil {
		return err
	}
	ctx.Result(map[string]any{"written": written}, func() string { return strings.Join(written, "\n") })
	return nil
}

type runCmd struct {
	Backend  string `enum:"replay,openai,command" default:"replay" help:"Executor backend: replay (recorded outputs), openai, command."`
	Fixtures string `help:"Replay recordings directory (default: $$NOVEL_REPLAY_DIR)." placeholder:"DIR"`
	DryRun   bool   `name:"dry-run" help:"Print {messages, request, estimated_tokens}, exactly what the openai backend would send (settings.json llm and NOVEL_LLM_*), and call nothing; needs no base URL or API key."`
	Cmd      string `help:"command backend: the command the prompt is piped to, run with sh -c in the project root (e.g. \"claude -p\"; default: $$NOVEL_AGENT_CMD)." placeholder:"CMD"`
	Packet   string `arg:"" help:"Instruction packet (SPEC §6), e.g. staging/manifests/chapter-001-draft.packet.json." placeholder:"PACKET_PATH"`
}

func (r *runCmd) Run(ctx *cli.Context) error {
	if r.DryRun {
		return r.dryRun(ctx)
	}
	backend, err := r.backend(ctx)
	if err != nil {
		return err
	}
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	p, err := r.packet(ctx)
	if err != nil {
		return err
	}
	out, err := agent.ExecuteRecording(root, p, backend, func(u any) error {
		return agent.AppendUsage(ctx.Getenv("NOVEL_RUN_LOG"), ctx.Cwd, u)
	}, errorLints(ctx.Getenv))
	if err != nil {
		return err
	}
	if out.Stdout != nil {
		// A read-only agent's report is the document on stdout (SPEC §10).
		ctx.Result(json.RawMessage(out.Stdout), nil)
		return nil
	}
	ctx.Result(out, func() string {
		return fmt.Sprintf("%s %s.%s r%d → %s", out.Step, out.Agent, out.Mode, out.Round, strings.Join(out.Written, ", "))
	})
	return nil
}

// errorLints runs SPEC §20's error-severity lints on a live backend's
// chapter answer before it is written, so the one re-ask quotes the
// exact E_LINT problem (SPEC §18) instead of the pipeline's validation
// failing after the executor exited.
func errorLints(getenv func(string) string) func(*project.Root, *agent.Packet, []byte) error {
	return func(root *project.Root, p *agent.Packet, chapter []byte) error {
		st, err := stepid.Parse(p.Step)
		if err != nil {
			return err
		}
		s, err := settings.Load(root, getenv)
		if err != nil {
			return err
		}
		r, err := products.LintText(root, s, p.Chapter, st.Stage, string(chapter))
		if err != nil {
			return err
		}
		refusal := errs.As(r.Refusal(p.Step))
		if refusal == nil {
			return nil
		}
		// The model gets what to change and where, not only the check ids.
		fix := func(lang string) string {
			var parts []string
			for _, f := range r.Fixes(lang) {
				parts = append(parts, f[1])
			}
			return strings.Join(parts, "；")
		}
		refusal.Zh += "。修改要求：" + fix("zh")
		refusal.En += ". To fix: " + fix("en")
		return refusal
	}
}

func (r *runCmd) packet(ctx *cli.Context) (*agent.Packet, error) { return loadPacket(ctx, r.Packet) }

// loadPacket reads the packet named on the command line (relative to the
// working directory: the user's explicit path).
func loadPacket(ctx *cli.Context, name string) (*agent.Packet, error) {
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ctx.Cwd, abs)
	}
	return agent.LoadPacket(abs, name)
}

// dryRun prints the openai backend's first request for the packet.
func (r *runCmd) dryRun(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	p, err := r.packet(ctx)
	if err != nil {
		return err
	}
	o, err := agent.OpenAIConfig(root, ctx.Getenv)
	if err != nil {
		return err
	}
	plan, err := o.Plan(p)
	if err != nil {
		return err
	}
	ctx.Result(plan, nil)
	return nil
}

func (r *runCmd) backend(ctx *cli.Context) (agent.Backend, error) {
	if r.Backend == "replay" {
		return newBackend(ctx, r.Backend, r.Fixtures, r.Cmd, nil, nil)
	}
	root, err := ctx.Root()
	if err != nil {
		return nil, err
	}
	return newBackend(ctx, r.Backend, r.Fixtures, r.Cmd, root, root)
}

// newBackend makes the executor named by kind. A live one takes its model
// configuration from author (settings.json llm, NOVEL_LLM_*) and reads
// the packet's files and prompt overrides in work: the same project for a
// run, a scratch copy for calibrate.
func newBackend(ctx *cli.Context, kind, fixtures, cmd string, author, work *project.Root) (agent.Backend, error) {
	switch kind {
	case "replay":
		dir := fixtures
		if dir == "" {
			dir = ctx.Getenv("NOVEL_REPLAY_DIR")
		}
		if dir == "" {
			return nil, cli.UsageError("replay 后端需要 --fixtures DIR 或环境变量 NOVEL_REPLAY_DIR",
				"the replay backend needs --fixtures DIR or NOVEL_REPLAY_DIR")
		}
		return agent.Replay{Dir: dir}, nil
	case "openai":
		o, err := agent.NewOpenAI(author, ctx.Getenv)
		if err != nil {
			return nil, err
		}
		o.Root = work
		o.Warn = func(zh, en string) { fmt.Fprintln(ctx.Err, "warning: "+zh+" / "+en) }
		return o, nil
	}
	if cmd == "" {
		cmd = ctx.Getenv("NOVEL_AGENT_CMD")
	}
	if cmd == "" {
		return nil, cli.UsageError("command 后端需要 --cmd \"命令\" 或环境变量 NOVEL_AGENT_CMD", "the command backend needs --cmd \"COMMAND\" or NOVEL_AGENT_CMD")
	}
	timeoutS, err := settings.CommandTimeoutS(ctx.Getenv)
	if err != nil {
		return nil, err
	}
	return &agent.Command{Cmd: cmd, Root: work, Env: os.Environ(), Timeout: time.Duration(timeoutS) * time.Second}, nil
}

// Main runs novel-agent.
func Main() int {
	return cli.Main("novel-agent", "Executor backends for instruction packets (replay, openai-compatible APIs, any command), and the pipeline's step helpers.", &grammar{})
}
