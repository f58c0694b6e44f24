// Package errs defines the suite's one error type: a stable E_… code, a
// bilingual message and hint, structured details, and the exit code the
// process ends with. Every binary reports failures through it.
package errs

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Stable error codes (SPEC §1). They are part of the public contract.
const (
	Usage           = "E_USAGE"
	NoProject       = "E_NO_PROJECT"
	Checkpoint      = "E_CHECKPOINT"
	StepID          = "E_STEP_ID"
	StageOrder      = "E_STAGE_ORDER"
	State           = "E_STATE"
	MissingFile     = "E_MISSING_FILE"
	InvalidJSON     = "E_INVALID_JSON"
	Schema          = "E_SCHEMA"
	Outline         = "E_OUTLINE"
	Contract        = "E_CONTRACT"
	Config          = "E_CONFIG"
	Path            = "E_PATH"
	LockHeld        = "E_LOCK_HELD"
	LockNotOwner    = "E_LOCK_NOT_OWNER"
	PendingRevision = "E_PENDING_REVISION"
	GatePause       = "E_GATE_PAUSE"
	StateVersion    = "E_STATE_VERSION"
	WriteBoundary   = "E_WRITE_BOUNDARY"
	Agent           = "E_AGENT"
	IO              = "E_IO"
	Lint            = "E_LINT" // a chapter fails an error-severity lint (SPEC §20)
	Conflict        = "E_CONFLICT"
	// AwaitingApproval: a staged volume plan waits for the author (SPEC §23).
	AwaitingApproval = "E_AWAITING_APPROVAL"
	Budget           = "E_BUDGET" // the run's cost budget would be exceeded (SPEC §18); exit 3
	// LockLost: a release or renew of a lock that is no longer there or no longer ours (SPEC §27).
	LockLost = "E_LOCK_LOST"
	// Integrity: a committed file the project needs is missing or damaged
	// (SPEC §22.1); exit 1.
	Integrity = "E_INTEGRITY"
)

// Codes lists every code in the order documented in --help.
var Codes = []string{Usage, NoProject, Checkpoint, StepID, StageOrder, State, MissingFile,
	InvalidJSON, Schema, Outline, Contract, Config, Path, LockHeld, LockNotOwner,
	PendingRevision, GatePause, StateVersion, WriteBoundary, Agent, IO, Lint, Conflict, AwaitingApproval, Budget, Integrity, LockLost}

// Exit codes (SPEC §1).
const (
	ExitOK      = 0
	ExitFailed  = 1
	ExitUsage   = 2
	ExitBlocked = 3
	ExitBusy    = 4
)

// ExitHelp is the exit-code table printed in every binary's --help.
const ExitHelp = "Exit codes: 0 ok · 1 failed (bad data, validation, I/O) · 2 usage · " +
	"3 blocked, needs a person · 4 busy (lock held by a live holder)."

// DefaultExit maps a code to its exit status.
func DefaultExit(code string) int {
	switch code {
	case Usage:
		return ExitUsage
	case State, PendingRevision, GatePause, AwaitingApproval, Budget:
		return ExitBlocked
	case LockHeld:
		return ExitBusy
	}
	return ExitFailed
}

// Error is a reportable failure. Message and hint exist in Chinese and
// English; the runner picks one per project (settings.json "language").
type Error struct {
	Code    string
	Zh, En  string
	HintZh  string
	HintEn  string
	Details map[string]any
	Exit    int
	Cause   error
}

// New makes an error with a Chinese and an English message. An empty en
// reuses zh.
func New(code, zh, en string) *Error {
	return &Error{Code: code, Zh: zh, En: en, Exit: DefaultExit(code)}
}

// Newf formats both messages with the same arguments.
func Newf(code, zh, en string, args ...any) *Error {
	return New(code, fmt.Sprintf(zh, args...), fmt.Sprintf(en, args...))
}

// ReadFailed is E_IO for a file (project-relative rel) that could not be
// read.
func ReadFailed(rel string, err error) *Error {
	return Newf(IO, "读取 %s 失败：%v", "cannot read %s: %v", rel, err).With("file", rel).Wrap(err)
}

// AccessFailed is E_IO for a file that could not be read, written, moved
// or removed.
func AccessFailed(rel string, err error) *Error {
	return Newf(IO, "读写 %s 失败：%v", "cannot access %s: %v", rel, err).With("file", rel).Wrap(err)
}

// SchemaIn is E_SCHEMA for a project file whose content does not have the
// documented shape: the messages follow the file name.
func SchemaIn(rel, zh, en string, args ...any) *Error {
	return Newf(Schema, rel+" "+zh, rel+" "+en, args...).With("file", rel).
		Hint("按 SPEC §2 的格式修正该文件后重试", "fix the file to the documented format (SPEC §2) and retry")
}

// Hint sets what the user should do next.
func (e *Error) Hint(zh, en string) *Error { e.HintZh, e.HintEn = zh, en; return e }

// With adds one details field.
func (e *Error) With(key string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

// WithExit overrides the exit status.
func (e *Error) WithExit(code int) *Error { e.Exit = code; return e }

// Wrap records the underlying cause (not printed; for errors.Is/As).
func (e *Error) Wrap(err error) *Error { e.Cause = err; return e }

func (e *Error) Error() string { return e.Code + ": " + e.En0() }

// En0 is the English message, falling back to the Chinese one.
func (e *Error) En0() string {
	if e.En != "" {
		return e.En
	}
	return e.Zh
}

// Text is the suite's one rule for user-facing text in two languages:
// the English text when lang (settings.json "language") is "en", the
// Chinese one otherwise; a side left empty falls back to the other.
// Errors, warnings and --text lines all choose through it.
func Text(lang, zh, en string) string {
	if (lang == "en" && en != "") || zh == "" {
		return en
	}
	return zh
}

// Message returns the message in lang ("en" or anything else for zh).
func (e *Error) Message(lang string) string { return Text(lang, e.Zh, e.En) }

// HintText returns the hint in lang.
func (e *Error) HintText(lang string) string { return Text(lang, e.HintZh, e.HintEn) }

func (e *Error) Unwrap() error { return e.Cause }

// ExitCode satisfies kong's ExitCoder.
func (e *Error) ExitCode() int { return e.Exit }

// As extracts an *Error from err, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Is reports whether err carries the given code.
func Is(err error, code string) bool {
	e := As(err)
	return e != nil && e.Code == code
}

// Coerce turns any error into an *Error (unknown errors become E_IO).
func Coerce(err error) *Error {
	if e := As(err); e != nil {
		return e
	}
	return New(IO, err.Error(), err.Error()).Wrap(err)
}

// Body is the error object of SPEC §1, in its documented key order.
type Body struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint"`
	Details map[string]any `json:"details"`
}

// Envelope is the one-line error document every tool prints on stderr:
// {"error":{"code","message","hint","details"}}. It is the only Go type
// of that shape: the runner writes it, the pipeline parses the tools'
// lines back with ParseLine, status and BLOCKED.json embed its Body.
type Envelope struct {
	Error *Body `json:"error"`
}

// Body renders e in lang ("en" or zh); details are never null.
func (e *Error) Body(lang string) *Body {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return &Body{Code: e.Code, Message: e.Message(lang), Hint: e.HintText(lang), Details: d}
}

// Envelope wraps e's body for printing.
func (e *Error) Envelope(lang string) Envelope { return Envelope{Error: e.Body(lang)} }

// ParseLine reads an error line a tool printed back into an *Error (its
// one message and hint serve both languages), or nil when the line is not
// an error envelope with a code.
func ParseLine(line []byte) *Error {
	var env Envelope
	if len(line) == 0 || json.Unmarshal(line, &env) != nil || env.Error == nil || env.Error.Code == "" {
		return nil
	}
	b := env.Error
	e := New(b.Code, b.Message, b.Message).Hint(b.Hint, b.Hint)
	for k, v := range b.Details {
		e.With(k, v)
	}
	return e
}
