// Package lazyre holds a package's regular expressions uncompiled until
// their first use. Compiled at package initialisation they cost every
// process start of every binary that links the package (SPEC §14 counts
// whole processes), though one command matches only a few of them.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr once, on its first call, and
// then returns the same *regexp.Regexp; like regexp.MustCompile it panics
// on an invalid expression, so each one must be exercised by a test.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
