// Command novel-commit is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelcommit"
)

func main() { os.Exit(novelcommit.Main()) }
