package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// groupWaitDelay bounds how long Wait keeps reading a command's pipes
// after the command was killed or exited: a process that left the group
// (setsid) and still holds stdout cannot hold the run.
const groupWaitDelay = 5 * time.Second

// errTimedOut is the cause of a command run's context when its timeout
// fired.
var errTimedOut = errors.New("timed out")

// interrupted is the cause of a command run's context when this process
// received a signal that ends it.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return "interrupted by " + signalName(i.sig) }

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// runGroup runs cmd (not yet started) in its own process group and ends
// the whole group when the timeout fires or this process is told to stop
// (SIGINT, SIGTERM, SIGHUP): `sh -c` forks the real CLI, so killing only
// the shell would leave the CLI running and holding stdout (field trial
// F11). The returned cause is nil, errTimedOut or an interrupted.
func runGroup(name string, args []string, timeout time.Duration, setup func(*exec.Cmd)) (cause, err error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(errTimedOut) })
	defer timer.Stop()
	go func() {
		select {
		case s := <-sigs:
			cancel(interrupted{s})
		case <-ctx.Done():
		}
	}()

	cmd := exec.CommandContext(ctx, name, args...)
	setup(cmd)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = groupWaitDelay
	err = cmd.Run()
	if ctx.Err() != nil {
		return context.Cause(ctx), err
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The command exited 0 but left a child holding its stdout: the
		// answer is complete, the stray goes with its group (still
		// populated, so the group id cannot have been reused).
		_ = killGroup(cmd.Process.Pid)
		return nil, nil
	}
	return nil, err
}

// killGroup kills every process in the group pgid leads.
func killGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
