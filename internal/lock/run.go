package lock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// heartbeatEnv overrides the heartbeat interval of `run` (seconds, may be
// fractional); tests shorten it.
const heartbeatEnv = "NOVEL_LOCK_HEARTBEAT_SECONDS"

// defaultHeartbeat is how often `run` refreshes the heartbeat.
const defaultHeartbeat = 30 * time.Second

// RunOptions configure RunLocked.
type RunOptions struct {
	Chapter      int
	StaleMinutes int
	Getenv       func(string) string
	Env          []string // the child's base environment
	Stdin        io.Reader
	Stdout       io.Writer
	Stderr       io.Writer
}

// heartbeatInterval reads HeartbeatEnv (E_CONFIG when invalid).
func heartbeatInterval(getenv func(string) string) (time.Duration, error) {
	v := ""
	if getenv != nil {
		v = getenv(heartbeatEnv)
	}
	if v == "" {
		return defaultHeartbeat, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 86400 {
		return 0, errs.Newf(errs.Config, "%s=%q 无效：必须是 0 到 86400 之间的秒数", "%s=%q is invalid: it must be a number of seconds in (0, 86400]", heartbeatEnv, v).
			With("key", heartbeatEnv).With("source", "env").With("value", v).
			Hint("删除该变量或设为正数，例如 30", "unset it or set a positive number such as 30")
	}
	return time.Duration(f * float64(time.Second)), nil
}

// RunLocked runs argv holding the lock and returns the command's exit
// status (128+signal when a signal killed it). The lock is recorded with
// this process's own pid, its token is exported as NOVEL_LOCK_TOKEN (and
// NOVEL_LOCK_HELD=1), the heartbeat is refreshed while the command runs,
// SIGINT/SIGTERM/SIGHUP are forwarded, and the lock is released when the
// command ends. When NOVEL_LOCK_TOKEN already names the held lock the
// command simply runs under it (nesting).
func RunLocked(root *project.Root, argv []string, o RunOptions) (int, error) {
	if len(argv) == 0 {
		return 0, errs.New(errs.Usage, "run 需要在 -- 之后给出要运行的命令", "run needs a command after --").
			Hint("例如 novel-lock run -- make -f pipeline.mk chapter", "for example novel-lock run -- make -f pipeline.mk chapter")
	}
	every, err := heartbeatInterval(o.Getenv)
	if err != nil {
		return 0, err
	}
	// Catch signals before taking the lock, so none can end us between
	// acquiring and the deferred release.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	nested := false
	token := ""
	if o.Getenv != nil {
		tok := o.Getenv(TokenEnv)
		held, err := HeldBy(root, tok)
		if err != nil {
			return 0, err
		}
		nested, token = held, tok
	}
	if !nested {
		a, err := Acquire(root, Options{PID: os.Getpid(), Chapter: o.Chapter, StaleMinutes: o.StaleMinutes})
		if err != nil {
			return 0, err
		}
		token = a.Token
		defer func() {
			if _, err := Release(root, token, false); err != nil && o.Stderr != nil {
				fmt.Fprintf(o.Stderr, "novel-lock: releasing the lock failed: %v\n", err)
			}
		}()
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	cmd.Env = append(append([]string{}, o.Env...), TokenEnv+"="+token, "NOVEL_LOCK_HELD=1")
	// A command without a terminal gets its own process group, so a
	// forwarded signal reaches its whole tree (make's recipe shells, the
	// agent). With a terminal it stays in the foreground group so it can
	// read the terminal; Ctrl-C then reaches it directly.
	group := !isTerminal(o.Stdin)
	mode := keepTree
	if group {
		mode = keepGroup
		// PDEATHSIG fires when the forking thread dies, so the fork
		// happens on a thread this goroutine keeps until the command ends.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	// The command and everything it starts die with this process.
	keep := startKeeper(mode, o.Env, o.Stderr)
	defer keep.done()
	if err := cmd.Start(); err != nil {
		status := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			status = 127
		}
		return 0, errs.Newf(errs.Usage, "无法运行命令 %s：%v", "cannot run command %s: %v", argv[0], err).
			With("command", argv).Hint("检查命令名和 PATH", "check the command name and PATH").WithExit(status)
	}
	keep.watch(cmd.Process.Pid)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var ticker <-chan time.Time
	if !nested {
		t := time.NewTicker(every)
		defer t.Stop()
		ticker = t.C
	}
	warned := false
	for {
		select {
		case sig := <-sigs:
			s := sig.(syscall.Signal)
			if group {
				syscall.Kill(-cmd.Process.Pid, s)
			} else {
				syscall.Kill(cmd.Process.Pid, s)
			}
		case <-ticker:
			if _, err := Heartbeat(root, token, Options{}); err != nil && !warned && o.Stderr != nil {
				warned = true
				fmt.Fprintf(o.Stderr, "novel-lock: heartbeat failed: %v\n", err)
			}
		case err := <-done:
			return exitStatus(cmd, err), nil
		}
	}
}

func exitStatus(cmd *exec.Cmd, err error) int {
	ps := cmd.ProcessState
	if ps == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// isTerminal reports whether r is a terminal (TCGETS succeeds).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	return termios(f)
}
