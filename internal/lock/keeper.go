package lock

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// The keeper makes `run`'s command die with `run` (SPEC §4). A SIGKILL of
// the user's process group kills `run` but not the command, which has a
// group of its own (so forwarded signals reach make's recipe shells and
// agents); PR_SET_PDEATHSIG only reaches the direct child (make), not what
// make started. So `run` starts a small helper — this same binary, in a
// process group of its own — whose stdin is a pipe only `run` can write.
// `run` sends the command's pid, and "done" once the command has ended;
// end of input without "done" means `run` died, and the keeper SIGKILLs
// the command's whole group (or, when the command shares the terminal's
// group, the command and all its descendants).
const keeperEnv = "NOVEL_LOCK_KEEPER"

const (
	keepGroup = "group" // the command leads its own process group
	keepTree  = "tree"  // the command shares the caller's group
)

// KeeperMain runs the keeper when this process was started as one and
// reports whether it was. Binaries that host `novel-lock run` call it first.
func KeeperMain() (int, bool) {
	mode, ok := strings.CutPrefix(os.Getenv(keeperEnv), "v1 ")
	if !ok || (mode != keepGroup && mode != keepTree) {
		return 0, false
	}
	// Signals meant for the command or the terminal are not the keeper's.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	keep(mode, os.Stdin)
	return 0, true
}

// keep reads the command's pid, waits for the end of input and, unless
// the last line was "done", kills the command.
func keep(mode string, in io.Reader) {
	r := bufio.NewReader(in)
	line, err := r.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil || pid <= 1 {
		return // run ended (or died) before starting the command
	}
	rest, _ := io.ReadAll(r)
	if bytes.Equal(bytes.TrimSpace(rest), []byte("done")) {
		return
	}
	if mode == keepGroup {
		syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	killTree(pid)
}

// keeper is `run`'s end of the pipe.
type keeper struct{ w *os.File }

// startKeeper starts the keeper for a command in mode. It returns nil when
// no keeper could be started (no /proc): the command's own
// PR_SET_PDEATHSIG and the tools' holder check (HeldBy) still apply.
func startKeeper(mode string, env []string, stderr io.Writer) *keeper {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer pr.Close()
	// /proc/self/exe is this binary whatever its name or PATH; argv[0] is
	// kept, since test binaries dispatch on it.
	kc := exec.Command("/proc/self/exe")
	kc.Args = []string{os.Args[0]}
	kc.Env = append(append([]string{}, env...), keeperEnv+"=v1 "+mode)
	kc.Stdin = pr
	kc.Dir = "/"
	kc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := kc.Start(); err != nil {
		pw.Close()
		if stderr != nil {
			fmt.Fprintf(stderr, "novel-lock: cannot start the keeper that stops the command if run is killed: %v\n", err)
		}
		return nil
	}
	go kc.Wait() // reap it whenever it ends
	return &keeper{w: pw}
}

// watch hands the keeper the started command's pid.
func (k *keeper) watch(pid int) {
	if k != nil {
		fmt.Fprintf(k.w, "%d\n", pid)
	}
}

// done tells the keeper the command ended normally and lets it go.
func (k *keeper) done() {
	if k != nil {
		k.w.Write([]byte("done\n"))
		k.w.Close()
	}
}

// killTree stops pid and every descendant, then SIGKILLs them all.
func killTree(pid int) {
	for _, p := range StopTree(pid) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// StopTree SIGSTOPs pid and every descendant, repeating until no new
// process appears (so none can fork away or finish a write meanwhile),
// and returns the stopped processes. The reliability tests freeze a whole
// pipeline with it too.
func StopTree(pid int) []int {
	stopped := map[int]bool{}
	var out []int
	for round := 0; round < 100; round++ {
		fresh := false
		for _, p := range descendants(pid) {
			if !stopped[p] {
				syscall.Kill(p, syscall.SIGSTOP)
				stopped[p], fresh = true, true
				out = append(out, p)
			}
		}
		if !fresh {
			break
		}
	}
	return out
}

// descendants returns pid and all its descendants, from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pid}
	}
	children := map[int][]int{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], n)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
