// Command novel-lint is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novellint"
)

func main() { os.Exit(novellint.Main()) }
