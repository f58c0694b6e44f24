package lock

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/novelsuite/novel/internal/jsonio"
)

// incompleteGrace is how long a lock directory without a valid info.json
// counts as held once no acquire holds the flock: a shell skill's mkdir
// followed by its own info write (SPEC §4).
const incompleteGrace = 10 * time.Second

// incompleteReason judges a lock directory whose info.json is missing,
// empty or corrupt: stale at once when a dead writer on this host left
// its temp info inside; held while someone holds the flock (an acquire in
// progress) or the directory is younger than incompleteGrace; otherwise
// stale. A directory mtime far in the future never keeps it alive.
func incompleteReason(p paths, host string, mtime, now time.Time, flockMine bool) string {
	switch {
	case deadTempWriter(p.dir, host):
		return ReasonIncomplete
	case !flockMine && flockBusy(p.flock):
		return ReasonAcquiring
	case mtime.After(now.Add(futureSlack)):
		return ReasonIncomplete
	case now.Sub(mtime) < incompleteGrace:
		return ReasonFresh
	}
	return ReasonIncomplete
}

// deadTempWriter reports whether dir holds a temp info file
// (".info.json.tmp-{pid}-…", jsonio's atomic write) whose writer pid is
// gone and whose content names this host — the writer was killed before
// its rename. A temp without a readable host proves nothing.
func deadTempWriter(dir, host string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".info.json.tmp-") {
			continue
		}
		if target, dead := jsonio.StaleTemp(name); !dead || target != "info.json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(data) > jsonio.MaxFileSize {
			continue
		}
		if info := parseInfo(data, nil); info.State == InfoOK && info.HasHost && host != "" && info.Host == host {
			return true
		}
	}
	return false
}

// flockBusy reports whether another process holds .novel.lock.flock. It
// opens the file read-only without creating it, so looking writes nothing.
func flockBusy(path string) bool {
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryRLock()
	if err != nil {
		return false // no flock file: nobody holds it
	}
	if ok {
		fl.Close()
		return false
	}
	return true
}

// heldSignals catches SIGINT, SIGTERM and SIGHUP (those not ignored) while
// a lock is half made, so a Ctrl-C cannot leave an info-less lock behind.
type heldSignals struct{ ch chan os.Signal }

func holdSignals() heldSignals {
	h := heldSignals{ch: make(chan os.Signal, 1)}
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) > 0 {
		signal.Notify(h.ch, sigs...)
	}
	return h
}

// stop ends the catching and returns the signal that arrived, if any.
func (h heldSignals) stop() os.Signal {
	signal.Stop(h.ch)
	select {
	case s := <-h.ch:
		return s
	default:
		return nil
	}
}

// reraise ends the process with sig's default action, as if it had not
// been held back (a shell then sees 128+sig).
func reraise(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s)
	// Delivery is asynchronous; give it a moment before the caller's
	// error path runs.
	time.Sleep(time.Second)
}
