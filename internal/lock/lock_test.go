package lock

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

func newRoot(t *testing.T) *project.Root {
	t.Helper()
	r, err := project.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeInfoFile(t *testing.T, r *project.Root, content string) {
	t.Helper()
	dir := filepath.Join(r.Dir, ".novel.lock")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "info.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func setDirAge(t *testing.T, r *project.Root, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(filepath.Join(r.Dir, ".novel.lock"), when, when); err != nil {
		t.Fatal(err)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPIDValue(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func wantCode(t *testing.T, err error, code string, exit int) {
	t.Helper()
	e := errs.As(err)
	if e == nil {
		t.Fatalf("want %s, got %v", code, err)
	}
	if e.Code != code || e.Exit != exit {
		t.Fatalf("want %s/exit %d, got %s/exit %d (%v)", code, exit, e.Code, e.Exit, e)
	}
}

func TestGuardTakesAndReleasesWhenAlone(t *testing.T) {
	r := newRoot(t)
	release, err := Guard(r, func(string) string { return "" }, 48, 30)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Inspect(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exists || st.Stale || *st.Holder.PID != os.Getpid() || *st.Holder.Chapter != 48 || st.Reason != ReasonAlive {
		t.Fatalf("unexpected status %+v holder %+v", st, st.Holder)
	}
	release()
	if _, err := os.Stat(filepath.Join(r.Dir, ".novel.lock")); !os.IsNotExist(err) {
		t.Fatalf("lock not released: %v", err)
	}
}

func TestGuardAcceptsMatchingToken(t *testing.T) {
	r := newRoot(t)
	a, err := Acquire(r, Options{PID: os.Getppid()})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{TokenEnv: a.Token}
	release, err := Guard(r, func(k string) string { return env[k] }, 0, 30)
	if err != nil {
		t.Fatal(err)
	}
	release()
	// The outer holder's lock must survive the inner no-op release.
	if Token(r) != a.Token {
		t.Fatal("Guard's release removed the lock it did not take")
	}
}

func TestGuardRefusesLiveHolder(t *testing.T) {
	r := newRoot(t)
	if _, err := Acquire(r, Options{PID: os.Getppid(), Chapter: 7}); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"", "not-the-token"} {
		env := map[string]string{TokenEnv: tok}
		release, err := Guard(r, func(k string) string { return env[k] }, 7, 30)
		wantCode(t, err, errs.LockHeld, errs.ExitBusy)
		if release == nil {
			t.Fatal("release must never be nil")
		}
		e := errs.As(err)
		h, _ := e.Details["holder"].(*Holder)
		if h == nil || *h.PID != os.Getppid() || *h.Chapter != 7 {
			t.Fatalf("holder details missing: %#v", e.Details)
		}
	}
}

func TestStaleRules(t *testing.T) {
	host := hostname()
	now := time.Now().UTC()
	old := stamp(now.Add(-2 * time.Hour))
	fresh := stamp(now.Add(-10 * time.Second))
	future := stamp(now.Add(24 * time.Hour))
	live := os.Getpid()
	dead := deadPIDValue(t)
	cases := []struct {
		name   string
		info   string // "" = no info.json at all
		dirAge time.Duration
		stale  bool
		reason string
	}{
		{"dead pid on this host", `{"pid":` + strconv.Itoa(dead) + `,"host":"` + host + `","started":"` + fresh + `","heartbeat":"` + fresh + `"}`, 0, true, ReasonDeadPID},
		{"live pid, old heartbeat, this host", `{"pid":` + strconv.Itoa(live) + `,"host":"` + host + `","started":"` + old + `","heartbeat":"` + old + `"}`, 3 * time.Hour, false, ReasonAlive},
		{"pid reused", `{"pid":` + strconv.Itoa(live) + `,"pid_start":1,"host":"` + host + `","started":"` + fresh + `"}`, 0, true, ReasonReused},
		{"other host, old start, fresh heartbeat", `{"pid":1,"host":"elsewhere","started":"` + old + `","heartbeat":"` + fresh + `"}`, 3 * time.Hour, false, ReasonFresh},
		{"other host, all old", `{"pid":1,"host":"elsewhere","started":"` + old + `","heartbeat":"` + old + `"}`, 3 * time.Hour, true, ReasonExpired},
		{"no host counts as other host", `{"pid":` + strconv.Itoa(live) + `,"started":"` + old + `"}`, 3 * time.Hour, true, ReasonExpired},
		{"future timestamps ignored, old dir", `{"pid":1,"host":"elsewhere","started":"` + future + `","heartbeat":"` + future + `"}`, 3 * time.Hour, true, ReasonExpired},
		{"future timestamps ignored, fresh dir", `{"pid":1,"host":"elsewhere","started":"` + future + `","heartbeat":"` + future + `"}`, 0, false, ReasonFresh},
		{"corrupt info fresh dir", `{"pid":`, 0, false, ReasonFresh},
		{"corrupt info old dir", `not json`, 31 * time.Minute, true, ReasonIncomplete},
		{"empty info 11 s", ``, 11 * time.Second, true, ReasonIncomplete},
		{"plain mkdir fresh", "-", 0, false, ReasonFresh},
		{"plain mkdir 5 s", "-", 5 * time.Second, false, ReasonFresh},
		{"plain mkdir 11 s", "-", 11 * time.Second, true, ReasonIncomplete},
		{"plain mkdir 29 minutes", "-", 29 * time.Minute, true, ReasonIncomplete},
		{"plain mkdir, mtime an hour ahead", "-", -time.Hour, true, ReasonIncomplete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRoot(t)
			if c.info == "-" {
				os.Mkdir(filepath.Join(r.Dir, ".novel.lock"), 0o755)
			} else {
				writeInfoFile(t, r, c.info)
			}
			setDirAge(t, r, c.dirAge)
			st, err := Inspect(r, Options{StaleMinutes: 30})
			if err != nil {
				t.Fatal(err)
			}
			if st.Stale != c.stale || st.Reason != c.reason {
				t.Fatalf("stale=%v reason=%s, want %v %s", st.Stale, st.Reason, c.stale, c.reason)
			}
			_, err = Acquire(r, Options{PID: os.Getppid(), StaleMinutes: 30})
			if c.stale && err != nil {
				t.Fatalf("stale lock not broken: %v", err)
			}
			if !c.stale {
				wantCode(t, err, errs.LockHeld, errs.ExitBusy)
			}
		})
	}
}

func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	// Not reaped yet: the child becomes a zombie once it exits.
	deadline := time.Now().Add(10 * time.Second)
	for liveness(pid, 0) == alive && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := liveness(pid, 0); got != zombie {
		t.Fatalf("liveness of an unreaped exited child = %s, want zombie", got)
	}
}

func TestReleaseOwnershipAndForce(t *testing.T) {
	r := newRoot(t)
	a, err := Acquire(r, Options{PID: os.Getppid()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Release(r, "wrong", false)
	wantCode(t, err, errs.LockNotOwner, errs.ExitFailed)
	_, err = Heartbeat(r, "wrong", Options{})
	wantCode(t, err, errs.LockNotOwner, errs.ExitFailed)
	hb, err := Heartbeat(r, a.Token, Options{})
	if err != nil || hb.PID != os.Getppid() {
		t.Fatalf("heartbeat: %v %+v", err, hb)
	}
	res, err := Release(r, "wrong", true)
	if err != nil || !res.Released || !res.Forced {
		t.Fatalf("forced release: %v %+v", err, res)
	}
	// The owner's lock was broken by force: its release is E_LOCK_LOST
	// (SPEC §27), a second forced release a no-op.
	_, err = Release(r, a.Token, false)
	wantCode(t, err, errs.LockLost, errs.ExitFailed)
	res, err = Release(r, "", true)
	if err != nil || res.Released || res.Reason != ReasonNoLock {
		t.Fatalf("forced release without lock: %v %+v", err, res)
	}
}

// A leased lock is held whatever its pid, renewed by its token (also
// through HeldBy, which every writer's Guard calls), stale once the lease
// has run out, and a renewal by another token is E_LOCK_LOST.
func TestLease(t *testing.T) {
	r := newRoot(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dead := deadPIDValue(t)
	a, err := Acquire(r, Options{PID: dead, Lease: 30 * time.Minute, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if a.LeaseUntil == nil || *a.LeaseUntil != "2026-11-27T10:30:00Z" {
		t.Fatalf("lease_until %v", a.LeaseUntil)
	}
	st, err := Inspect(r, Options{Now: clock})
	if err != nil || st.Stale || st.Reason != ReasonLeased {
		t.Fatalf("leased lock with a dead pid: %v %+v", err, st)
	}
	_, err = Acquire(r, Options{PID: os.Getpid(), Now: clock})
	wantCode(t, err, errs.LockHeld, errs.ExitBusy)
	_, err = Renew(r, "wrong", 0, Options{Now: clock})
	wantCode(t, err, errs.LockLost, errs.ExitFailed)

	now = now.Add(20 * time.Minute)
	rn, err := Renew(r, a.Token, 0, Options{Now: clock})
	if err != nil || rn.LeaseUntil != "2026-11-27T10:50:00Z" {
		t.Fatalf("renew by the recorded length: %v %+v", err, rn)
	}
	now = now.Add(31 * time.Minute)
	st, _ = Inspect(r, Options{Now: clock})
	if !st.Stale || st.Reason != ReasonLeaseExpired {
		t.Fatalf("after the lease: %+v", st)
	}
	// Nobody broke it, so its token may still renew it.
	if rn, err = Renew(r, a.Token, time.Hour, Options{Now: clock}); err != nil || rn.LeaseUntil != "2026-11-27T11:51:00Z" {
		t.Fatalf("renew after expiry: %v %+v", err, rn)
	}
	held, err := HeldBy(r, a.Token)
	if err != nil || !held {
		t.Fatalf("HeldBy the lease's token: %v %v", held, err)
	}
	if _, err := Acquire(r, Options{PID: os.Getpid(), Lease: 25 * time.Hour}); err == nil {
		t.Fatal("a 25h lease was accepted")
	}
}

func TestBreakRefusesLiveUnlessForced(t *testing.T) {
	r := newRoot(t)
	if _, err := Acquire(r, Options{PID: os.Getppid()}); err != nil {
		t.Fatal(err)
	}
	_, err := Break(r, false, Options{})
	wantCode(t, err, errs.LockHeld, errs.ExitBusy)
	res, err := Break(r, true, Options{})
	if err != nil || !res.Released || !res.Forced || res.Reason != ReasonAlive {
		t.Fatalf("forced break: %v %+v", err, res)
	}
}

func TestLockPathIsAFile(t *testing.T) {
	r := newRoot(t)
	os.WriteFile(filepath.Join(r.Dir, ".novel.lock"), []byte("x"), 0o644)
	_, err := Acquire(r, Options{PID: os.Getpid()})
	wantCode(t, err, errs.IO, errs.ExitFailed)
	_, err = Inspect(r, Options{})
	wantCode(t, err, errs.IO, errs.ExitFailed)
}

func TestInfoFieldOrder(t *testing.T) {
	r := newRoot(t)
	if _, err := Acquire(r, Options{PID: os.Getpid(), Chapter: 3, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }, Host: "h1"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(r.Dir, ".novel.lock", "info.json"))
	var info Info
	if err := jsonDecode(data, &info); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"pid\": " + strconv.Itoa(os.Getpid()) + ",\n  \"host\": \"h1\",\n  \"started\": \"2026-01-02T03:04:05Z\",\n  \"heartbeat\": \"2026-01-02T03:04:05Z\",\n  \"chapter\": 3,\n  \"token\": \"" + info.Token + "\",\n  \"pid_start\": " + strconv.FormatUint(info.PIDStart, 10) + "\n}\n"
	if string(data) != want || len(info.Token) != 32 || info.PIDStart == 0 {
		t.Fatalf("info.json =\n%s\nwant\n%s", data, want)
	}
}

func jsonDecode(data []byte, v any) error { return jsonio.Decode(data, "info.json", v) }

// A tool handed NOVEL_LOCK_TOKEN checks that the holder recorded with that
// token is alive (pid + pid_start): the orphan of a killed `novel-lock run`
// must not go on writing (field trial B1; SPEC §4).
func TestGuardRefusesTokenOfDeadHolder(t *testing.T) {
	host := hostname()
	now := stamp(time.Now())
	cases := map[string]string{
		"dead pid":   `{"pid":` + strconv.Itoa(deadPIDValue(t)) + `,"host":"` + host + `","started":"` + now + `","token":"tok"}`,
		"reused pid": `{"pid":` + strconv.Itoa(os.Getpid()) + `,"pid_start":1,"host":"` + host + `","started":"` + now + `","token":"tok"}`,
		"zombie":     "",
	}
	z := exec.Command("/bin/sh", "-c", "exit 0")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	for i := 0; i < 500 && liveness(z.Process.Pid, 0) != zombie; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	cases["zombie"] = `{"pid":` + strconv.Itoa(z.Process.Pid) + `,"host":"` + host + `","started":"` + now + `","token":"tok"}`
	for name, info := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRoot(t)
			writeInfoFile(t, r, info)
			before, _ := os.ReadFile(filepath.Join(r.Dir, ".novel.lock", "info.json"))
			release, err := Guard(r, func(k string) string { return map[string]string{TokenEnv: "tok"}[k] }, 0, 30)
			wantCode(t, err, errs.LockNotOwner, errs.ExitBusy)
			release()
			after, _ := os.ReadFile(filepath.Join(r.Dir, ".novel.lock", "info.json"))
			if string(before) != string(after) {
				t.Fatal("the refused guard changed the lock")
			}
		})
	}
	// Another host's holder cannot be checked here: its token is trusted.
	r := newRoot(t)
	writeInfoFile(t, r, `{"pid":1,"host":"elsewhere","started":"`+now+`","token":"tok"}`)
	if _, err := Guard(r, func(k string) string { return map[string]string{TokenEnv: "tok"}[k] }, 0, 30); err != nil {
		t.Fatal(err)
	}
}
