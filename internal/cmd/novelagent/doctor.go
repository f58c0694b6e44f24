package novelagent

import (
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/doctor"
	"github.com/novelsuite/novel/internal/settings"
)

type doctorCmd struct {
	Offline bool `help:"Skip the network: check the project, the tools and the configuration only."`
}

// Run prints the doctor's report; exit 0 when the configuration is
// usable, 1 otherwise, with no error line (SPEC §26: it is a report).
func (c *doctorCmd) Run(ctx *cli.Context) error {
	o := doctor.Options{Getenv: ctx.Getenv, Offline: c.Offline, Lang: "zh"}
	o.Root, o.RootErr = ctx.Root()
	if o.RootErr == nil && o.Root.Require() != nil {
		o.Root, o.RootErr = nil, o.Root.Require()
	}
	if o.Root != nil {
		o.Lang = settings.LoadLanguage(o.Root)
		if rel, err := filepath.Rel(ctx.Cwd, o.Root.Dir); err == nil {
			o.RootRel = rel
		} else {
			o.RootRel = o.Root.Dir
		}
	}
	if exe, err := os.Executable(); err == nil {
		o.SelfDir = filepath.Dir(exe)
	}
	r := doctor.Run(o)
	ctx.Result(r, func() string { return r.Text(o.Lang) })
	if !r.Usable {
		ctx.ReportExit(1)
	}
	return nil
}
