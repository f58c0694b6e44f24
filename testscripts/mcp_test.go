package testscripts

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelsuite/novel/internal/agent"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// TestMCPRouteMatchesPipeline writes a new novel's setup, volume-1 plan
// and two chapters through novel-mcp with the SDK's own client — next,
// instructions, apply (the demo's recorded answers), commit for setup and
// the plan, gate and commit for chapters — and requires the same tree as
// `make start` + `make continue N=2` with the same recordings (SPEC §27).
// Run logs and staging are each route's own bookkeeping and are left out.
func TestMCPRouteMatchesPipeline(t *testing.T) {
	if testing.Short() {
		// make test-full: under -short the MCP server is covered by
		// TestMCPContinuityAudit and TestMCPErrorsAreEnvelopes, and the
		// route's tree by setup/agent_route (the same steps on the CLI).
		t.Skip("the whole MCP route runs in make test-full")
	}
	t.Parallel()
	repo, _ := filepath.Abs("..")
	replay := filepath.Join(repo, "examples", "demo", "replay")
	base := t.TempDir()
	viaMake, viaMCP := filepath.Join(base, "make"), filepath.Join(base, "mcp")
	env := routeEnv("2026-11-01T08:00:00Z")
	run := func(name string, args ...string) {
		t.Helper()
		c := exec.Command(name, args...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	agentCmd := "AGENT=novel-agent --backend replay --fixtures " + replay
	for _, d := range []string{viaMake, viaMCP} {
		run("novel", "init", d, "--title", "守灯人", "--platform", "fanqie", "--chapters-per-volume", "6", "--words-per-chapter", "2500")
	}
	// Each init draws its own book_id; the two routes write the same book.
	run("cp", filepath.Join(viaMake, "settings.json"), filepath.Join(viaMCP, "settings.json"))
	run("make", "-s", "-f", filepath.Join(repo, "pipeline.mk"), "start", "PROJECT="+viaMake, agentCmd)
	run("make", "-s", "-f", filepath.Join(repo, "pipeline.mk"), "continue", "N=2", "PROJECT="+viaMake, agentCmd)

	calls := driveMCP(t, viaMCP, replay, env, 2)
	want := "setup:world setup:characters setup:book setup:style volume:01:plan " +
		"chapter:001:draft chapter:001:summarize chapter:001:refine chapter:001:judge chapter:001:judge secondary chapter:001:gate chapter:001:commit " +
		"chapter:002:draft chapter:002:summarize chapter:002:refine chapter:002:judge chapter:002:gate " +
		"chapter:002:draft chapter:002:summarize chapter:002:refine chapter:002:judge chapter:002:gate chapter:002:commit"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("steps through MCP:\n got %s\nwant %s", got, want)
	}
	if d := testkit.Diff(committedTree(t, viaMake), committedTree(t, viaMCP)); d != "" {
		t.Errorf("the MCP route's tree differs from the pipeline's:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(viaMCP, ".novel.lock")); !os.IsNotExist(err) {
		t.Errorf("the session's lease was not released: %v", err)
	}
}

// routeEnv is the environment of a route test: a fixed clock, nothing of
// the caller's that points at another project, lock or make.
func routeEnv(now string) []string {
	env := []string{"NOVEL_NOW=" + now, "LANG=C.UTF-8"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "NOVEL_") && !strings.HasPrefix(k, "MAKE") {
			env = append(env, kv)
		}
	}
	return env
}

// driveMCP plays a chat client through novel-mcp until `chapters`
// chapters are committed, answering every agent step with its recording,
// and returns the steps (with roles) novel_next named.
func driveMCP(t *testing.T, dir, replay string, env []string, chapters int) []string {
	t.Helper()
	c := connectMCP(t, dir, env)
	call := c.doc
	var calls []string
	for written := 0; written < chapters; {
		if len(calls) > 60 {
			t.Fatalf("stuck after %v", calls)
		}
		next := call("novel_next", nil)
		id, _ := next["step"].(string)
		role, _ := next["role"].(string)
		calls = append(calls, strings.TrimSpace(id+" "+role))
		st, err := stepid.Parse(id)
		isVolume := strings.HasPrefix(id, "volume:")
		switch {
		case err == nil && st.Stage == stepid.Gate:
			call("novel_gate", map[string]any{"chapter": st.Chapter})
			continue
		case err == nil && st.Stage == stepid.Commit:
			call("novel_commit", map[string]any{"chapter": st.Chapter})
			written++
			continue
		case err != nil && !isVolume:
			t.Fatalf("next %v: %v", next, err)
		}
		args := map[string]any{"step": id}
		if role != "" {
			args["role"] = role
		}
		ins := call("novel_instructions", args)
		if s, _ := ins["system"].(string); !strings.Contains(s, "输出") {
			t.Fatalf("instructions for %s carry no role prompt: %.200s", id, s)
		}
		packet := ins["packet"].(string)
		p, err := agent.LoadPacket(filepath.Join(dir, packet), packet)
		if err != nil {
			t.Fatal(err)
		}
		answer, err := os.ReadFile(agent.Replay{Dir: replay}.RecordingPath(p))
		if err != nil {
			t.Fatal(err)
		}
		// The client names its model, as the replay executor does.
		call("novel_apply", map[string]any{"packet": packet, "answer": string(answer), "model": "replay"})
		switch {
		case strings.HasPrefix(id, "setup:"):
			call("novel_commit", map[string]any{"setup": strings.TrimPrefix(id, "setup:")})
		case isVolume:
			call("novel_commit", map[string]any{"volume": p.Volume})
		}
	}
	if err := c.session.Close(); err != nil {
		t.Fatal(err)
	}
	return calls
}

// committedTree is dir's tree without each route's own bookkeeping (run
// logs, staging, the lock).
func committedTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := testkit.Tree(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for k := range tree {
		if k == "logs" || k == "staging" || strings.HasPrefix(k, "logs/") || strings.HasPrefix(k, "staging/") || strings.HasPrefix(k, ".novel.lock") {
			delete(tree, k)
		}
	}
	return tree
}

// TestMCPErrorsAreEnvelopes: a refused call is a tool error whose text is
// the suite's own error envelope — an answer that fails validation (with
// its re-ask), and a writing call while another holder's lease runs.
func TestMCPErrorsAreEnvelopes(t *testing.T) {
	t.Parallel()
	repo, _ := filepath.Abs("..")
	dir := filepath.Join(t.TempDir(), "p")
	if err := testkit.CopyTree(filepath.Join(repo, "examples", "demo", "project"), dir, false); err != nil {
		t.Fatal(err)
	}
	env := routeEnv("2026-11-01T09:00:00Z")
	c := connectMCP(t, dir, env)
	defer c.session.Close()
	call := c.raw
	text, isErr := call("novel_instructions", map[string]any{"step": "chapter:001:draft"})
	if isErr {
		t.Fatalf("instructions: %s", text)
	}
	text, isErr = call("novel_apply", map[string]any{"packet": "staging/manifests/chapter-001-draft.packet.json", "answer": "好的，以下是第1章："})
	want := `{"error":{"code":"E_AGENT","message":"chapter-writer 的输出（stdin）`
	if !isErr || !strings.HasPrefix(text, want) || !strings.Contains(text, `"reask":"你上一次的输出无法通过校验：`) {
		t.Errorf("a failing answer: error=%v %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "staging", "chapters", "chapter-001.md")); !os.IsNotExist(err) {
		t.Errorf("a failing answer wrote the chapter: %v", err)
	}
	// The session holds the lease: another acquire is refused.
	out, err := exec.Command("novel-lock", "--project", dir, "acquire").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `"code":"E_LOCK_HELD"`) || !strings.Contains(string(out), `"reason":"leased"`) {
		t.Errorf("acquire beside the session's lease: %v %s", err, out)
	}
	// A lease broken by a person: the next writing call reports the loss.
	if out, err := exec.Command("novel-lock", "--project", dir, "break", "--force").CombinedOutput(); err != nil {
		t.Fatalf("break: %v %s", err, out)
	}
	text, isErr = call("novel_instructions", map[string]any{"step": "chapter:001:draft"})
	if !isErr || !strings.HasPrefix(text, `{"error":{"code":"E_LOCK_LOST","message":"项目锁已不存在，未续租"`) {
		t.Errorf("after the lease was broken: error=%v %s", isErr, text)
	}
}

// TestMCPContinuityAudit: a chat client is a model executor, so after a
// commit that ran the continuity audit novel_next names audit:NNN (SPEC
// §25); its instructions are the auditor's prompt, and its applied answer
// is stored where the pipeline stores its own review — after which
// novel_next moves on to the next chapter.
func TestMCPContinuityAudit(t *testing.T) {
	t.Parallel()
	repo, _ := filepath.Abs("..")
	dir := filepath.Join(t.TempDir(), "p")
	if err := testkit.CopyTree(filepath.Join(repo, "examples", "calibration", "base", "after-004"), dir, false); err != nil {
		t.Fatal(err)
	}
	env := routeEnv("2026-11-01T08:00:00Z")
	mk := exec.Command("make", "-s", "-f", filepath.Join(repo, "pipeline.mk"), "continue", "N=1", "PROJECT="+dir,
		"AGENT=novel-agent --backend replay --fixtures "+filepath.Join(repo, "examples", "demo", "replay"))
	mk.Env = env
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make continue: %v\n%s", err, out)
	}
	c := connectMCP(t, dir, env)
	defer c.session.Close()
	call := c.doc
	if next := call("novel_next", nil); next["step"] != "audit:005" || next["reason"] != "continuity_audit" {
		t.Fatalf("novel_next after chapter 5: %v", next)
	}
	if st := call("novel_status", nil)["next"].(map[string]any); st["step"] != "audit:005" {
		t.Errorf("novel_status next: %v", st)
	}
	ins := call("novel_instructions", map[string]any{"step": "audit:005"})
	if ins["packet"] != "staging/manifests/audit-005.packet.json" || ins["agent"] != "continuity-auditor" ||
		!strings.Contains(ins["system"].(string), "ContinuityAuditor") || !strings.Contains(ins["user"].(string), `"chapter_excerpts"`) {
		t.Fatalf("instructions: packet %v agent %v", ins["packet"], ins["agent"])
	}
	answer := `{"scope": "sliding_window", "chapter_range": [1, 5], "issues": [{"id": "CONT-001", "type": "world_rule", "severity": "high",` +
		` "description": "守灯令的用法前后不一", "entities": ["陆照"], "evidence": [{"chapter": 5, "excerpt": "守灯令引火，照见灯主"}]}]}`
	applied := call("novel_apply", map[string]any{"packet": ins["packet"], "answer": answer, "model": "client"})
	want := []any{"staging/continuity/audit-005.json", "logs/continuity/agent-report-005.json", "logs/continuity/agent-latest.json"}
	if got, _ := json.Marshal(applied["written"]); string(got) != mustJSON(t, want) || applied["advanced"] != nil {
		t.Errorf("applied: written %s, advanced %v", got, applied["advanced"])
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "continuity", "agent-report-005.json")); err != nil {
		t.Errorf("the review was not stored: %v", err)
	}
	if next := call("novel_next", nil); next["step"] != "chapter:006:draft" {
		t.Errorf("novel_next after the review: %v", next)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mcpClient is the SDK's client connected to a novel-mcp it started for
// the project dir.
type mcpClient struct {
	t       *testing.T
	session *mcp.ClientSession
}

func connectMCP(t *testing.T, dir string, env []string) *mcpClient {
	t.Helper()
	server := exec.Command("novel-mcp", "--project", dir)
	server.Env = env
	session, err := mcp.NewClient(&mcp.Implementation{Name: "novel-test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &mcpClient{t: t, session: session}
}

// raw calls a tool and returns its text and whether it is a tool error.
func (c *mcpClient) raw(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// doc calls a tool that must succeed and returns its JSON document.
func (c *mcpClient) doc(name string, args map[string]any) map[string]any {
	c.t.Helper()
	text, isErr := c.raw(name, args)
	if isErr {
		c.t.Fatalf("%s %v: tool error %s", name, args, text)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		c.t.Fatalf("%s: %v in %s", name, err, text)
	}
	return out
}
