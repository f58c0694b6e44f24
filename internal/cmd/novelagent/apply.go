package novelagent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/pipeline"
	"github.com/novelsuite/novel/internal/stepid"
)

// applyCmd is the one answer contract of the manual route, the command
// backend and MCP (SPEC §27): an answer in the role prompt's own format
// becomes the packet's outputs, or an error whose details.reask is the
// exact message a live backend would send back.
type applyCmd struct {
	Packet string `arg:"" help:"Instruction packet, e.g. staging/manifests/chapter-001-draft.packet.json." placeholder:"PACKET_PATH"`
	Answer string `arg:"" optional:"" default:"-" help:"The answer, exactly as the role prompt asks for it (Markdown for writer and refiner, one JSON object for the rest); - or nothing reads standard input." placeholder:"FILE"`
	Model  string `help:"The model that wrote the answer, recorded in the chapter's run log like a pipeline attempt (the report and the judges' record show it)." placeholder:"NAME"`
}

func (c *applyCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	p, err := loadPacket(ctx, c.Packet)
	if err != nil {
		return err
	}
	answer, source, err := c.read(ctx)
	if err != nil {
		return err
	}
	clk, err := ctx.Clock()
	if err != nil {
		return err
	}
	s, err := ctx.Settings()
	if err != nil {
		return err
	}
	// apply writes the project like any writer: under the held (or leased)
	// lock named by NOVEL_LOCK_TOKEN, else briefly under its own.
	release, err := lock.Guard(root, ctx.Getenv, p.Chapter, s.LockStaleMinutes)
	defer release()
	if err != nil {
		return err
	}
	out, err := agent.Apply(root, p, answer, source, c.Model, clk.Stamp(), errorLints(ctx.Getenv))
	if err != nil {
		e := errs.Coerce(err)
		if e.Code != errs.IO && e.Code != errs.Path {
			e.With("reask", agent.Reask(err))
		}
		return e
	}
	res := applied{Outcome: out}
	if (out.Agent == stepid.ChapterWriter || out.Agent == stepid.StyleRefiner) && p.Chapter > 0 {
		// The text passed the error lints; its warnings (the ones shown
		// after a commit and fed to polish) are the writer's to see now,
		// while the draft can still change (dogfood).
		for _, c := range pipeline.LintWarnings(root, s, p.Chapter) {
			res.LintWarnings = append(res.LintWarnings, lintWarning{Check: c.ID, Count: c.Count, Detail: c.Detail})
		}
	}
	ctx.Result(res, func() string {
		line := fmt.Sprintf("%s %s.%s r%d → %s", out.Step, out.Agent, out.Mode, out.Round, strings.Join(out.Written, ", "))
		for _, n := range out.Notes {
			line += "\n  " + n
		}
		for _, w := range res.LintWarnings {
			line += "\n  ⚠ " + w.Check + ": " + w.Detail
		}
		return line
	})
	return nil
}

// applied is apply's result: the outcome, and for a chapter text the lint
// warnings it carries (none is an empty field, not an empty list).
type applied struct {
	*agent.Outcome
	LintWarnings []lintWarning `json:"lint_warnings,omitempty"`
}

type lintWarning struct {
	Check  string `json:"check"`
	Count  int    `json:"count"`
	Detail string `json:"detail"`
}

// read returns the answer and the name errors give it.
func (c *applyCmd) read(ctx *cli.Context) ([]byte, string, error) {
	if c.Answer == "-" {
		data, err := io.ReadAll(io.LimitReader(ctx.In, jsonio.MaxFileSize+1))
		if err != nil {
			return nil, "", errs.ReadFailed("stdin", err)
		}
		if len(data) > jsonio.MaxFileSize {
			return nil, "", errs.Newf(errs.IO, "标准输入的答案超过 32 MiB", "the answer on standard input is over 32 MiB")
		}
		return data, "stdin", nil
	}
	abs := c.Answer
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ctx.Cwd, abs)
	}
	if fi, err := os.Stat(abs); err == nil && fi.Size() > jsonio.MaxFileSize {
		return nil, "", errs.Newf(errs.IO, "%s 超过 32 MiB", "%s is over 32 MiB", c.Answer).With("file", c.Answer)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, "", errs.Newf(errs.MissingFile, "答案文件 %s 不存在", "the answer file %s does not exist", c.Answer).With("file", c.Answer).
				Hint("把模型的答案写到该文件，或用 - 从标准输入读取", "write the model's answer to that file, or pass - to read standard input")
		}
		return nil, "", errs.ReadFailed(c.Answer, err)
	}
	return data, c.Answer, nil
}
