// Command novel-init is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelinit"
)

func main() { os.Exit(novelinit.Main()) }
