package jsonio

import (
	"os"

	"golang.org/x/sys/unix"
)

// readPlainAt reads name in dir with raw system calls (openat without
// following a final symlink, read to the end, close): no *os.File, whose
// poller registration and Stat are two more calls per file, and no walk
// of the full path, which a directory of hundreds of small files pays
// hundreds of times. It reads at most MaxFileSize+1 bytes into scratch
// (grown as needed) and returns how many.
func readPlainAt(dir *os.File, name string, scratch []byte) (int, []byte, error) {
	fd, err := retry(func() (int, error) {
		return unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	})
	if err != nil {
		return 0, scratch, err
	}
	defer unix.Close(fd)
	if len(scratch) < 64<<10 {
		scratch = make([]byte, 64<<10)
	}
	n := 0
	for {
		if n == len(scratch) {
			if n > MaxFileSize {
				return n, scratch, nil
			}
			scratch = append(scratch, make([]byte, len(scratch))...)
		}
		m, err := retry(func() (int, error) { return unix.Read(fd, scratch[n:]) })
		if err != nil {
			return 0, scratch, err
		}
		if m == 0 {
			return n, scratch, nil
		}
		n += m
	}
}

// retry repeats a system call interrupted by a signal.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// mapOpen maps the open regular file f (size bytes) copy-on-write: the
// kernel shares its page-cache pages instead of faulting in, clearing
// and copying a fresh buffer (on a 5 MiB state file that was most of a
// short command's cost beyond its start-up). Writes to the bytes stay
// private. The mapping is never released (see MapFile).
func mapOpen(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
}
