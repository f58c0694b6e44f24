// Command novel-report is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelreport"
)

func main() { os.Exit(novelreport.Main()) }
