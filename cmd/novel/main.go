// Command novel is the suite's front door: it dispatches git-style to the
// novel-* binaries; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novel"
)

func main() { os.Exit(novel.Main()) }
