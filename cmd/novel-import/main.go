// Command novel-import is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelimport"
)

func main() { os.Exit(novelimport.Main()) }
