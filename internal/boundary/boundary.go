// Package boundary records and checks the write boundary of agent steps
// (SPEC §3.2): `novel-manifest packet … --write-manifest` records a
// snapshot (path, size, mtime) of the project files an executor must not
// touch, and `novel-step validate` compares the tree against it.
//
// Executors may write only under staging/. Read-only agents (quality-judge,
// logic-reviewer) may write nothing but their declared output, inside
// staging/ too. Only Lstat information is used (no hashing) so a 15k-file
// project is walked in a few tens of milliseconds.
package boundary

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// Scopes of a snapshot.
const (
	scopeOutside = "outside-staging" // every file outside staging/
	scopeAll     = "all"             // read-only agents: staging/ too
)

const magic = "novel-boundary-snapshot"

// readOnly reports whether the step's agent may write only its declared
// output (quality-judge, logic-reviewer).
func readOnly(st stepid.Step) bool {
	return !st.Volume && !st.Setup && (st.Stage == stepid.Judge || st.Stage == stepid.LogicReview)
}

// PacketStage is the stage part of the packet and snapshot file names:
// the secondary judge gets "judge.secondary".
func PacketStage(st stepid.Step, role string) string {
	if role == stepid.RoleSecondary && st.Stage == stepid.Judge {
		return st.Stage + "." + stepid.RoleSecondary
	}
	return st.Stage
}

// snapshotPath is where the snapshot of a step (and role) is kept, beside
// its packet in staging/manifests/.
func snapshotPath(st stepid.Step, role string) string {
	if st.Setup {
		return layout.SetupSnapshot(st.Stage)
	}
	if st.Volume {
		return layout.VolumeStepSnapshot(st.Number, st.Stage)
	}
	return layout.Snapshot(st.Chapter, PacketStage(st, role))
}

// declaredOutputs are the files a read-only step may create or change.
// Both judge outputs count for either judge role: the pipeline runs the
// two judges of a key chapter back to back and validates the judge step
// once both exist.
func declaredOutputs(st stepid.Step) []string {
	switch {
	case st.Volume, st.Setup:
		return nil
	case st.Stage == stepid.Judge:
		return []string{layout.StagingEval(st.Chapter), layout.StagingEvalSecondary(st.Chapter)}
	case st.Stage == stepid.LogicReview:
		return []string{layout.StagingLogicReview(st.Chapter)}
	}
	return nil
}

// Entry is one recorded file.
type Entry struct {
	Path  string // project-relative, forward slashes
	Size  int64
	MTime int64 // UnixNano
}

type header struct {
	Magic   string `json:"format"`
	Version int    `json:"version"`
	Step    string `json:"step"`
	Role    string `json:"role"`
	Scope   string `json:"scope"`
	Files   int    `json:"files"`
	// Closes is set in an end listing only: the sha256 of the snapshot
	// whose window it ends (an end of an older recording is ignored).
	Closes string `json:"closes,omitempty"`
}

// filter decides which project-relative paths a scope covers. Paths are
// checked per directory and per file so whole subtrees are skipped.
type filter struct {
	scope    string
	declared map[string]bool
}

func newFilter(st stepid.Step, scope string) filter {
	f := filter{scope: scope, declared: map[string]bool{}}
	if scope == scopeAll {
		for _, p := range declaredOutputs(st) {
			f.declared[p] = true
		}
	}
	return f
}

// skipDir reports whether a whole directory is outside the scope.
func (f filter) skipDir(rel string) bool {
	switch rel {
	case layout.LockDir:
		return true
	case layout.Staging:
		return f.scope == scopeOutside
	case layout.StagingManifests, layout.StagingLogs, layout.StagingStamps:
		// Packets, snapshots, run logs and stamps are the pipeline's own
		// bookkeeping, written around every agent run.
		return true
	}
	return false
}

func (f filter) skipFile(rel string) bool {
	// The steps run log is the pipeline's own bookkeeping, appended after
	// each attempt of a volume plan while its window is still open.
	if rel == layout.LockFlock || rel == layout.StepsRunLog || f.declared[rel] {
		return true
	}
	if authorLog(rel) {
		return true
	}
	// A temp file left by one of the suite's own atomic writes killed
	// mid-write (its writer's pid is dead) is not an agent's write; the
	// next write of that file removes it.
	_, stale := jsonio.StaleTemp(filepath.Base(rel))
	return stale
}

// authorLog reports a *.log file outside the suite's own folders — the
// project root included: an author's `make … 2>&1 | tee run.log` keeps
// growing while an agent runs, and is not the agent's write (SPEC §22.1).
// A *.log inside a folder the suite writes is still checked.
func authorLog(rel string) bool {
	if !strings.HasSuffix(rel, ".log") {
		return false
	}
	top, _, nested := strings.Cut(rel, "/")
	if !nested {
		return true
	}
	switch top {
	case layout.Staging, layout.ChaptersDir, layout.SummariesDir, layout.EvaluationsDir, layout.LogsDir, layout.WorldDir,
		layout.StorylinesDir, layout.ReviewsDir, layout.ResearchDir, "characters", "state", "volumes", "foreshadowing":
		return false
	}
	return true
}

func scopeFor(st stepid.Step) string {
	if readOnly(st) {
		return scopeAll
	}
	return scopeOutside
}

// Walk lists the files of root in the scope of st, sorted by path.
func Walk(root *project.Root, st stepid.Step) ([]Entry, error) {
	return walk(root.Dir, newFilter(st, scopeFor(st)))
}

// walk reads directories concurrently (bounded), using only the directory
// entries and Lstat, then sorts the result so it is order-independent.
func walk(dir string, f filter) ([]Entry, error) {
	var (
		mu      sync.Mutex
		out     []Entry
		firstEr error
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, max(4, runtime.GOMAXPROCS(0)*2))
	var visit func(rel string)
	visit = func(rel string) {
		defer wg.Done()
		sem <- struct{}{}
		abs := dir
		if rel != "" {
			abs = filepath.Join(dir, filepath.FromSlash(rel))
		}
		d, err := openDir(abs)
		var local []Entry
		var subdirs []string
		var ents []os.DirEntry
		if err == nil {
			ents, err = d.ReadDir(-1)
		}
		for _, e := range ents {
			name := e.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if e.IsDir() {
				if !f.skipDir(p) {
					subdirs = append(subdirs, p)
				}
				continue
			}
			if f.skipFile(p) {
				continue
			}
			size, mtime, ierr := d.stat(e)
			if ierr != nil {
				if errors.Is(ierr, fs.ErrNotExist) {
					continue // removed while walking (a temp file)
				}
				err = ierr
				break
			}
			local = append(local, Entry{Path: p, Size: size, MTime: mtime})
		}
		if d != nil {
			d.Close()
		}
		<-sem
		mu.Lock()
		out = append(out, local...)
		if err != nil && firstEr == nil && !(rel != "" && errors.Is(err, fs.ErrNotExist)) {
			firstEr = errs.Newf(errs.IO, "无法读取目录 %s：%v", "cannot read directory %s: %v", displayDir(rel), err).
				With("file", displayDir(rel)).Wrap(err)
		}
		mu.Unlock()
		for _, s := range subdirs {
			wg.Add(1)
			go visit(s)
		}
	}
	wg.Add(1)
	visit("")
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func displayDir(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// endPath is where the end of a step's window is kept: the listing taken
// when its advance validated it (SPEC §22: a later validate reports only
// writes made during the step's own window).
func endPath(st stepid.Step, role string) string { return snapshotPath(st, role) + ".end" }

// Record walks the project and writes the snapshot of st (role "" or
// "secondary") beside its packet. A new recording opens a new window: the
// end of the previous one no longer applies (it names the old snapshot's
// hash, so a leftover is ignored anyway).
func Record(root *project.Root, st stepid.Step, role string) error {
	scope := scopeFor(st)
	entries, err := walk(root.Dir, newFilter(st, scope))
	if err != nil {
		return err
	}
	if err := root.WriteFile(snapshotPath(st, role), encode(header{
		Magic: magic, Version: 1, Step: st.String(), Role: role, Scope: scope, Files: len(entries),
	}, entries)); err != nil {
		return err
	}
	if abs, err := root.Abs(endPath(st, role)); err == nil {
		os.Remove(abs)
	}
	return nil
}

// encode writes a JSON header line, then one "size mtime path" line per
// file. Paths that could break the line format are Go-quoted.
func encode(h header, entries []Entry) []byte {
	var b bytes.Buffer
	hl, _ := json.Marshal(h)
	b.Grow(len(hl) + 1 + len(entries)*48)
	b.Write(hl)
	b.WriteByte('\n')
	var num [20]byte
	for _, e := range entries {
		b.Write(strconv.AppendInt(num[:0], e.Size, 10))
		b.WriteByte(' ')
		b.Write(strconv.AppendInt(num[:0], e.MTime, 10))
		b.WriteByte(' ')
		if strings.ContainsAny(e.Path, "\n\r\t\\\"") {
			b.WriteString(strconv.Quote(e.Path))
		} else {
			b.WriteString(e.Path)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func decode(data []byte, rel string) (header, []Entry, error) {
	var h header
	bad := func(why string) error {
		return errs.Newf(errs.Schema, "写入边界快照 %s 已损坏：%s", "write-boundary snapshot %s is corrupt: %s", rel, why).
			With("file", rel).
			Hint("重新运行 novel-manifest packet STEP --write-manifest 生成快照后再执行该步骤",
				"re-run novel-manifest packet STEP --write-manifest to record a new snapshot, then run the step again")
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	if !sc.Scan() {
		return h, nil, bad("empty")
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Magic != magic || h.Version != 1 {
		return h, nil, bad("bad header")
	}
	entries := make([]Entry, 0, max(h.Files, 0))
	line := 1
	for sc.Scan() {
		line++
		t := sc.Text()
		a, rest, ok1 := strings.Cut(t, " ")
		m, p, ok2 := strings.Cut(rest, " ")
		size, e1 := strconv.ParseInt(a, 10, 64)
		mt, e2 := strconv.ParseInt(m, 10, 64)
		if !ok1 || !ok2 || e1 != nil || e2 != nil || p == "" {
			return h, nil, bad("line " + strconv.Itoa(line))
		}
		if strings.HasPrefix(p, "\"") {
			u, err := strconv.Unquote(p)
			if err != nil {
				return h, nil, bad("line " + strconv.Itoa(line))
			}
			p = u
		}
		entries = append(entries, Entry{Path: p, Size: size, MTime: mt})
	}
	if sc.Err() != nil {
		return h, nil, bad(sc.Err().Error())
	}
	if len(entries) != h.Files {
		return h, nil, bad("truncated")
	}
	return h, entries, nil
}

// Diff is what changed between a snapshot and now.
type Diff struct {
	Created []string `json:"created"`
	Changed []string `json:"changed"`
	Deleted []string `json:"deleted"`
}

// Empty reports whether nothing changed.
func (d Diff) Empty() bool { return len(d.Created)+len(d.Changed)+len(d.Deleted) == 0 }

// All lists every path of the diff, sorted.
func (d Diff) All() []string {
	all := append(append(append([]string{}, d.Created...), d.Changed...), d.Deleted...)
	sort.Strings(all)
	return all
}

// compare merges two path-sorted listings.
func compare(before, after []Entry) Diff {
	d := Diff{Created: []string{}, Changed: []string{}, Deleted: []string{}}
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || (i < len(before) && before[i].Path < after[j].Path):
			d.Deleted = append(d.Deleted, before[i].Path)
			i++
		case i == len(before) || after[j].Path < before[i].Path:
			d.Created = append(d.Created, after[j].Path)
			j++
		default:
			if before[i].Size != after[j].Size || before[i].MTime != after[j].MTime {
				d.Changed = append(d.Changed, after[j].Path)
			}
			i++
			j++
		}
	}
	return d
}

// Window is a step's write-boundary window that checked clean and is
// still open; Close records its end.
type Window struct {
	st    stepid.Step
	role  string
	h     header
	after []Entry
}

// Close writes the end of the window: the listing the check compared
// against, tied to the snapshot by its hash. The step's advance calls it,
// so the suite's own later writes (checkpoint, gate file) and later edits
// are outside the window when the step is validated again.
func (w *Window) Close(root *project.Root) error {
	if w == nil {
		return nil
	}
	h := w.h
	h.Files = len(w.after)
	return root.WriteFile(endPath(w.st, w.role), encode(h, w.after))
}

// Check compares the project against the snapshot recorded for st and
// role. No snapshot → a warning and no error. Any created, changed or
// deleted file in scope → E_WRITE_BOUNDARY listing all of them.
func Check(root *project.Root, st stepid.Step, role string) (warnings []string, err error) {
	warnings, _, err = CheckWindow(root, st, role)
	return warnings, err
}

// CheckWindow is Check that also returns the window when it is still open
// and clean (nil when there is no snapshot or the window was closed).
// A closed window (its advance recorded an end listing for this snapshot)
// is compared with that end instead of the live tree.
func CheckWindow(root *project.Root, st stepid.Step, role string) ([]string, *Window, error) {
	rel := snapshotPath(st, role)
	abs, err := root.Abs(rel)
	if err != nil {
		return nil, nil, err
	}
	if _, serr := os.Lstat(abs); errors.Is(serr, fs.ErrNotExist) {
		return []string{"未找到写入边界快照 " + rel + "，已跳过写入边界检查（用 --write-manifest 生成指令包可启用）" +
			" / no write-boundary snapshot " + rel + "; the write-boundary check was skipped (write the packet with --write-manifest to enable it)"}, nil, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, nil, err
	}
	h, before, err := decode(data, rel)
	if err != nil {
		return nil, nil, err
	}
	if h.Step != st.String() || h.Role != role {
		return nil, nil, errs.Newf(errs.Schema, "写入边界快照 %s 属于 %s（role %q），不是 %s（role %q）",
			"write-boundary snapshot %s belongs to %s (role %q), not %s (role %q)", rel, h.Step, h.Role, st.String(), role).
			With("file", rel).
			Hint("重新运行 novel-manifest packet STEP --write-manifest 生成快照", "re-run novel-manifest packet STEP --write-manifest")
	}
	scope := h.Scope
	if scope != scopeAll && scope != scopeOutside {
		return nil, nil, errs.Newf(errs.Schema, "写入边界快照 %s 的范围 %q 未知", "write-boundary snapshot %s has an unknown scope %q", rel, scope).With("file", rel)
	}
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	after, closed := readEnd(root, st, role, id)
	if !closed {
		if after, err = walk(root.Dir, newFilter(st, scope)); err != nil {
			return nil, nil, err
		}
	}
	d := compare(before, after)
	if !d.Empty() {
		return nil, nil, violation(st, role, scope, d, rel)
	}
	if closed {
		return nil, nil, nil
	}
	h.Closes = id
	return nil, &Window{st: st, role: role, h: h, after: after}, nil
}

// readEnd reads the end listing of the window of the snapshot with hash
// id. A missing, unreadable or foreign end (another recording's) means the
// window is open: the live tree is compared, as before any advance.
func readEnd(root *project.Root, st stepid.Step, role, id string) ([]Entry, bool) {
	rel := endPath(st, role)
	if !root.IsFile(rel) {
		return nil, false
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, false
	}
	h, entries, err := decode(data, rel)
	if err != nil || h.Closes != id || h.Step != st.String() || h.Role != role {
		return nil, false
	}
	return entries, true
}

func violation(st stepid.Step, role, scope string, d Diff, snapshot string) error {
	all := d.All()
	listed := strings.Join(all[:min(3, len(all))], "、")
	listedEn := strings.Join(all[:min(3, len(all))], ", ")
	if len(all) > 3 {
		listed += "等 " + strconv.Itoa(len(all)) + " 个文件"
		listedEn += " and " + strconv.Itoa(len(all)-3) + " more"
	}
	var e *errs.Error
	if scope == scopeAll {
		e = errs.New(errs.WriteBoundary,
			fmt.Sprintf("只读代理 %s 在步骤 %s 中写入了声明输出以外的文件：%s", st.Agent(), st.String(), listed),
			fmt.Sprintf("read-only agent %s wrote files other than its declared output during %s: %s", st.Agent(), st.String(), listedEn)).
			Hint("只读代理只能把结果打印到 stdout；恢复这些文件后重新运行该步骤",
				"a read-only agent may only print its result to stdout; restore these files and run the step again")
		e.With("declared_outputs", declaredOutputs(st))
	} else {
		e = errs.New(errs.WriteBoundary,
			fmt.Sprintf("步骤 %s 在 staging/ 之外写入了文件：%s", st.String(), listed),
			fmt.Sprintf("step %s wrote files outside staging/: %s", st.String(), listedEn)).
			Hint("执行器只能写 staging/；恢复这些文件（例如用 git 或备份）后重新运行该步骤",
				"executors may write only under staging/; restore these files (from git or a backup) and run the step again")
	}
	e.With("step", st.String()).With("created", d.Created).With("changed", d.Changed).With("deleted", d.Deleted).
		With("snapshot", snapshot)
	if role != "" {
		e.With("role", role)
	}
	return e
}
