// Command novel-gate is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelgate"
)

func main() { os.Exit(novelgate.Main()) }
