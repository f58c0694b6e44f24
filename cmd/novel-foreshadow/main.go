// Command novel-foreshadow is part of the novel tool suite; see docs/DESIGN.md.
package main

import (
	"os"

	"github.com/novelsuite/novel/internal/cmd/novelforeshadow"
)

func main() { os.Exit(novelforeshadow.Main()) }
