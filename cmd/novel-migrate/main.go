// Command novel-migrate is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelmigrate"
)

func main() { os.Exit(novelmigrate.Main()) }
