package lock

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the terminal end of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// With a terminal on stdin the command shares the caller's process group
// (it may read the terminal), so the keeper cannot kill a group: killing
// `run` alone must still take the command and its descendants with it.
func TestRunKilledWithTerminalTakesTheCommandTreeWithIt(t *testing.T) {
	tty := openPTY(t)
	if !isTerminal(tty) {
		t.Skip("the pty is not a terminal")
	}
	root := t.TempDir()
	c := exec.Command(os.Args[0])
	c.Dir = root
	c.Env = append(os.Environ(), "LOCK_TEST_HELPER=run", "LOCK_TEST_ROOT="+root, "LOCK_TEST_STDIN=1",
		"LOCK_TEST_ARGV=/bin/sh\x1f-c\x1f/bin/sh -c 'echo $$ > inner.tmp && mv inner.tmp inner && exec sleep 60'; echo survived > survived",
		TokenEnv+"=")
	c.Stdin = tty
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	killRunAndCheckTree(t, c, root)
}
