package jsonio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Stream hands over the bytes ReadFile returns (BOM stripped, across
// pieces) and fails with ReadFile's errors: a missing file, a directory,
// a file over the limit.
func TestStreamSameAsReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	huge := filepath.Join(dir, "huge")
	f, _ := os.Create(huge)
	f.Truncate(MaxFileSize + 1)
	f.Close()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	paths := []string{
		write("bom", []byte("\xEF\xBB\xBF{\"a\":1}")),
		write("empty", nil),
		write("long", []byte(strings.Repeat("灯", 300<<10))), // more than one piece
		filepath.Join(dir, "missing"), filepath.Join(dir, "d"), huge,
	}
	for _, p := range paths {
		var got []byte
		err := Stream(p, filepath.Base(p), func(piece []byte) { got = append(got, piece...) })
		want, werr := ReadFile(p, filepath.Base(p))
		if fmt.Sprint(err) != fmt.Sprint(werr) || (werr == nil && string(got) != string(want)) {
			t.Errorf("%s: %d bytes, %v; ReadFile: %d bytes, %v", filepath.Base(p), len(got), err, len(want), werr)
		}
	}
}
