package lock

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/novelsuite/novel/internal/errs"
)

// A lock directory without info.json is "an acquire in progress" only while
// .novel.lock.flock is held (SPEC §4): aged past 10 s it is still held while
// someone holds the flock, and stale (incomplete) once the flock is free.
func TestIncompleteHeldWhileFlockHeld(t *testing.T) {
	r := newRoot(t)
	if err := os.Mkdir(filepath.Join(r.Dir, ".novel.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	setDirAge(t, r, time.Minute)
	fl := flock.New(filepath.Join(r.Dir, ".novel.lock.flock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	st, err := Inspect(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Stale || st.Reason != ReasonAcquiring {
		t.Fatalf("flock held: stale=%v reason=%s, want held %s", st.Stale, st.Reason, ReasonAcquiring)
	}
	if _, err := Break(r, false, Options{}); err == nil {
		t.Fatal("break removed a lock whose acquire holds the flock")
	}
	fl.Close()
	st, err = Inspect(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Stale || st.Reason != ReasonIncomplete {
		t.Fatalf("flock free: stale=%v reason=%s, want stale %s", st.Stale, st.Reason, ReasonIncomplete)
	}
	a, err := Acquire(r, Options{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if a.BrokeStale == nil || a.BrokeStale.Reason != ReasonIncomplete || a.BrokeStale.Holder.Info != InfoMissing {
		t.Fatalf("broke_stale %+v", a.BrokeStale)
	}
}

// Status of an incomplete lock writes nothing, not even the flock file.
func TestIncompleteStatusCreatesNoFlockFile(t *testing.T) {
	r := newRoot(t)
	os.Mkdir(filepath.Join(r.Dir, ".novel.lock"), 0o755)
	if _, err := Inspect(r, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".novel.lock.flock")); !os.IsNotExist(err) {
		t.Fatalf("status created the flock file (%v)", err)
	}
}

// A temp info file left inside the lock by a writer on this host that is
// no longer alive makes the lock stale at once, however young.
func TestIncompleteDeadTempWriter(t *testing.T) {
	dead, live := deadPIDValue(t), os.Getpid()
	info := func(pid int, host string) string {
		return `{"pid":` + strconv.Itoa(pid) + `,"host":"` + host + `","started":"` + stamp(time.Now()) + `","token":"x"}`
	}
	cases := []struct {
		name, file, content string
		stale               bool
	}{
		{"dead writer on this host", ".info.json.tmp-" + strconv.Itoa(dead) + "-123", info(dead, hostname()), true},
		{"dead writer, info names the live shell", ".info.json.tmp-" + strconv.Itoa(dead) + "-123", info(live, hostname()), true},
		{"dead writer on another host", ".info.json.tmp-" + strconv.Itoa(dead) + "-123", info(dead, "elsewhere"), false},
		{"dead writer, temp still empty", ".info.json.tmp-" + strconv.Itoa(dead) + "-123", "", false},
		{"live writer", ".info.json.tmp-" + strconv.Itoa(live) + "-123", info(live, hostname()), false},
		{"not a temp of info.json", ".other.tmp-" + strconv.Itoa(dead) + "-123", info(dead, hostname()), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRoot(t)
			dir := filepath.Join(r.Dir, ".novel.lock")
			os.Mkdir(dir, 0o755)
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := Inspect(r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := ReasonFresh
			if c.stale {
				want = ReasonIncomplete
			}
			if st.Stale != c.stale || st.Reason != want {
				t.Fatalf("stale=%v reason=%s, want %v %s", st.Stale, st.Reason, c.stale, want)
			}
			_, err = Acquire(r, Options{PID: os.Getpid()})
			if c.stale && err != nil {
				t.Fatal(err)
			}
			if !c.stale {
				wantCode(t, err, errs.LockHeld, errs.ExitBusy)
			}
		})
	}
}

// Acquire holds the flock from before its mkdir until info.json is
// written, so no observer can take the gap for an abandoned lock.
func TestAcquireHoldsFlockUntilInfoWritten(t *testing.T) {
	r := newRoot(t)
	checked := false
	after := func() {
		checked = true
		// Even aged past 10 s, the half-made lock is held while we hold the flock.
		setDirAge(t, r, time.Minute)
		st, err := Inspect(r, Options{})
		if err != nil || st.Stale || st.Reason != ReasonAcquiring {
			t.Errorf("during acquire: %+v %v", st, err)
		}
	}
	if _, err := Acquire(r, Options{PID: os.Getpid(), AfterMkdir: after}); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("hook not called")
	}
}
