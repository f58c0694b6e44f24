package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Locate finds one of the suite's binaries (tool, e.g. "novel-step") next
// to the running binary (self is its argv[0]; the executable's own
// directory is tried too), then on PATH; "" when it is nowhere. The front
// door and novel-mcp run the suite's tools through it, so an installed
// suite works without being on PATH.
func Locate(self, tool string) string {
	var dirs []string
	if strings.Contains(self, string(filepath.Separator)) {
		dirs = append(dirs, filepath.Dir(self))
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	for _, d := range dirs {
		p := filepath.Join(d, tool)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(tool); err == nil {
		return p
	}
	return ""
}
