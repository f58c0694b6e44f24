package lock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// The test binary doubles as the competing processes: with
// LOCK_TEST_HELPER set it runs one lock operation and exits.
func TestMain(m *testing.M) {
	if code, ok := KeeperMain(); ok {
		os.Exit(code)
	}
	switch os.Getenv("LOCK_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "acquire":
		os.Exit(helperAcquire())
	case "run":
		os.Exit(helperRun())
	case "acquire-pause":
		os.Exit(helperAcquirePause())
	}
	os.Exit(99)
}

func helperRoot() *project.Root {
	r, err := project.New(os.Getenv("LOCK_TEST_ROOT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(98)
	}
	return r
}

// helperAcquire waits for the go signal on stdin, then acquires for its
// parent (the test process, alive). Exit 0 = won, 4 = held.
func helperAcquire() int {
	r := helperRoot()
	io.ReadFull(os.Stdin, make([]byte, 1))
	_, err := Acquire(r, Options{PID: os.Getppid()})
	if err == nil {
		return 0
	}
	if e := errs.As(err); e != nil {
		if e.Code != errs.LockHeld {
			fmt.Fprintln(os.Stderr, e)
		}
		return e.Exit
	}
	return 97
}

// helperAcquirePause acquires for itself and, between the lock's mkdir
// and its info write, announces LOCK_TEST_READY and pauses, so the test
// can signal it inside that window.
func helperAcquirePause() int {
	r := helperRoot()
	after := func() {
		os.WriteFile(os.Getenv("LOCK_TEST_READY"), nil, 0o644)
		// Stay in the window until the test has sent its signal.
		for i := 0; i < 1000; i++ {
			if _, err := os.Stat(os.Getenv("LOCK_TEST_READY") + ".sent"); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := Acquire(r, Options{PID: os.Getpid(), AfterMkdir: after}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return errs.Coerce(err).Exit
	}
	return 0
}

func helperRun() int {
	r := helperRoot()
	argv := strings.Split(os.Getenv("LOCK_TEST_ARGV"), "\x1f")
	var stdin io.Reader
	if os.Getenv("LOCK_TEST_STDIN") != "" {
		stdin = os.Stdin // a terminal: the command stays in our group
	}
	st, err := RunLocked(r, argv, RunOptions{Getenv: os.Getenv, Env: os.Environ(), Stdin: stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return errs.Coerce(err).Exit
	}
	return st
}

// race starts n helpers that acquire at the same moment and returns how
// many won.
func race(t *testing.T, root string, n int) int {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	pipes := make([]io.WriteCloser, n)
	for i := range cmds {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "LOCK_TEST_HELPER=acquire", "LOCK_TEST_ROOT="+root)
		c.Stderr = os.Stderr
		w, err := c.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i], pipes[i] = c, w
	}
	for _, w := range pipes {
		w.Write([]byte{1})
		w.Close()
	}
	won := 0
	for _, c := range cmds {
		err := c.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			won++
		case errors.As(err, &ee) && ee.ExitCode() == errs.ExitBusy:
		default:
			t.Fatalf("helper failed: %v", err)
		}
	}
	return won
}

func TestConcurrentAcquireExactlyOneWins(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 400 processes")
	}
	for i := 0; i < 100; i++ {
		root := t.TempDir()
		if won := race(t, root, 4); won != 1 {
			t.Fatalf("round %d: %d processes won the free lock, want exactly 1", i, won)
		}
	}
}

func TestConcurrentStaleBreakersExactlyOneWins(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 400 processes")
	}
	dead := deadPIDValue(t)
	info := `{"pid":` + strconv.Itoa(dead) + `,"host":"` + hostname() + `","started":"2020-01-01T00:00:00Z","token":"old"}`
	for i := 0; i < 100; i++ {
		r := newRoot(t)
		writeInfoFile(t, r, info)
		if won := race(t, r.Dir, 4); won != 1 {
			t.Fatalf("round %d: %d processes hold the lock after breaking a stale one, want exactly 1", i, won)
		}
		if tok := Token(r); tok == "old" || tok == "" {
			t.Fatalf("round %d: the stale lock was not replaced (token %q)", i, tok)
		}
	}
}

func startRun(t *testing.T, root string, argv ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	c := exec.Command(os.Args[0])
	c.Dir = root
	c.Env = append(os.Environ(), "LOCK_TEST_HELPER=run", "LOCK_TEST_ROOT="+root,
		"LOCK_TEST_ARGV="+strings.Join(argv, "\x1f"), heartbeatEnv+"=0.05", TokenEnv+"=")
	// Output goes to a file, not a pipe: a leaked grandchild holding a
	// pipe would make Wait hang instead of failing the test.
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c.Stdout = f
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, f
}

func output(t *testing.T, f *os.File) string {
	t.Helper()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func exitOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if _, err := os.Stat(p); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", p)
}

func lockGone(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, ".novel.lock")); !os.IsNotExist(err) {
		t.Fatalf("lock still present after run ended (%v)", err)
	}
}

func TestRunPassesStatusAndReleases(t *testing.T) {
	for _, want := range []int{0, 3, 42} {
		root := t.TempDir()
		c, out := startRun(t, root, "/bin/sh", "-c", `test -d .novel.lock && test "$NOVEL_LOCK_HELD" = 1 && echo "$NOVEL_LOCK_TOKEN"; exit `+strconv.Itoa(want))
		got := exitOf(t, c.Wait())
		if got != want {
			t.Fatalf("run exit %d, want %d", got, want)
		}
		if tok := strings.TrimSpace(output(t, out)); len(tok) != 32 {
			t.Fatalf("command did not see the lock and its token: %q", output(t, out))
		}
		lockGone(t, root)
	}
}

func TestRunReleasesOnSIGTERMAndKillsTheCommandTree(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		root := t.TempDir()
		// A grandchild in the foreground (a background job would ignore
		// SIGINT by shell rules); its pid is published once it is running.
		c, _ := startRun(t, root, "/bin/sh", "-c", `/bin/sh -c 'echo $$ > sleeper.tmp && mv sleeper.tmp sleeper && exec sleep 60'; echo survived > survived`)
		waitFile(t, filepath.Join(root, "sleeper"))
		data, _ := os.ReadFile(filepath.Join(root, "sleeper"))
		sleeper, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		if err := c.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		got := exitOf(t, c.Wait())
		if got != 128+int(sig) {
			t.Fatalf("run after %v exited %d, want %d", sig, got, 128+int(sig))
		}
		lockGone(t, root)
		if _, err := os.Stat(filepath.Join(root, "survived")); err == nil {
			t.Fatalf("the command's shell survived %v", sig)
		}
		// The signal reached the command's whole process group.
		var alive bool
		for i := 0; i < 500; i++ {
			if alive = liveness(sleeper, 0) == "alive"; !alive {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if alive {
			syscall.Kill(sleeper, syscall.SIGKILL)
			t.Fatalf("%v was not forwarded to the command's children", sig)
		}
	}
}

func TestRunRefreshesHeartbeat(t *testing.T) {
	root := t.TempDir()
	// The heartbeat has second resolution; the command waits until it
	// sees the heartbeat move (giving up after a generous minute).
	c, _ := startRun(t, root, "/bin/sh", "-c",
		`first=$(grep heartbeat .novel.lock/info.json); n=0; while [ "$(grep heartbeat .novel.lock/info.json)" = "$first" ]; do n=$((n+1)); [ $n -lt 600 ] || exit 1; sleep 0.1; done; echo moved > moved`)
	if got := exitOf(t, c.Wait()); got != 0 {
		t.Fatalf("run exit %d", got)
	}
	if _, err := os.Stat(filepath.Join(root, "moved")); err != nil {
		t.Fatal("heartbeat never moved")
	}
	lockGone(t, root)
}

func TestRunRefusedWhileHeld(t *testing.T) {
	r := newRoot(t)
	if _, err := Acquire(r, Options{PID: os.Getpid(), Chapter: 9}); err != nil {
		t.Fatal(err)
	}
	c, out := startRun(t, r.Dir, "/bin/sh", "-c", "echo ran")
	if got := exitOf(t, c.Wait()); got != errs.ExitBusy {
		t.Fatalf("run under a held lock exited %d, want 4", got)
	}
	if got := output(t, out); got != "" {
		t.Fatalf("the command ran: %q", got)
	}
}

func TestRunNestedUnderMatchingToken(t *testing.T) {
	r := newRoot(t)
	a, err := Acquire(r, Options{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "LOCK_TEST_HELPER=run", "LOCK_TEST_ROOT="+r.Dir,
		"LOCK_TEST_ARGV=/bin/sh\x1f-c\x1fexit 5", TokenEnv+"="+a.Token)
	if got := exitOf(t, c.Run()); got != 5 {
		t.Fatalf("nested run exit %d, want 5", got)
	}
	if Token(r) != a.Token {
		t.Fatal("nested run released the outer lock")
	}
}

// signalInWindow starts helperAcquirePause, waits until it is inside the
// mkdir → info.json window, sends sig and lets it go on.
func signalInWindow(t *testing.T, root string, sig os.Signal) *exec.Cmd {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "LOCK_TEST_HELPER=acquire-pause", "LOCK_TEST_ROOT="+root, "LOCK_TEST_READY="+ready)
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, ready)
	if err := c.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ready+".sent", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// Ctrl-C inside acquire (field trial B2: 1 of 15 random SIGINTs left an
// info-less lock for 30 minutes) leaves no lock at all: the signal is held
// until info.json is written, the lock is removed again and the process
// dies of the signal.
func TestAcquireInterruptedLeavesNoLock(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		r := newRoot(t)
		c := signalInWindow(t, r.Dir, sig)
		err := c.Wait()
		ws, _ := c.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != sig {
			t.Fatalf("%v inside acquire: exit %v, want death by the signal", sig, err)
		}
		lockGone(t, r.Dir)
		if _, err := Acquire(r, Options{PID: os.Getpid()}); err != nil {
			t.Fatal(err)
		}
	}
}

// SIGKILL inside acquire leaves an info-less lock; with the flock free it
// is held only while it is younger than 10 s, then stale (incomplete) —
// never lock_stale_minutes.
func TestAcquireKilledLeavesShortLivedLock(t *testing.T) {
	r := newRoot(t)
	c := signalInWindow(t, r.Dir, os.Kill)
	c.Wait()
	st, err := Inspect(r, Options{StaleMinutes: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exists || st.Stale || st.Holder.Info != InfoMissing {
		t.Fatalf("right after the kill: %+v", st)
	}
	setDirAge(t, r, 11*time.Second)
	a, err := Acquire(r, Options{PID: os.Getpid(), StaleMinutes: 30})
	if err != nil {
		t.Fatal(err)
	}
	if a.BrokeStale == nil || a.BrokeStale.Reason != ReasonIncomplete {
		t.Fatalf("broke_stale %+v", a.BrokeStale)
	}
}

// SIGKILL of `novel-lock run` alone (what `kill -9 -PGID` of the user's
// group does, since the command has a group of its own): the command's whole
// tree dies with it, so no orphan goes on working without the lock (field
// trial B1: the inner make kept calling the agent and committing).
func TestRunKilledTakesTheCommandTreeWithIt(t *testing.T) {
	root := t.TempDir()
	// make → recipe shell → agent: a grandchild that would survive its parent.
	c, _ := startRun(t, root, "/bin/sh", "-c", `/bin/sh -c 'echo $$ > inner.tmp && mv inner.tmp inner && exec sleep 60'; echo survived > survived`)
	killRunAndCheckTree(t, c, root)
	// The lock is left with a dead holder: stale, broken by the next acquire.
	st, err := Inspect(mustRoot(t, root), Options{})
	if err != nil || !st.Stale {
		t.Fatalf("lock after the kill: %+v %v", st, err)
	}
}

// killRunAndCheckTree kills the run c, whose command wrote the pid of its
// inner shell to root/inner, and checks that the inner process died
// within 5 s and the command's shell went no further (root/survived).
func killRunAndCheckTree(t *testing.T, c *exec.Cmd, root string) {
	t.Helper()
	waitFile(t, filepath.Join(root, "inner"))
	data, _ := os.ReadFile(filepath.Join(root, "inner"))
	inner, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	c.Process.Kill()
	c.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for liveness(inner, 0) == alive && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if liveness(inner, 0) == alive {
		syscall.Kill(inner, syscall.SIGKILL)
		t.Fatal("the command's tree outlived the killed run by 5 s")
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(root, "survived")); err == nil {
		t.Fatal("the command's shell went on after run was killed")
	}
}

// killTree (a command that shares the terminal's group) stops and kills a
// process and all its descendants.
func TestKillTree(t *testing.T) {
	dir := t.TempDir()
	c := exec.Command("/bin/sh", "-c", `sleep 60 & echo $! > a; /bin/sh -c 'echo $$ > b.tmp; mv b.tmp b; exec sleep 60'`)
	c.Dir = dir
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(dir, "b"))
	waitFile(t, filepath.Join(dir, "a"))
	var pids []int
	for _, f := range []string{"a", "b"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		pids = append(pids, n)
	}
	killTree(c.Process.Pid)
	defer c.Wait()
	defer c.Process.Kill()
	for _, p := range pids {
		for i := 0; i < 500 && liveness(p, 0) == alive; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if liveness(p, 0) == alive {
			syscall.Kill(p, syscall.SIGKILL)
			t.Fatalf("descendant %d survived killTree", p)
		}
	}
}

func mustRoot(t *testing.T, dir string) *project.Root {
	t.Helper()
	r, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
