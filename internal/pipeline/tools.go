// Package pipeline holds the per-step mechanics pipeline.mk runs through
// `novel-agent pipeline …` (SPEC §10): packet → pre-stage copy → executor
// → stdout output → validate (restore on failure) → advance, with one
// retry, run-log lines, stamps, BLOCKED.json and progress lines. It drives
// the other binaries as subprocesses, exactly as a shell recipe would, so
// the lock token, NOVEL_NOW and every tool's own checks apply unchanged.
package pipeline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"

	"github.com/novelsuite/novel/internal/clock"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// Env is what the helpers run with.
type Env struct {
	Root   *project.Root
	Getenv func(string) string
	Stderr io.Writer
	Clock  clock.Clock
	// Budget, when set, makes Next refuse to start a chapter the run
	// cannot afford (E_BUDGET, SPEC §18).
	Budget *Budget
}

// toolResult is one finished subprocess.
type toolResult struct {
	Stdout []byte
	Exit   int
	Err    *errs.Error // parsed from the last stderr line when Exit != 0
}

// tool runs one of the suite's binaries against the project. Its stderr
// is forwarded except for a final error line, which becomes Err so the
// caller can return it as its own (the last stderr line stays the error
// JSON, SPEC §10).
func (e *Env) tool(name string, args ...string) (*toolResult, error) {
	return e.runTool(e.Stderr, name, args...)
}

// toolQuiet is tool for a probe whose stderr (warnings, the refusal's
// JSON) is not for the user: only Err keeps the final error line.
func (e *Env) toolQuiet(name string, args ...string) (*toolResult, error) {
	return e.runTool(io.Discard, name, args...)
}

func (e *Env) runTool(w io.Writer, name string, args ...string) (*toolResult, error) {
	cmd := exec.Command(name, append(args, "--project", e.Root.Dir)...)
	cmd.Dir = e.Root.Dir
	cmd.Env = os.Environ()
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := &toolResult{Stdout: out.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
		w.Write(stderr.Bytes())
		return res, nil
	case errors.As(err, &ee):
		res.Exit = ee.ExitCode()
		if res.Exit < 0 {
			res.Exit = 128 + 9
		}
	default:
		return nil, errs.Newf(errs.IO, "无法运行 %s：%v", "cannot run %s: %v", name, err).With("command", name).
			Hint("确认 novel-* 程序都在 PATH 上（make build 后把 ./bin 加入 PATH）", "make sure the novel-* binaries are on PATH (make build, then add ./bin to PATH)")
	}
	body, last := splitLastLine(stderr.Bytes())
	if pe := errs.ParseLine(last); pe != nil {
		w.Write(body)
		pe.Exit = res.Exit
		res.Err = pe
		return res, nil
	}
	w.Write(stderr.Bytes())
	res.Err = errs.Newf(errs.IO, "%s 失败（退出码 %d）", "%s failed (exit status %d)", name, res.Exit).
		With("command", append([]string{name}, args...)).WithExit(res.Exit)
	return res, nil
}

// must runs a tool and turns a failure into the tool's own error.
func (e *Env) must(name string, args ...string) ([]byte, error) {
	res, err := e.tool(name, args...)
	if err != nil {
		return nil, err
	}
	if res.Exit != 0 {
		return nil, res.Err
	}
	return res.Stdout, nil
}

func splitLastLine(b []byte) (body, last []byte) {
	t := bytes.TrimRight(b, "\n")
	i := bytes.LastIndexByte(t, '\n')
	if i < 0 {
		return nil, t
	}
	return b[:i+1], t[i+1:]
}

// writePacket runs `novel-manifest packet ARGS… --write-manifest` and returns
// the packet as the executor reads it and the file it was written to
// (fallback when the tool names none).
func (e *Env) writePacket(fallback string, args ...string) (*packetInfo, string, error) {
	raw, err := e.must("novel-manifest", append(append([]string{"packet"}, args...), "--write-manifest")...)
	if err != nil {
		return nil, "", err
	}
	var pk packetInfo
	if err := jsonio.Decode(raw, "novel-manifest packet", &pk); err != nil {
		return nil, "", err
	}
	path := pk.WrittenManifestPath
	if path == "" {
		path = fallback
	}
	return &pk, path, nil
}
