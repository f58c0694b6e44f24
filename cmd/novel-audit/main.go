// Command novel-audit is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelaudit"
)

func main() { os.Exit(novelaudit.Main()) }
