// Command novel-mcp is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelmcp"
)

func main() { os.Exit(novelmcp.Main()) }
