//go:build !linux

package lock

import "os"

// termios approximates a terminal check where TCGETS is not available.
func termios(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
