// Package mcpserver is novel-mcp (SPEC §27): the suite as MCP tools over
// stdio, for chat clients that bring their own model (Claude Desktop,
// Cherry Studio, Cursor). It is an adapter, not a second implementation:
// every tool runs the suite's own binaries in the project fixed at start,
// returns their JSON document, and returns their error envelope as the
// tool error — so a chapter written through MCP goes through exactly the
// checks the pipeline's does. The first writing call takes a leased lock
// (agents' calls are not one process), and every later one renews it.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/settings"
)

// version is reported to clients in the initialize handshake.
const version = "1"

// lease is the lock lease the server takes and renews (SPEC §27's default).
const lease = 30 * time.Minute

// Server holds the project and the lease of one MCP session.
type Server struct {
	project string   // absolute project root
	self    string   // argv[0], to find the suite's binaries beside this one
	env     []string // the environment tools run with (no NOVEL_PROJECT/NOVEL_LOCK_TOKEN of the caller)

	mu    sync.Mutex
	token string // the lease's token once a writing call took it
}

// New makes a server for the project at root (absolute). env is the
// environment the suite's tools inherit.
func New(root, self string, env []string) *Server {
	var clean []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "NOVEL_PROJECT" || k == lock.TokenEnv {
			continue
		}
		clean = append(clean, kv)
	}
	return &Server{project: root, self: self, env: clean}
}

// Run serves MCP on t until the client goes away, then releases the lease.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "novel-mcp", Version: version}, nil)
	s.register(srv)
	err := srv.Run(ctx, t)
	s.release()
	return err
}

// Tool inputs. The jsonschema tags are what a client's model reads.
type (
	noInput   struct{}
	stepInput struct {
		Step string `json:"step" jsonschema:"the step id novel_next returned, e.g. chapter:001:draft or setup:world"`
		Role string `json:"role,omitempty" jsonschema:"judge steps of a key chapter: primary (default) or secondary"`
	}
	applyInput struct {
		Packet string `json:"packet" jsonschema:"the packet path novel_instructions returned"`
		Answer string `json:"answer" jsonschema:"your whole answer, exactly in the format the system prompt asks for"`
		Model  string `json:"model,omitempty" jsonschema:"your model's name, recorded with a judge's scores"`
	}
	chapterInput struct {
		Chapter int `json:"chapter" jsonschema:"the chapter number"`
	}
	commitInput struct {
		Chapter int    `json:"chapter,omitempty" jsonschema:"commit this chapter (after its gate passed)"`
		Setup   string `json:"setup,omitempty" jsonschema:"commit this setup step instead: world, characters, book or style"`
		Volume  int    `json:"volume,omitempty" jsonschema:"commit this volume's staged plan instead"`
	}
	lintInput struct {
		Chapter int    `json:"chapter" jsonschema:"the chapter number"`
		Stage   string `json:"stage,omitempty" jsonschema:"draft, refine, polish or committed (default: the chapter's current text)"`
	}
)

func (s *Server) register(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_next", Description: "The next step of the novel (novel next): its step id, reason and chapter. Start every turn here."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
			return s.call(ctx, false, nil, "novel-step", "next", "--executor", settings.ExecutorMCP)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_status", Description: "The project's checkpoint, lock, next step, pending revisions and last error (novel status)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
			return s.call(ctx, false, nil, "novel-step", "status", "--executor", settings.ExecutorMCP)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_instructions", Description: "Write the step's instruction packet and return what you must do: the role's system prompt (with the exact answer format) and the user message with all the material. Answer it with novel_apply."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in stepInput) (*mcp.CallToolResult, any, error) {
			return s.instructions(ctx, in)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_apply", Description: "Hand in your answer to a packet: it is checked exactly like a model's answer and written as the step's outputs, and a chapter step is advanced. On failure nothing is written and details.reask says what to fix."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in applyInput) (*mcp.CallToolResult, any, error) {
			return s.apply(ctx, in)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_gate", Description: "Run the quality gate on a judged chapter (novel-gate decide --apply): pass, polish, revise or a pause for the author."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in chapterInput) (*mcp.CallToolResult, any, error) {
			return s.call(ctx, true, nil, "novel-gate", "decide", "--chapter", strconv.Itoa(in.Chapter), "--apply")
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_commit", Description: "Commit a passed chapter (or a setup step, or a volume's staged plan) into the project."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in commitInput) (*mcp.CallToolResult, any, error) {
			switch {
			case in.Setup != "":
				return s.call(ctx, true, nil, "novel-commit", "setup", "--step", in.Setup)
			case in.Volume > 0:
				return s.call(ctx, true, nil, "novel-commit", "volume", "--volume", strconv.Itoa(in.Volume))
			}
			return s.call(ctx, true, nil, "novel-commit", "--chapter", strconv.Itoa(in.Chapter))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_lint", Description: "Lint a chapter's text: the platform's word counts, heading, model artefacts, AI-prose patterns (a report; it changes nothing)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in lintInput) (*mcp.CallToolResult, any, error) {
			args := []string{"--chapter", strconv.Itoa(in.Chapter)}
			if in.Stage != "" {
				args = append(args, "--stage", in.Stage)
			}
			return s.call(ctx, false, nil, "novel-lint", args...)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "novel_report", Description: "The project's health report as JSON: chapters, scores, costs, foreshadowing and warnings."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
			return s.call(ctx, false, nil, "novel-report", "--format", "json")
		})
}

// instructions writes the packet and renders its prompt.
func (s *Server) instructions(ctx context.Context, in stepInput) (*mcp.CallToolResult, any, error) {
	args := []string{"packet", in.Step, "--write-manifest", "--jq", ".written_manifest_path"}
	if in.Role != "" {
		args = append(args, "--role", in.Role)
	}
	out, fail, err := s.tool(ctx, true, nil, "novel-manifest", args...)
	if fail != nil || err != nil {
		return fail, nil, err
	}
	packet := strings.TrimSpace(string(out))
	prompt, fail, err := s.tool(ctx, false, nil, "novel-agent", "prompt", packet)
	if fail != nil || err != nil {
		return fail, nil, err
	}
	var p map[string]any
	if err := json.Unmarshal(prompt, &p); err != nil {
		return nil, nil, err
	}
	p["packet"] = packet
	return document(p)
}

// apply hands the answer to novel-agent apply, then advances a chapter
// step whose products are complete (a key chapter's first judge waits for
// the second: advance's refusal is reported, not an error).
func (s *Server) apply(ctx context.Context, in applyInput) (*mcp.CallToolResult, any, error) {
	args := []string{"apply", in.Packet, "-"}
	if in.Model != "" {
		args = append(args, "--model", in.Model)
	}
	out, fail, err := s.tool(ctx, true, []byte(in.Answer), "novel-agent", args...)
	if fail != nil || err != nil {
		return fail, nil, err
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, nil, err
	}
	step, _ := res["step"].(string)
	if strings.HasPrefix(step, "chapter:") {
		adv, refusal, err := s.tool(ctx, true, nil, "novel-step", "advance", step)
		if err != nil {
			return nil, nil, err
		}
		if refusal != nil {
			res["advanced"] = false
			res["advance_refused"] = json.RawMessage(textOf(refusal))
		} else {
			res["advanced"] = true
			res["checkpoint"] = json.RawMessage(adv)
		}
	}
	return document(res)
}

// call runs one tool and returns its document, or its error envelope as
// the tool's error.
func (s *Server) call(ctx context.Context, writes bool, stdin []byte, name string, args ...string) (*mcp.CallToolResult, any, error) {
	out, fail, err := s.tool(ctx, writes, stdin, name, args...)
	if fail != nil || err != nil {
		return fail, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil, nil
}

// tool runs the suite binary name in the project. A failing run comes back
// as a tool error result whose text is the suite's error envelope (its
// last stderr line); err is only for the server's own failures.
func (s *Server) tool(ctx context.Context, writes bool, stdin []byte, name string, args ...string) ([]byte, *mcp.CallToolResult, error) {
	token := ""
	if writes {
		t, envelope := s.lease(ctx)
		if envelope != "" {
			return nil, toolError(envelope), nil
		}
		token = t
	}
	code, stdout, stderr := s.exec(ctx, token, stdin, name, args...)
	if code != 0 {
		return nil, toolError(lastLine(stderr)), nil
	}
	return stdout, nil, nil
}

// lease takes the leased lock on the first writing call and renews it on
// every later one (SPEC §27). It returns the token, or the error envelope
// of the refusal (a live holder: exit 4; a lease that was broken:
// E_LOCK_LOST).
func (s *Server) lease(ctx context.Context) (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" {
		if code, _, stderr := s.exec(ctx, "", nil, "novel-lock", "renew", "--token", s.token); code != 0 {
			s.token = ""
			return "", lastLine(stderr)
		}
		return s.token, ""
	}
	code, stdout, stderr := s.exec(ctx, "", nil, "novel-lock", "acquire", "--lease", lease.String(), "--text")
	if code != 0 {
		return "", lastLine(stderr)
	}
	s.token = strings.TrimSpace(string(stdout))
	return s.token, ""
}

// release gives the lease back when the session ends.
func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" {
		s.exec(context.Background(), "", nil, "novel-lock", "release", "--token", s.token)
		s.token = ""
	}
}

// exec runs a suite binary in the project with the lease's token.
func (s *Server) exec(ctx context.Context, token string, stdin []byte, name string, args ...string) (int, []byte, []byte) {
	path := cli.Locate(s.self, name)
	if path == "" {
		e := errs.Newf(errs.Usage, "找不到 %s", "%s not found", name).
			Hint("把 novel-* 所在目录加入 PATH，或把 novel-mcp 装在它们旁边", "put the novel-* binaries on PATH, or install novel-mcp beside them")
		var b bytes.Buffer
		cli.WriteError(&b, e, "")
		return 1, nil, b.Bytes()
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = s.project
	cmd.Env = append(append([]string{}, s.env...), "NOVEL_PROJECT="+s.project)
	if token != "" {
		cmd.Env = append(cmd.Env, lock.TokenEnv+"="+token)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), so.Bytes(), se.Bytes()
		}
		e := errs.Newf(errs.IO, "无法运行 %s：%v", "cannot run %s: %v", name, err)
		var b bytes.Buffer
		cli.WriteError(&b, e, "")
		return 1, nil, b.Bytes()
	}
	return 0, so.Bytes(), se.Bytes()
}

func document(v any) (*mcp.CallToolResult, any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}, StructuredContent: json.RawMessage(data)}, nil, nil
}

func toolError(envelope string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: envelope}}}
}

func textOf(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return "null"
	}
	if t, ok := r.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return "null"
}

// lastLine is the last non-empty line of a tool's stderr: the suite's
// error envelope (earlier lines are progress or warnings).
func lastLine(stderr []byte) string {
	lines := strings.Split(strings.TrimRight(string(stderr), "\n"), "\n")
	return lines[len(lines)-1]
}
