// Package clock gives the suite its notion of "now": NOVEL_NOW (RFC 3339)
// when set, so runs are reproducible, else the system clock.
package clock

import (
	"time"

	"github.com/novelsuite/novel/internal/errs"
)

// Clock is a time source.
type Clock struct {
	fixed *time.Time
}

// FromEnv reads NOVEL_NOW through getenv.
func FromEnv(getenv func(string) string) (Clock, error) {
	v := getenv("NOVEL_NOW")
	if v == "" {
		return Clock{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return Clock{}, errs.Newf(errs.Config, "NOVEL_NOW=%q 不是 RFC 3339 时间", "NOVEL_NOW=%q is not an RFC 3339 time", v).
			With("key", "NOVEL_NOW").With("source", "env").Hint("例如 NOVEL_NOW=2026-01-02T03:04:05Z", "for example NOVEL_NOW=2026-01-02T03:04:05Z")
	}
	return Clock{fixed: &t}, nil
}

// Fixed reports whether NOVEL_NOW pins the time (durations are then 0).
func (c Clock) Fixed() bool { return c.fixed != nil }

// Now returns the current time.
func (c Clock) Now() time.Time {
	if c.fixed != nil {
		return *c.fixed
	}
	return time.Now().UTC()
}

// Stamp formats Now as RFC 3339.
func (c Clock) Stamp() string { return format(c.Now()) }

// format formats t as RFC 3339 (second precision).
func format(t time.Time) string { return t.Format(time.RFC3339) }
