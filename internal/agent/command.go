package agent

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

// Command pipes the rendered prompt to a command's stdin (Claude Code
// `claude -p`, Codex, `llm`, …) and parses its stdout like a model answer.
type Command struct {
	Cmd     string // run with sh -c, cwd = project root, in its own process group
	Root    *project.Root
	Timeout time.Duration // 0: settings.DefaultCommandTimeoutS
	Env     []string

	previous string
	record   func(any) error
}

// SetRecorder implements PerRequest: a command reports no usage, so each
// run is one line with null counts.
func (c *Command) SetRecorder(rec func(any) error) { c.record = rec }

func (c *Command) recordRun(kind, outcome string) error {
	if c.record != nil {
		return c.record(RequestUsage{Model: "command", Request: kind, Outcome: outcome})
	}
	return nil
}

// Name implements Backend.
func (c *Command) Name() string { return "command" }

// Reasks implements Backend.
func (c *Command) Reasks() int { return 1 }

// Ask implements Backend.
func (c *Command) Ask(p *Packet, feedback error) (*Reply, error) {
	msgs, err := RenderPrompt(c.Root, p, feedback, c.previous)
	if err != nil {
		return nil, err
	}
	var prompt strings.Builder
	for i, m := range msgs {
		if i > 0 {
			prompt.WriteString("\n\n")
		}
		switch m.Role {
		case "system":
			prompt.WriteString("# 系统说明\n\n")
		case "assistant":
			prompt.WriteString("# 你上一次的输出\n\n")
		}
		prompt.WriteString(m.Content)
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = settings.DefaultCommandTimeoutS * time.Second
	}
	var stdout, stderr bytes.Buffer
	cause, err := runGroup("sh", []string{"-c", c.Cmd}, timeout, func(cmd *exec.Cmd) {
		cmd.Dir = c.Root.Dir
		cmd.Env = c.Env
		cmd.Stdin = strings.NewReader(prompt.String())
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
	})
	kind, outcome := "ask", "ok"
	if feedback != nil {
		kind = "reask"
	}
	if err != nil || cause != nil {
		outcome = errs.Agent
	}
	if rerr := c.recordRun(kind, outcome); rerr != nil {
		return nil, rerr
	}
	var sig interrupted
	switch {
	case errors.Is(cause, errTimedOut):
		return nil, errs.Newf(errs.Agent, "命令 %q 超时（%s）", "command %q timed out (%s)", c.Cmd, timeout).
			With("cmd", c.Cmd).With("timeout_s", int(timeout/time.Second)).
			Hint("命令及其子进程已被结束；检查该命令能否单独运行，或调大 NOVEL_AGENT_TIMEOUT（秒）",
				"the command and its children were killed; check that it runs on its own, or raise NOVEL_AGENT_TIMEOUT (seconds)")
	case errors.As(cause, &sig):
		return nil, errs.Newf(errs.Agent, "命令 %q 被中断（%s）", "command %q was interrupted (%s)", c.Cmd, signalName(sig.sig)).
			With("cmd", c.Cmd).With("signal", signalName(sig.sig)).
			Hint("命令及其子进程已被结束；重新运行即可继续", "the command and its children were killed; run again to continue")
	}
	if err != nil {
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		e := errs.Newf(errs.Agent, "命令 %q 失败：%v", "command %q failed: %v", c.Cmd, err).
			With("cmd", c.Cmd).With("stderr", tail).
			Hint("检查该命令能否在项目目录中单独运行", "check that the command runs on its own in the project directory")
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == ExitTransient {
			// The command says its failure is transient: so do we, and the
			// pipeline waits it out (SPEC §18).
			e.WithExit(ExitTransient).With("transient", true)
		}
		return nil, e
	}
	c.previous = stdout.String()
	return &Reply{Text: stdout.Bytes(), Source: "command " + c.Cmd, Model: "command", Live: true}, nil
}
