// Command novel-step is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelstep"
)

func main() { os.Exit(novelstep.Main()) }
