package lock

import (
	"os"

	"github.com/novelsuite/novel/internal/project"
)

// TokenEnv names the variable through which `novel-lock run` hands the
// held lock's token to the tools it runs.
const TokenEnv = "NOVEL_LOCK_TOKEN"

// Guard is called by writer tools before they write project state. When
// getenv(NOVEL_LOCK_TOKEN) is the token of the held lock the caller runs
// under that lock, and the release is a no-op. Otherwise it takes the
// lock briefly for this process's own pid; a live other holder →
// E_LOCK_HELD (exit 4). The returned release is never nil.
func Guard(root *project.Root, getenv func(string) string, chapter int, staleMinutes int) (release func(), err error) {
	noop := func() {}
	if getenv != nil {
		if tok := getenv(TokenEnv); tok != "" && Token(root) == tok {
			return noop, nil
		}
	}
	a, err := Acquire(root, Options{PID: os.Getpid(), Chapter: chapter, StaleMinutes: staleMinutes})
	if err != nil {
		return noop, err
	}
	return func() { Release(root, a.Token, false) }, nil
}
