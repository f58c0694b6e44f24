// Command novel-outline is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/noveloutline"
)

func main() { os.Exit(noveloutline.Main()) }
