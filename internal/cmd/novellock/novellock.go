// Package novellock is the command surface of novel-lock (SPEC §4); the
// protocol lives in internal/lock.
package novellock

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/lock"
)

type grammar struct {
	cli.Globals `embed:""`
	Acquire     acquireCmd   `cmd:"" help:"Take the project lock; prints the owner token."`
	Release     releaseCmd   `cmd:"" help:"Release the lock (owner token, or --force)."`
	Heartbeat   heartbeatCmd `cmd:"" help:"Refresh the holder's heartbeat."`
	Renew       renewCmd     `cmd:"" help:"Extend a leased lock (the token acquire printed); E_LOCK_LOST when it is no longer yours."`
	Status      statusCmd    `cmd:"" help:"Show whether the lock exists, who holds it, its age and whether it is stale."`
	Break       breakCmd     `cmd:"" help:"Remove a stale lock (any lock with --force)."`
	Run         runCmd       `cmd:"" help:"Run a command holding the lock (exports NOVEL_LOCK_TOKEN); exits with its status."`
}

// staleMinutes reads lock_stale_minutes from the project settings.
func staleMinutes(ctx *cli.Context) (int, error) {
	s, err := ctx.Settings()
	if err != nil {
		return 0, err
	}
	return s.LockStaleMinutes, nil
}

type acquireCmd struct {
	Chapter int           `type:"chapter" help:"Chapter being written (recorded in info.json)." placeholder:"C"`
	PID     int           `name:"pid" help:"Holder pid to record (default: the calling shell, i.e. this process's parent)." placeholder:"P"`
	Lease   time.Duration `help:"Take a leased lock, held for this long whatever the pid (e.g. 30m; at most 24h): for agents whose every command runs in a fresh shell. Commands run with NOVEL_LOCK_TOKEN set to the token renew it." placeholder:"DURATION"`
}

func (c *acquireCmd) Run(ctx *cli.Context) error {
	pid := c.PID
	if pid == 0 {
		pid = os.Getppid()
	} else if pid < 0 || !lock.Alive(pid) {
		return cli.UsageError(fmt.Sprintf("--pid %d 不是本机上正在运行的进程", c.PID), fmt.Sprintf("--pid %d is not a running process on this host", c.PID))
	}
	root, err := ctx.Project()
	if err != nil {
		return err
	}
	limit, err := staleMinutes(ctx)
	if err != nil {
		return err
	}
	a, err := lock.Acquire(root, lock.Options{PID: pid, Chapter: c.Chapter, StaleMinutes: limit, Lease: c.Lease})
	if err != nil {
		return err
	}
	ctx.Result(a, func() string { return a.Token })
	return nil
}

type releaseCmd struct {
	Token string `help:"The token acquire printed." placeholder:"T"`
	Force bool   `help:"Release whoever holds it (for a person clearing a lock by hand)."`
}

func (c *releaseCmd) Run(ctx *cli.Context) error {
	if c.Token == "" && !c.Force {
		return cli.UsageError("release 需要 --token T（或 --force）", "release needs --token T (or --force)")
	}
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	r, err := lock.Release(root, c.Token, c.Force)
	if err != nil {
		return err
	}
	ctx.Result(r, func() string { return releaseText(r, "released") })
	return nil
}

func releaseText(r *lock.ReleaseResult, verb string) string {
	if !r.Released {
		return "no lock"
	}
	if r.Forced {
		return verb + " (forced)"
	}
	return verb
}

type heartbeatCmd struct {
	Token string `required:"" help:"The token acquire printed." placeholder:"T"`
}

func (c *heartbeatCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	r, err := lock.Heartbeat(root, c.Token, lock.Options{})
	if err != nil {
		return err
	}
	ctx.Result(r, func() string { return r.Heartbeat })
	return nil
}

type renewCmd struct {
	Token string        `required:"" help:"The token acquire printed." placeholder:"T"`
	Lease time.Duration `help:"New lease length from now (default: the length the lock was taken with, else 30m; at most 24h)." placeholder:"DURATION"`
}

func (c *renewCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	r, err := lock.Renew(root, c.Token, c.Lease, lock.Options{})
	if err != nil {
		return err
	}
	ctx.Result(r, func() string { return r.LeaseUntil })
	return nil
}

type statusCmd struct{}

func (statusCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	limit, err := staleMinutes(ctx)
	if err != nil {
		return err
	}
	st, err := lock.Inspect(root, lock.Options{StaleMinutes: limit})
	if err != nil {
		return err
	}
	ctx.Result(st, func() string { return statusText(st) })
	return nil
}

func statusText(st *lock.Status) string {
	if !st.Exists {
		return "no lock"
	}
	state := "held"
	if st.Stale {
		state = "stale"
	}
	return fmt.Sprintf("%s (%s): %s", state, st.Reason, st.Describe("en"))
}

type breakCmd struct {
	Force bool `help:"Also break a live lock (only when you know the holder is gone)."`
}

func (c *breakCmd) Run(ctx *cli.Context) error {
	root, err := ctx.Root()
	if err != nil {
		return err
	}
	limit, err := staleMinutes(ctx)
	if err != nil {
		return err
	}
	r, err := lock.Break(root, c.Force, lock.Options{StaleMinutes: limit})
	if err != nil {
		return err
	}
	ctx.Result(r, func() string {
		if !r.Released {
			return "no lock"
		}
		return releaseText(r, "broken") + ": " + r.Reason
	})
	return nil
}

type runCmd struct {
	Chapter int      `type:"chapter" help:"Chapter being written (recorded in info.json)." placeholder:"C"`
	Command []string `arg:"" optional:"" passthrough:"" help:"The command to run, after --." placeholder:"CMD"`

	ran    bool
	status int
}

func (c *runCmd) Run(ctx *cli.Context) error {
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	} else if len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
		// passthrough swallows a mistyped flag as the command; refuse it.
		return cli.UsageError(fmt.Sprintf("未知选项 %s；要运行的命令请放在 -- 之后", argv[0]), fmt.Sprintf("unknown flag %s; put the command to run after --", argv[0]))
	}
	if len(argv) == 0 {
		return cli.UsageError("run 需要在 -- 之后给出要运行的命令", "run needs a command after --")
	}
	root, err := ctx.Project()
	if err != nil {
		return err
	}
	limit, err := staleMinutes(ctx)
	if err != nil {
		return err
	}
	status, err := lock.RunLocked(root, argv, lock.RunOptions{
		Chapter: c.Chapter, StaleMinutes: limit, Getenv: ctx.Getenv,
		Env: os.Environ(), Stdin: ctx.In, Stdout: ctx.Out, Stderr: ctx.Err,
	})
	if err != nil {
		return err
	}
	c.ran, c.status = true, status
	return nil
}

// Main runs novel-lock. `run` exits with its command's status, which the
// shared runner cannot express, so it is picked up here.
func Main() int {
	// `run` starts this binary as the keeper of its command (lock.KeeperMain).
	if code, ok := lock.KeeperMain(); ok {
		return code
	}
	g := &grammar{}
	code := cli.Main("novel-lock", "novel-lock: the project lock .novel.lock/ (SPEC §4). Lock ages use the real clock; NOVEL_NOW does not apply.", g)
	if code == 0 && g.Run.ran {
		return g.Run.status
	}
	return code
}
