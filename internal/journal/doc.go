// Package journal is the suite's journaled transaction (SPEC §8.4): a
// journal file written before the first change and deleted last, a list
// of idempotent steps run in order with the NOVEL_CRASH_AT test hook
// after each, the content fingerprints that tell a step done from a step
// still to do, and the refusal to overwrite committed files (SPEC §22).
// It also owns the transactions themselves: the Kind registry (journal
// paths, resume commands, which unfinished kinds refuse which) and
// Command, the runner every journaled command uses.
package journal
