package jsonio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// MapFile returns what ReadFile returns, for small (read) and large
// (mapped) files alike, with the same errors; writes to the bytes stay
// private, and a writer's rename leaves the mapped bytes as they were.
func TestMapFileIsReadFile(t *testing.T) {
	dir := t.TempDir()
	big := append([]byte("\xef\xbb\xbf{\"a\":\""), bytes.Repeat([]byte("状态"), MapMin/3)...)
	big = append(big, "\"}\n"...)
	for name, data := range map[string][]byte{"small.json": []byte("\xef\xbb\xbf{\"a\":1}\n"), "big.json": big} {
		abs := filepath.Join(dir, name)
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := ReadFile(abs, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MapFile(abs, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) || !bytes.Equal(got, data[3:]) {
			t.Fatalf("%s: MapFile differs from ReadFile (%d vs %d bytes)", name, len(got), len(want))
		}
		got[0] = 'X'
		if now, _ := os.ReadFile(abs); !bytes.Equal(now, data) {
			t.Fatalf("%s: writing to the mapped bytes changed the file", name)
		}
		tmp := abs + ".tmp"
		if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[1:], data[4:]) {
			t.Fatalf("%s: the bytes changed when the file was replaced", name)
		}
	}
	for _, c := range []struct{ rel, code string }{{"missing.json", errs.MissingFile}, {"sub", errs.IO}} {
		if c.rel == "sub" {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		_, rerr := ReadFile(filepath.Join(dir, c.rel), c.rel)
		_, merr := MapFile(filepath.Join(dir, c.rel), c.rel)
		re, me := errs.As(rerr), errs.As(merr)
		if re == nil || me == nil || me.Code != c.code || me.Code != re.Code || me.Message("en") != re.Message("en") {
			t.Fatalf("%s: MapFile error %v, ReadFile error %v", c.rel, merr, rerr)
		}
	}
}
