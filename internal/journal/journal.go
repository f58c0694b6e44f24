package journal

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// StepJournal is the first step of every transaction: the journal file is
// durable (plan[].name; NOVEL_CRASH_AT takes it like any other step).
const StepJournal = "journal"

// crashEnv names the test hook (SPEC §8.4): the process dies like
// kill -9 (status 137) right after the named step.
const crashEnv = "NOVEL_CRASH_AT"

// CrashHook is the CrashEnv hook read through getenv.
func CrashHook(getenv func(string) string) func(step string) {
	return func(step string) {
		if getenv(crashEnv) == step {
			os.Exit(137)
		}
	}
}

// PlanStep is one step of a plan with the files it writes.
type PlanStep struct {
	Name   string   `json:"name"`
	Writes []string `json:"writes"`
}

// Move is one file (or directory) renamed into place.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// FileChange pins a rewritten file by content fingerprint: a step is done
// when the file fingerprints to New, still to do when it fingerprints to
// Old; anything else is a third party's edit.
type FileChange struct {
	File          string `json:"file"`
	Old           string `json:"old_sha256"`
	New           string `json:"new_sha256"`
	WriteBaseline bool   `json:"write_baseline,omitempty"`
}

// Append is a log append replayable by truncating to SizeBefore.
type Append struct {
	File       string `json:"file"`
	SizeBefore int64  `json:"size_before"`
	Text       string `json:"text"`
}

// Step is one idempotent step of a transaction.
type Step struct {
	Name string
	Run  func() error
}

// Tx is one journaled transaction: its journal file, the detail key that
// names a failed step (commit_step, rollback_step), the command that
// continues it, and the files whose leftover temps a resumed run sweeps.
type Tx struct {
	File   string
	Key    string
	Resume string
	Temps  []string
}

// Run writes doc as the journal when fresh (atomically, before the first
// change), calls crash after it and after each step, and runs the steps
// in order. Each step is idempotent, so a resumed transaction simply runs
// them all again; it first deletes the temps a killed run left beside its
// targets (a fresh run's own writes sweep dead writers' temps as they go,
// jsonio). A failing step's error names the step under Key and the
// journal and, unless it has a hint, says that Resume continues it.
func (t Tx) Run(root *project.Root, doc any, fresh bool, crash func(string), steps []Step) error {
	if crash == nil {
		crash = func(string) {}
	}
	if fresh {
		if err := root.WriteJSON(t.File, doc); err != nil {
			return err
		}
	} else {
		removeTemps(root, append([]string{t.File}, t.Temps...))
	}
	crash(StepJournal)
	for _, s := range steps {
		if err := s.Run(); err != nil {
			e := errs.Coerce(err)
			e.With(t.Key, s.Name).With("journal", t.File)
			if e.HintZh == "" {
				e.Hint("修复后重新运行 "+t.Resume+"，会从日志继续", "fix it and run "+t.Resume+" again; it resumes from the journal")
			}
			return e
		}
		crash(s.Name)
	}
	return nil
}

// Read decodes the journal rel into v; an unreadable or malformed one is
// reported as damaged (whatZh/whatEn name it: 提交日志, commit journal),
// see Damaged.
func Read(root *project.Root, rel, whatZh, whatEn string, v any) error {
	err := root.ReadJSON(rel, v)
	if e := errs.As(err); e != nil && e.Code != errs.Path {
		Damaged(root, e, rel, whatZh, whatEn)
	}
	return err
}

// Damaged turns e into the report of a journal that cannot be used: it
// names the transaction, the files the journal records as far as its
// bytes can be read (details.touched), and the manual way out. Journals
// are written atomically and no copy of them is kept, so there is no
// backup to point at.
func Damaged(root *project.Root, e *errs.Error, rel, whatZh, whatEn string) *errs.Error {
	touched := []string{}
	if data, err := root.ReadFile(rel); err == nil {
		touched = recordedPaths(data)
	}
	list := strings.Join(touched, "、")
	listEn := strings.Join(touched, ", ")
	if len(touched) == 0 {
		list, listEn = "（读不出）", "(none readable)"
	}
	return e.With("journal", rel).With("transaction", whatEn).With("touched", touched).WithExit(errs.ExitFailed).Hint(
		whatZh+" "+rel+" 无法使用，没有备份可恢复。它记录的文件："+list+"。对照这些文件：若都还是该操作开始前的样子，删除 "+rel+
			" 后重新运行同一条命令；若已有部分改动，把它们改回原样（或按记录完成剩下的改动）后再删除 "+rel+"，并用 novel-commit rebuild --check 确认状态与 changelog 一致",
		"the "+whatEn+" "+rel+" cannot be used and no backup of it exists. The files it records: "+listEn+". Compare them: if none has changed since the operation started, delete "+rel+
			" and run the same command again; if some have, put them back (or finish the recorded changes by hand), then delete "+rel+" and confirm with novel-commit rebuild --check that the state matches the changelog")
}

// recordedPaths collects the project paths a damaged journal still shows:
// every string token up to the first syntax error that looks like a
// relative file path, in order, once each.
func recordedPaths(data []byte) []string {
	out := []string{}
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		s, ok := tok.(string)
		if !ok || seen[s] || !looksLikePath(s) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
}

func looksLikePath(s string) bool {
	if !strings.Contains(s, "/") || strings.HasPrefix(s, "/") || strings.ContainsAny(s, " \t\n…*") || len(s) > 300 {
		return false
	}
	return path.Ext(s) != "" || strings.HasSuffix(s, "/")
}

// removeTemps deletes the jsonio temp files (.NAME.tmp-*) left beside
// each target by a write that was killed before its rename.
func removeTemps(root *project.Root, targets []string) {
	for _, rel := range targets {
		abs, err := root.Abs(rel)
		if err != nil {
			continue
		}
		dir := filepath.Dir(abs)
		w := root.Writer()
		for _, name := range w.TempsOf(dir, filepath.Base(abs)) {
			w.RemoveTemp(dir, name)
		}
	}
}

// Fingerprint identifies a file's bytes for the journal: length plus
// CRC-32C (hardware-accelerated; SHA-256 of a 5 MiB state cost ~5 ms
// twice per commit). It only has to tell the old version, the new version
// and a third party's edit apart, not resist a forger.
func Fingerprint(b []byte) string {
	return strconv.Itoa(len(b)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(b, castagnoli())), 16)
}

// FingerprintParts is Fingerprint of the concatenation of parts.
func FingerprintParts(parts [][]byte) string {
	n, sum := 0, uint32(0)
	for _, p := range parts {
		n += len(p)
		sum = crc32.Update(sum, castagnoli(), p)
	}
	return strconv.Itoa(n) + "-" + strconv.FormatUint(uint64(sum), 16)
}

// castagnoli is made on first use: making it at package initialisation
// cost every process start ~0.1 ms, journal or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Replay makes the log hold exactly its first SizeBefore bytes followed
// by Text: truncate, append, fsync. Running it again gives the same file,
// which is what makes log appends replayable after a crash (rewriting a
// long log atomically would cost O(log size)).
func (a Append) Replay(root *project.Root) error {
	rel, size := a.File, a.SizeBefore
	abs, err := root.Abs(rel)
	if err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errs.AccessFailed(rel, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return errs.AccessFailed(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return errs.AccessFailed(rel, err)
	}
	if st.Size() < size {
		return errs.Newf(errs.State, "%s 比提交日志记录的更短（%d < %d 字节），可能被改动过", "%s is shorter than the commit journal recorded (%d < %d bytes); it was changed",
			rel, st.Size(), size).With("file", rel).WithExit(errs.ExitFailed).
			Hint("把该文件改回提交前的内容（至少 "+strconv.FormatInt(size, 10)+" 字节）后重新运行同一条命令", "put the file back as it was before (at least "+strconv.FormatInt(size, 10)+" bytes) and run the same command again")
	}
	if err := f.Truncate(size); err != nil {
		return errs.AccessFailed(rel, err)
	}
	if _, err := f.WriteAt([]byte(a.Text), size); err != nil {
		return errs.AccessFailed(rel, err)
	}
	if err := f.Sync(); err != nil {
		return errs.AccessFailed(rel, err)
	}
	root.Writer().SyncDir(dir)
	return nil
}
