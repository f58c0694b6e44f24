// Command novel-manifest is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelmanifest"
)

func main() { os.Exit(novelmanifest.Main()) }
