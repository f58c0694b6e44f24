// Package lock implements the project lock (SPEC §4): the directory
// .novel.lock/ taken by a single mkdir (so a shell's plain mkdir
// interoperates), an info.json naming the holder, liveness by pid+host,
// staleness by age, and stale breaking serialised with a flock.
package lock

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/novelsuite/novel/internal/jsonio"
)

// Info is the canonical content of .novel.lock/info.json.
type Info struct {
	PID       int    `json:"pid"`
	Host      string `json:"host"`
	Started   string `json:"started"`
	Heartbeat string `json:"heartbeat"`
	Chapter   *int   `json:"chapter"`
	Token     string `json:"token"`
	PIDStart  uint64 `json:"pid_start,omitempty"`
	// A leased lock (SPEC §27) is held until LeaseUntil whatever its pid:
	// agent harnesses run every command in a fresh shell, so the pid that
	// acquired it is gone at once. LeaseSeconds is the length a renewal
	// extends it by.
	LeaseUntil   string `json:"lease_until,omitempty"`
	LeaseSeconds int    `json:"lease_seconds,omitempty"`
}

// Info states of a lock directory.
const (
	InfoOK      = "ok"
	InfoMissing = "missing"
	InfoEmpty   = "empty"
	InfoCorrupt = "corrupt"
)

// parsedInfo is info.json read leniently: a field with the wrong type is
// treated as absent, never as an error (other tools and shells write it).
type parsedInfo struct {
	State     string
	PID       int // 0 = none
	PIDStart  uint64
	Host      string // "" = unknown
	HasHost   bool
	Started   string
	Heartbeat string
	Chapter   *int
	Token     string
	// LeaseUntil is "" for a lock held by pid liveness.
	LeaseUntil   string
	LeaseSeconds int
}

func parseInfo(data []byte, err error) parsedInfo {
	if err != nil {
		if os.IsNotExist(err) {
			return parsedInfo{State: InfoMissing}
		}
		return parsedInfo{State: InfoCorrupt}
	}
	if len(bytes.TrimSpace(jsonio.StripBOM(data))) == 0 {
		return parsedInfo{State: InfoEmpty}
	}
	var raw map[string]any
	if jsonio.Decode(data, "info.json", &raw) != nil || raw == nil {
		return parsedInfo{State: InfoCorrupt}
	}
	p := parsedInfo{State: InfoOK}
	if n, ok := jsonio.Int(raw["pid"]); ok && n > 0 {
		p.PID = n
	}
	if n, ok := jsonio.Int(raw["pid_start"]); ok && n > 0 {
		p.PIDStart = uint64(n)
	}
	if s, ok := raw["host"].(string); ok && s != "" {
		p.Host, p.HasHost = s, true
	}
	p.Started, _ = raw["started"].(string)
	p.Heartbeat, _ = raw["heartbeat"].(string)
	if n, ok := jsonio.Int(raw["chapter"]); ok && n > 0 {
		p.Chapter = &n
	}
	p.Token, _ = raw["token"].(string)
	p.LeaseUntil, _ = raw["lease_until"].(string)
	if n, ok := jsonio.Int(raw["lease_seconds"]); ok && n > 0 {
		p.LeaseSeconds = n
	}
	return p
}

// parseTime accepts RFC 3339 (with or without fractional seconds).
func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// newToken returns 16 random bytes in hex.
func newToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to
		// something unique per process rather than panicking.
		return strconv.FormatInt(time.Now().UnixNano(), 16) + strconv.Itoa(os.Getpid())
	}
	return hex.EncodeToString(b[:])
}

// hostname is this machine's name as recorded in info.json.
func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// Liveness verdicts for a pid on this host.
const (
	alive     = "alive"
	deadPID   = "dead_pid"
	zombie    = "zombie"
	pidReused = "pid_reused"
)

// procStat reads state (field 3) and starttime (field 22) of
// /proc/PID/stat. exists is false when the process is gone; procOK is
// false when /proc is unusable (then the caller falls back to kill -0).
func procStat(pid int) (state byte, start uint64, exists, procOK bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if os.IsNotExist(err) {
			if _, serr := os.Stat("/proc/self/stat"); serr == nil {
				return 0, 0, false, true
			}
		}
		return 0, 0, false, false
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// ')' itself, so fields are counted after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, true, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0, 0, true, false
	}
	st, _ := strconv.ParseUint(f[19], 10, 64)
	return f[0][0], st, true, true
}

// pIDStart returns field 22 of /proc/PID/stat (0 when unavailable).
func pIDStart(pid int) uint64 {
	_, st, exists, ok := procStat(pid)
	if !exists || !ok {
		return 0
	}
	return st
}

// liveness judges a pid on this host: a missing pid, a zombie, or a
// start time different from the recorded one (the pid was reused) is
// not alive.
func liveness(pid int, recordedStart uint64) string {
	if pid <= 0 {
		return deadPID
	}
	state, start, exists, procOK := procStat(pid)
	if procOK {
		switch {
		case !exists:
			return deadPID
		case state == 'Z' || state == 'X':
			return zombie
		case recordedStart != 0 && start != 0 && start != recordedStart:
			return pidReused
		}
		return alive
	}
	// No usable /proc: signal 0 tells existence; EPERM means it exists.
	if err := syscall.Kill(pid, 0); err == nil || err == syscall.EPERM {
		return alive
	}
	return deadPID
}

// Alive reports whether pid is a live (non-zombie) process on this host.
func Alive(pid int) bool { return liveness(pid, 0) == alive }
