package reliability

import (
	"strings"
	"testing"
)

// want is the documented outcome of one run.
type want struct {
	exit  int      // 0, 1 or 4
	codes []string // acceptable error codes (exit ≠ 0)
	base  bool     // exit 0 with stdout byte-identical to the untouched project's
}

func ok() want                  { return want{} }
func same() want                { return want{base: true} }
func fail(codes ...string) want { return want{exit: 1, codes: codes} }
func held() want                { return want{exit: 4, codes: []string{"E_LOCK_HELD"}} }

// rule overrides the default expectation; empty fields match anything,
// rel and cmd match a substring (cmd ending in "$": a suffix) of the
// file and the command line.
type rule struct {
	rel, kase, cmd string
	want           want
	why            string
}

// rules, first match wins. Each says why the default does not apply.
var rules = []rule{
	// The checkpoint is found by root discovery: without a regular
	// .checkpoint.json there is no project; its parse errors are E_CHECKPOINT.
	{".checkpoint.json", "missing", "", fail("E_NO_PROJECT"), "root discovery"},
	{".checkpoint.json", "directory", "", fail("E_NO_PROJECT"), "root discovery needs a file"},
	{".checkpoint.json", "empty", "", fail("E_CHECKPOINT"), ""},
	{".checkpoint.json", "not-json", "", fail("E_CHECKPOINT"), ""},
	{".checkpoint.json", "not-utf8", "", fail("E_CHECKPOINT"), ""},
	{".checkpoint.json", "10MB-garbage", "", fail("E_CHECKPOINT"), ""},
	{".checkpoint.json", "wrong-top-type", "", fail("E_CHECKPOINT"), ""},
	{".checkpoint.json", "wrong-field-types", "", fail("E_CHECKPOINT"), ""},
	// Invalid values in settings are configuration errors.
	{"settings.json", "wrong-field-types", "", fail("E_CONFIG"), "SPEC §7.6"},
	// A contract that is not an object or has wrong fields is E_CONTRACT (SPEC §6).
	{"chapter-contracts/", "wrong-top-type", "", fail("E_CONTRACT"), ""},
	{"chapter-contracts/", "wrong-field-types", "", fail("E_CONTRACT"), ""},
	// Revision files fail closed with E_SCHEMA for the generating
	// entrypoints (SPEC §7.4); a read-only decide does not consult them.
	{"-revision.json", "missing", "", same(), "no revision file: nothing blocks"},
	{"-revision.json", "bom", "", same(), ""},
	{"-revision.json", "10MB-valid", "", same(), ""},
	{"-revision.json", "", "decide --chapter 1$", same(), "read-only decide ignores revisions"},
	{"-revision.json", "symlink-outside", "", fail("E_SCHEMA", "E_PATH"), "fail closed"},
	{"-revision.json", "", "", fail("E_SCHEMA"), "fail closed (SPEC §7.4)"},
	// A lock directory whose info.json is unreadable is a holder with no
	// pid (SPEC §4): status reports it, writers are refused with exit 4.
	{".novel.lock/info.json", "missing", "", same(), "no lock at all"},
	{".novel.lock/info.json", "symlink-outside", "", fail("E_PATH"), ""},
	{".novel.lock/info.json", "", "lock status", ok(), "held, reported"},
	{".novel.lock/info.json", "", "--apply", held(), "held by an unknown holder"},
	// Packets are named on the command line (the user's explicit path,
	// like -o), so a packet reached through a symlink is read.
	{".packet.json", "symlink-outside", "", same(), "explicit CLI path"},
	// Lenient shapes (SPEC §1 "read leniently"): a bare foreshadowing list
	// whose entries are not objects is kept verbatim; a crossref is any
	// object; a character file without a string display_name uses its slug;
	// a directory named like a character file is not a character.
	{"foreshadowing", "wrong-top-type", "", ok(), "bare list accepted"},
	{"crossref.json", "wrong-field-types", "packet", ok(), "any object; the estimate measures what the packet references (SPEC §19)"},
	{"crossref.json", "wrong-field-types", "", same(), "any object"},
	{"characters/active/", "wrong-field-types", "", ok(), "display_name falls back to the slug"},
	{"characters/active/", "directory", "", ok(), "not a character file"},
	{"characters/active/", "missing", "", ok(), "one character fewer"},
	// Paths that a packet only references (not parsed): crossref for the
	// judge
	// (read leniently, only to measure the packet's estimate: a file over
	// the 32 MiB cap cannot be read for that).
	{"crossref.json", "over-32MiB", "packet chapter:001:judge", fail("E_IO"), "measured for the estimate (SPEC §19)"},
	{"crossref.json", "symlink-outside", "packet chapter:001:judge", fail("E_PATH"), "an optional input leaving the project is refused, not left out (SPEC §22.1)"},
	{"crossref.json", "", "packet chapter:001:judge", ok(), "path-only reference"},
	// The summarizer gets the state sliced to the chapter's cast (SPEC §19),
	// so the packet reads it; a project before its first commit has none.
	{"state/current-state.json", "missing", "packet chapter:001:summarize", ok(), "no state: no slice"},
	// next reads only the state's top-level state_version line (SPEC §14),
	// and a project without a state file is at version 0.
	{"state/current-state.json", "missing", "step next", same(), "version 0"},
	{"state/current-state.json", "not-utf8", "step next", same(), "only the version line is read"},
	// A staging product that is missing or invalid is simply not done:
	// next proposes its step again (SPEC §3 rule 6), except the gate file,
	// which fails closed (it may hold a review/rewrite pause) naming itself.
	{"chapter-001-gate.json", "missing", "step next", ok(), "gate is proposed again"},
	{"chapter-001-gate.json", "bom", "", same(), ""},
	{"chapter-001-gate.json", "10MB-valid", "", same(), ""},
	{"chapter-001-gate.json", "", "step next", fail("__default__"), "fail closed"},
	// The outline: markdown. An empty outline has no block (E_OUTLINE)
	// for the commands that need one; next and decide only need the
	// volume range, which an empty outline does not change for chapter 1.
	{"outline.md", "empty", "step next", ok(), ""},
	{"outline.md", "empty", "gate decide", ok(), ""},
	{"outline.md", "empty", "", fail("E_OUTLINE"), ""},
	{"outline.md", "not-utf8", "", fail("E_OUTLINE"), "the heading scan refuses it"},
	// Staging chapters: empty or not UTF-8 fails validation (E_SCHEMA).
	{"chapter-001.md", "empty", "commit", fail("E_SCHEMA"), "SPEC §3.2"},
	{"chapter-001.md", "not-utf8", "commit", fail("E_SCHEMA"), "SPEC §3.2"},
	// Chapter 1 starts the volume, so it is a key chapter whatever the
	// schedule says: next and decide do not read it (packets do).
	{"storyline-schedule.json", "", "step next", same(), "key chapter by position"},
	{"storyline-schedule.json", "", "gate decide", same(), "key chapter by position"},
	// The logic review is optional with the policy off.
	{"logic-review.json", "missing", "", ok(), "policy off: no report"},
}

// expectation of a run: the first matching rule, else the default.
func expectation(r row, kase string, c cmd) (want, string) {
	for _, ru := range rules {
		if ru.rel != "" && !strings.Contains(r.rel, ru.rel) {
			continue
		}
		if ru.kase != "" && ru.kase != kase {
			continue
		}
		if m, anchored := strings.CutSuffix(ru.cmd, "$"); anchored && !strings.HasSuffix(c.String(), m) {
			continue
		} else if !anchored && ru.cmd != "" && !strings.Contains(c.String(), ru.cmd) {
			continue
		}
		if len(ru.want.codes) == 1 && ru.want.codes[0] == "__default__" {
			return defaultWant(r, kase, c, false), ru.why
		}
		return ru.want, ru.why
	}
	return defaultWant(r, kase, c, r.product), ""
}

// defaultWant is SPEC §1/§15 applied to one case.
func defaultWant(r row, kase string, c cmd, product bool) want {
	if kase == "bom" || kase == "10MB-valid" {
		return same() // a BOM is ignored; 10 MiB is under the 32 MiB cap
	}
	if product && c.name == "novel-step" && c.args[0] == "next" {
		return ok() // not done: proposed again
	}
	switch kase {
	case "missing":
		if r.optional {
			return ok()
		}
		return fail("E_MISSING_FILE")
	case "empty", "not-json", "not-utf8", "10MB-garbage":
		return fail("E_INVALID_JSON")
	case "wrong-top-type", "wrong-field-types":
		return fail("E_SCHEMA")
	case "directory", "over-32MiB":
		return fail("E_IO")
	case "symlink-outside":
		return fail("E_PATH")
	}
	return fail("?")
}

func checkExpected(t *testing.T, label string, r row, kase string, c cmd, got, base Result) {
	t.Helper()
	w, why := expectation(r, kase, c)
	if why != "" {
		label += " (" + why + ")"
	}
	code, raw := got.LastErr()
	switch {
	case w.exit == 0:
		if got.Exit != 0 {
			t.Errorf("%s: want success, got exit %d %s", label, got.Exit, raw)
			return
		}
		if w.base && got.Stdout != base.Stdout {
			t.Errorf("%s: want the untouched project's output, got a different one:\n%s", label, firstDiff(base.Stdout, got.Stdout))
		}
	default:
		if got.Exit != w.exit {
			t.Errorf("%s: want exit %d %v, got exit %d %s", label, w.exit, w.codes, got.Exit, raw)
			return
		}
		match := false
		for _, c := range w.codes {
			match = match || c == code
		}
		if !match {
			t.Errorf("%s: want %v, got %s", label, w.codes, raw)
		}
		if w.exit == 1 && !strings.Contains(raw, r.rel) && !(code == "E_NO_PROJECT" && strings.Contains(raw, ".checkpoint.json")) {
			t.Errorf("%s: the error does not name %s: %s", label, r.rel, raw)
		}
	}
}

// firstDiff shows where two outputs start to differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return "want …" + a[lo:min(len(a), i+80)] + "\n got …" + b[lo:min(len(b), i+80)]
}
