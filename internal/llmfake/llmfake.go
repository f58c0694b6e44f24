// Package llmfake is a scripted OpenAI-compatible chat-completions server
// for tests. It listens on loopback only, answers from a script (status
// codes, malformed bodies, delays) and then from replay recordings, logs
// every request body, and stops by itself after a bounded lifetime.
package llmfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Response is one scripted answer.
type Response struct {
	Status  int    `json:"status"`   // default 200
	Content string `json:"content"`  // the assistant message content
	Raw     string `json:"raw"`      // a raw body sent as is (malformed JSON tests)
	DelayMS int    `json:"delay_ms"` // wait before answering (timeout tests)
}

// Script drives the server: scripted responses first, in order; then
// answers from ReplayDir recordings (chapter-NNN/{agent}.{mode}.r{K}.{md|json});
// $VARS in ReplayDir are expanded, a relative one is taken from the script's folder.
type Script struct {
	Responses []Response `json:"responses"`
	ReplayDir string     `json:"replay_dir"`
}

// Server is a running fake.
type Server struct {
	script Script
	log    string
	mu     sync.Mutex
	n      int
}

var (
	stepRE  = regexp.MustCompile(`步骤：chapter:(\d+):`)
	agentRE = regexp.MustCompile(`代理：([a-z-]+)`)
	modeRE  = regexp.MustCompile(`模式：([a-z-]+)`)
	roundRE = regexp.MustCompile(`修订轮次：(\d+)`)
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.n++
	n := s.n
	var resp *Response
	if len(s.script.Responses) > 0 {
		resp = &s.script.Responses[0]
		s.script.Responses = s.script.Responses[1:]
	}
	s.logRequest(n, r.URL.Path, body)
	s.mu.Unlock()

	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if resp != nil {
		if resp.DelayMS > 0 {
			time.Sleep(time.Duration(resp.DelayMS) * time.Millisecond)
		}
		status := resp.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		switch {
		case resp.Raw != "":
			fmt.Fprint(w, resp.Raw)
		case status != http.StatusOK:
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": resp.Content}})
		default:
			writeAnswer(w, req.Model, resp.Content)
		}
		return
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) < 2 || s.script.ReplayDir == "" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"no scripted response left and no replay recording"}}`)
		return
	}
	user := req.Messages[1].Content
	m1, m2, m3, m4 := stepRE.FindStringSubmatch(user), agentRE.FindStringSubmatch(user), modeRE.FindStringSubmatch(user), roundRE.FindStringSubmatch(user)
	if m1 == nil || m2 == nil || m3 == nil || m4 == nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"cannot tell the step from the prompt"}}`)
		return
	}
	c, _ := strconv.Atoi(m1[1])
	ext := "json"
	if m2[1] == "chapter-writer" || m2[1] == "style-refiner" {
		ext = "md"
	}
	file := filepath.Join(s.script.ReplayDir, fmt.Sprintf("chapter-%03d", c), fmt.Sprintf("%s.%s.r%s.%s", m2[1], m3[1], m4[1], ext))
	data, err := os.ReadFile(file)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "no recording " + file}})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	writeAnswer(w, req.Model, string(data))
}

func writeAnswer(w http.ResponseWriter, model, content string) {
	json.NewEncoder(w).Encode(map[string]any{
		"id": "fake", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": len([]rune(content)), "total_tokens": 100 + len([]rune(content))},
	})
}

func (s *Server) logRequest(n int, path string, body []byte) {
	if s.log == "" {
		return
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		v = string(body)
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false) // keep <DATA …> readable for assertions
	enc.Encode(map[string]any{"n": n, "path": path, "body": v})
	f, err := os.OpenFile(s.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(line.Bytes())
	f.Close()
}

// Lifetime bounds how long a fake serves when nobody stops it.
const Lifetime = 5 * time.Minute

// Main runs `fake-llm SCRIPT.json ADDRFILE [REQUESTLOG]`: it serves on
// 127.0.0.1 (random port), writes the base URL (…/v1) to ADDRFILE, and
// stops on SIGTERM/SIGINT or after Lifetime.
func Main() int {
	if len(os.Args) < 3 || len(os.Args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: fake-llm SCRIPT.json ADDRFILE [REQUESTLOG]")
		return 2
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := &Server{}
	if err := json.Unmarshal(data, &s.script); err != nil {
		fmt.Fprintln(os.Stderr, "script:", err)
		return 1
	}
	if len(os.Args) == 4 {
		s.log, _ = filepath.Abs(os.Args[3])
	}
	s.script.ReplayDir = os.ExpandEnv(s.script.ReplayDir)
	if s.script.ReplayDir != "" && !filepath.IsAbs(s.script.ReplayDir) {
		s.script.ReplayDir = filepath.Join(filepath.Dir(os.Args[1]), s.script.ReplayDir)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	url := fmt.Sprintf("http://%s/v1", ln.Addr().String())
	tmp := os.Args[2] + ".tmp"
	if err := os.WriteFile(tmp, []byte(url), 0o644); err != nil || os.Rename(tmp, os.Args[2]) != nil {
		fmt.Fprintln(os.Stderr, "cannot write", os.Args[2])
		return 1
	}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case <-time.After(Lifetime):
	}
	srv.Close()
	return 0
}

// New makes a server handler for a script (for Go tests).
func New(script Script, requestLog string) *Server { return &Server{script: script, log: requestLog} }
