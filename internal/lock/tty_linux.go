package lock

import (
	"os"
	"syscall"
	"unsafe"
)

// termios reports whether f is a terminal (the TCGETS ioctl succeeds).
func termios(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		var t syscall.Termios
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
		ok = e == 0
	})
	return ok
}
