// Command novel-lock is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novellock"
)

func main() { os.Exit(novellock.Main()) }
