// Command novel-agent is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelagent"
)

func main() { os.Exit(novelagent.Main()) }
