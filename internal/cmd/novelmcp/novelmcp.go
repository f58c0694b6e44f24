// Package novelmcp is the command surface of novel-mcp (SPEC §27); the
// server lives in internal/mcpserver.
package novelmcp

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/mcpserver"
)

type grammar struct {
	cli.Globals `embed:""`
	Serve       serveCmd `cmd:"" default:"1" help:"Serve the project's tools over MCP on stdin/stdout (the default)."`
}

type serveCmd struct{}

func (serveCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Project()
	if err != nil {
		return err
	}
	c, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	srv := mcpserver.New(root.Dir, os.Args[0], os.Environ())
	// The session ends when the client closes stdin; that is not an error.
	srv.Run(c, &mcp.IOTransport{Reader: io.NopCloser(ctx.In), Writer: nopCloser{ctx.Out}})
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Main runs novel-mcp.
func Main() int {
	return cli.Main("novel-mcp", "The novel suite as MCP tools over stdio (SPEC §27), for chat clients that bring their own model: novel_next, novel_instructions, novel_apply, novel_gate, novel_commit, novel_status, novel_lint, novel_report. The project is fixed at start (--project, else NOVEL_PROJECT, else the working directory's project); the first writing call takes a 30-minute leased lock and every later one renews it.", &grammar{})
}
