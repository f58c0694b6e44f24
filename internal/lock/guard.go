package lock

import (
	"fmt"
	"os"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// TokenEnv names the variable through which `novel-lock run` hands the
// held lock's token to the tools it runs.
const TokenEnv = "NOVEL_LOCK_TOKEN"

// Guard is called by writer tools before they write project state. When
// getenv(NOVEL_LOCK_TOKEN) is the token of the held lock the caller runs
// under that lock, and the release is a no-op — provided the holder
// recorded with that token is still alive: when it is dead (the `novel-lock
// run` was killed) the caller is an orphan of that run and gets
// E_LOCK_NOT_OWNER (exit 4), so it never writes beside a new run.
// Otherwise Guard takes the lock briefly for this process's own pid; a
// live other holder → E_LOCK_HELD (exit 4). The returned release is never
// nil.
func Guard(root *project.Root, getenv func(string) string, chapter int, staleMinutes int) (release func(), err error) {
	noop := func() {}
	if getenv != nil {
		if held, err := HeldBy(root, getenv(TokenEnv)); err != nil || held {
			return noop, err
		}
	}
	a, err := Acquire(root, Options{PID: os.Getpid(), Chapter: chapter, StaleMinutes: staleMinutes})
	if err != nil {
		return noop, err
	}
	return func() { Release(root, a.Token, false) }, nil
}

// HeldBy reports whether token names the held lock. A leased lock (SPEC
// §27) is renewed by the call. When token names a pid-held lock but the
// holder recorded with it is on this host and no longer alive (dead pid,
// zombie, or the pid reused, judged by pid_start), it is E_LOCK_NOT_OWNER
// with exit 4: the caller belongs to a run whose holder is gone.
func HeldBy(root *project.Root, token string) (bool, error) {
	if token == "" {
		return false, nil
	}
	p, err := resolve(root)
	if err != nil {
		return false, err
	}
	data, rerr := os.ReadFile(p.info)
	info := parseInfo(data, rerr)
	if info.Token != token {
		return false, nil
	}
	if info.LeaseUntil != "" {
		// A leased lock belongs to its token, not to a pid (agent harnesses
		// run each command in a fresh shell): using it renews it.
		if _, err := Renew(root, token, 0, Options{}); err != nil {
			return false, err
		}
		return true, nil
	}
	if !info.HasHost || info.Host != hostname() || info.PID <= 0 {
		return true, nil // another host's holder cannot be checked from here
	}
	if why := liveness(info.PID, info.PIDStart); why != alive {
		return false, errs.New(errs.LockNotOwner,
			fmt.Sprintf("持有项目锁的进程（pid %d）已不在运行（%s），本进程属于被终止的运行，不再写入", info.PID, why),
			fmt.Sprintf("the process holding the project lock (pid %d) is no longer running (%s); this process belongs to a run that was killed and writes nothing", info.PID, why)).
			Hint("重新运行流水线：它会解除这个失效的锁", "run the pipeline again: it breaks the stale lock").
			With("lock", layout.LockDir).With("reason", why).WithExit(errs.ExitBusy)
	}
	return true, nil
}
