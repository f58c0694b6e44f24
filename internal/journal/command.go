package journal

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
)

// Printer records a command's result (cli.Context does).
type Printer interface {
	Result(v any, text func() string)
}

// Locker runs fn under the project lock. moved says whether the
// checkpoint differs from first, the bytes the unlocked preparation read
// (nil: always moved). Commands that write the checkpoint lock through
// checkpoint.Update; migrate, whose checkpoint may still be a plugin's,
// through lock.Guard with moved always true.
type Locker func(first []byte, fn func(moved bool) error) error

// Command is one journaled command: the registry refuses it while a
// blocking transaction is unfinished, an unfinished journal of its own is
// resumed, otherwise a fresh one is prepared (validated before the lock,
// so a refused run writes nothing) and prepared again under the lock
// when the checkpoint moved in between.
type Command[J, O any] struct {
	Kind    Kind
	Arg     string                  // the chapter, volume or stage it runs on, as typed
	Load    func() (J, error)       // the unfinished journal (resume)
	Prepare func() (J, error)       // a fresh journal
	Plan    func(J) ([]PlanStep, O) // the plan and the result it would give (--dry-run)
	Read    func(J) []byte          // the checkpoint a fresh journal was prepared from (nil: prepare again under the lock)
	Execute func(J, bool) (O, error)
	Text    func(O) string // the --text line of the result
	// DryText is the --text of a dry run (nil: the step names).
	DryText func(O) string
	// Idle reports a fresh journal with nothing to apply: its result is
	// printed and nothing is written, not even the lock (nil: never).
	Idle func(J) bool
}

// Run refuses, loads or prepares the journal, prints the plan on
// --dry-run, or executes it under lock and prints the result.
func (c Command[J, O]) Run(out Printer, root *project.Root, lock Locker, dry bool) error {
	if err := c.Kind.Refuse(root, c.Arg); err != nil {
		return err
	}
	resume := c.Kind.Unfinished(root, c.Arg)
	var j J
	var err error
	if resume {
		j, err = c.Load()
	} else {
		j, err = c.Prepare()
	}
	if err != nil {
		return err
	}
	if dry || (!resume && c.Idle != nil && c.Idle(j)) {
		plan, res := c.Plan(j)
		text := func() string { return planText(plan) }
		if c.DryText != nil {
			text = func() string { return c.DryText(res) }
		}
		if !dry {
			out.Result(res, text)
		} else {
			out.Result(DryRun{Resume: resume, Plan: plan, Result: res}, text)
		}
		return nil
	}
	var first []byte
	if !resume && c.Read != nil {
		first = c.Read(j)
	}
	var res O
	if err := lock(first, func(moved bool) error {
		// Another writer may have started (and died in) a blocking
		// transaction between the unlocked check and the lock.
		if err := c.Kind.Refuse(root, c.Arg); err != nil {
			return err
		}
		if !resume && moved {
			if j, err = c.Prepare(); err != nil {
				return err
			}
		}
		res, err = c.Execute(j, !resume)
		return err
	}); err != nil {
		return err
	}
	out.Result(res, func() string { return c.Text(res) })
	return nil
}

// planText is the --text line of a dry run: the step names in order.
func planText(plan []PlanStep) string {
	names := make([]string, len(plan))
	for i, p := range plan {
		names[i] = p.Name
	}
	return "plan: " + strings.Join(names, " → ")
}

// DryRun is the --dry-run document of every journaled command:
// dry_run, resume and the plan, then the fields of the result the run
// would give, inline. A field of the result with one of those three names
// gives way to the header (migrate's result has dry_run and resume).
type DryRun struct {
	Resume bool
	Plan   []PlanStep
	Result any
}

// MarshalJSON writes the header fields, then the result's fields in their
// own order.
func (d DryRun) MarshalJSON() ([]byte, error) {
	plan := d.Plan
	if plan == nil {
		plan = []PlanStep{}
	}
	head, err := jsonio.MarshalLine(struct {
		DryRun bool       `json:"dry_run"`
		Resume bool       `json:"resume"`
		Plan   []PlanStep `json:"plan"`
	}{true, d.Resume, plan})
	if err != nil {
		return nil, err
	}
	body, err := jsonio.MarshalLine(d.Result)
	if err != nil {
		return nil, err
	}
	head, body = bytes.TrimSpace(head), bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return head, nil // not an object: nothing to inline
	}
	rest, err := withoutKeys(body, "dry_run", "resume", "plan")
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 {
		return head, nil
	}
	out := append(head[:len(head)-1:len(head)-1], ',')
	out = append(out, rest...)
	return append(out, '}'), nil
}

// withoutKeys returns the members of the compact JSON object obj, without
// its braces and without the named keys, in their order and bytes.
func withoutKeys(obj []byte, drop ...string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []byte
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if slices.Contains(drop, key) {
			continue
		}
		k, err := jsonio.MarshalLine(key)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, bytes.TrimSpace(k)...), ':'), val...)
	}
	return out, nil
}
