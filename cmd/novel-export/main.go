// Command novel-export is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelexport"
)

func main() { os.Exit(novelexport.Main()) }
