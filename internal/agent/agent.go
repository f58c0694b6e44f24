package agent

import (
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// Tokens is a backend's token usage.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Reply is a backend's raw answer to a packet.
type Reply struct {
	Text   []byte
	Source string // where the answer came from, for error messages
	Model  string
	Tokens Tokens
	// Live marks an answer from a live model (openai, command): it gets
	// answer hygiene, packet-known fields and in-executor validation.
	// Recordings are parsed as they are.
	Live bool
}

// PerRequest is a backend that records one usage line per request it
// makes (failed ones included) instead of one per valid answer.
type PerRequest interface {
	SetRecorder(func(any) error)
}

// Backend produces an agent's answer for a packet. feedback is nil on the
// first ask and the previous answer's parse/validation error on a re-ask.
type Backend interface {
	Name() string
	// Reasks is how many times a failing answer may be asked again.
	Reasks() int
	Ask(p *Packet, feedback error) (*Reply, error)
}

// Outcome is what Execute did.
type Outcome struct {
	Step    string   `json:"step"`
	Chapter int      `json:"chapter"`
	Agent   string   `json:"agent"`
	Mode    string   `json:"mode"`
	Round   int      `json:"round"`
	Backend string   `json:"backend"`
	Model   string   `json:"model"`
	Tokens  Tokens   `json:"tokens"`
	Source  string   `json:"source"`
	Written []string `json:"written"`
	// Notes are what a stored continuity review found (novel-agent apply
	// of audit:NNN): the counts, then the findings, high first.
	Notes []string `json:"notes,omitempty"`
	// Stdout is the JSON the packet wants printed (not part of the summary).
	Stdout []byte `json:"-"`
}

// Execute asks the backend, parses and validates the answer (re-asking as
// the backend allows), then writes every file output. Nothing is written
// unless the whole answer is valid.
func Execute(root *project.Root, p *Packet, b Backend) (*Outcome, error) {
	return ExecuteRecording(root, p, b, nil, nil)
}

// ExecuteRecording is Execute that hands the answer's usage to record
// once the answer is valid and before any output is written: a kill in
// between leaves a usage record without outputs (the attempt is redone
// from scratch), never outputs without their usage (kept as they are, so
// the run log would lose the model and tokens). check lints a chapter
// answer (nil: none).
func ExecuteRecording(root *project.Root, p *Packet, b Backend, record func(any) error, check ChapterCheck) (*Outcome, error) {
	perRequest, isPer := b.(PerRequest)
	if isPer && record != nil {
		perRequest.SetRecorder(record)
	}
	var (
		reply *Reply
		res   *Result
		err   error
	)
	var feedback error
	var total Tokens
	for attempt := 0; attempt <= b.Reasks(); attempt++ {
		reply, err = b.Ask(p, feedback)
		if err != nil {
			return nil, err
		}
		total.Prompt += reply.Tokens.Prompt
		total.Completion += reply.Tokens.Completion
		switch {
		case p.IsFix():
			// Replacements applied by code to the previous draft; the
			// result is linted like any chapter a live writer returns.
			res, err = parseFix(root, p, reply.Text, reply.Source)
			if err == nil && check != nil {
				if lerr := check(root, p, res.Files[0].Data); lerr != nil {
					res, err = nil, invalid(p, reply.Source, lerr)
				}
			}
		case reply.Live:
			res, err = parseLive(root, p, reply.Text, reply.Source, check)
		default:
			res, err = ParseAnswer(p, reply.Text, reply.Source)
		}
		if err == nil {
			break
		}
		feedback = err
	}
	if err != nil {
		return nil, err
	}
	for _, f := range res.Files {
		if err := CheckOutputPath(f.Path); err != nil {
			return nil, err
		}
		if _, err := root.Abs(f.Path); err != nil {
			return nil, err
		}
	}
	if record != nil && !isPer {
		if err := record(Usage{Model: reply.Model, Tokens: reply.Tokens}); err != nil {
			return nil, err
		}
	}
	for _, f := range res.Files {
		if err := root.WriteFile(f.Path, f.Data); err != nil {
			return nil, err
		}
	}
	written := res.Paths()
	return &Outcome{Step: p.Step, Chapter: p.Chapter, Agent: p.Agent.Name, Mode: p.Agent.Mode, Round: p.RevisionRound,
		Backend: b.Name(), Model: reply.Model, Tokens: total, Source: reply.Source, Written: written, Stdout: res.Stdout}, nil
}

// Usage is the record an executor appends to $NOVEL_RUN_LOG (SPEC §10).
type Usage struct {
	Model  string `json:"model"`
	Tokens Tokens `json:"tokens"`
}

// AppendUsage appends one usage line to the file named by NOVEL_RUN_LOG
// (relative names are taken from cwd). An empty name does nothing.
func AppendUsage(name, cwd string, u any) error {
	if name == "" {
		return nil
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(cwd, name)
	}
	line, err := jsonio.MarshalLine(u)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return runLogErr(name, err)
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return runLogErr(name, err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return runLogErr(name, err)
	}
	return f.Close()
}

func runLogErr(name string, err error) error {
	return errs.Newf(errs.IO, "无法追加运行日志 %s：%v", "cannot append to the run log %s: %v", name, err).
		With("file", name).Hint("检查 NOVEL_RUN_LOG 指向的路径", "check the path NOVEL_RUN_LOG names").Wrap(err)
}
