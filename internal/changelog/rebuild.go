package changelog

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// RebuildResult is what `novel-commit rebuild` prints.
type RebuildResult struct {
	StateVersion    int    `json:"state_version"`
	FromBaseline    bool   `json:"from_baseline"`
	LinesReplayed   int    `json:"lines_replayed"`
	Matches         bool   `json:"matches"`
	FirstDifference string `json:"first_difference,omitempty"`
	Written         bool   `json:"written"`
	// Backups are the replaced files, kept under state/backups/.
	Backups []string `json:"backups,omitempty"`
	// ForeshadowRestored: foreshadowing/global.json (missing or not
	// parsing) was rebuilt from the changelog's foreshadow ops.
	ForeshadowRestored bool `json:"foreshadow_restored,omitempty"`
	// Mentions is state/mentions.jsonl against what the chapters and the
	// changelog give (SPEC §25): matches, missing, differs or rebuilt.
	Mentions           string `json:"mentions,omitempty"`
	MentionsDifference string `json:"mentions_difference,omitempty"`
}

// replayBase is where a replay starts: state/baseline.json, or the empty
// state when there is none.
type replayBase struct {
	state   map[string]any
	version int
	chapter int
	found   bool
}

func loadBase(root *project.Root) (*replayBase, error) {
	b := &replayBase{}
	if !root.Exists(layout.Baseline) {
		b.state = stateops.Empty()
		return b, nil
	}
	data, err := root.ReadFile(layout.Baseline)
	if err != nil {
		return nil, err
	}
	if b.state, _, err = stateops.DecodeState(data, layout.Baseline); err != nil {
		return nil, err
	}
	b.found = true
	b.version, _ = jsonio.Int(b.state["state_version"])
	b.chapter, _ = jsonio.Int(b.state["last_updated_chapter"])
	return b, nil
}

// Replay rebuilds the state from state/baseline.json (or the empty state)
// and the changelog lines after the baseline's version, stopping before
// chapter until (0 = all lines). It returns the canonical bytes.
func Replay(root *project.Root, until int) ([]byte, *RebuildResult, error) {
	b, entries, err := replayInputs(root)
	if err != nil {
		return nil, nil, err
	}
	return replay(b, entries, until)
}

func replayInputs(root *project.Root) (*replayBase, []Entry, error) {
	b, err := loadBase(root)
	if err != nil {
		return nil, nil, err
	}
	data, err := root.ReadIfExists(layout.Changelog)
	if err != nil {
		return nil, nil, err
	}
	entries, err := readEntries(data)
	if err != nil {
		return nil, nil, err
	}
	return b, entries, nil
}

// replay applies the commit lines after the baseline (the base state is
// consumed).
func replay(b *replayBase, entries []Entry, until int) ([]byte, *RebuildResult, error) {
	return replayWith(b, entries, until, nil)
}

// replayWith is replay calling after, when set, with each commit line
// and the state once it is applied (the base state for a line the
// baseline already holds).
func replayWith(b *replayBase, entries []Entry, until int, after func(Entry, map[string]any)) ([]byte, *RebuildResult, error) {
	res := &RebuildResult{FromBaseline: b.found}
	st := b.state
	for _, e := range entries {
		if !e.Commit || e.StateVersion <= b.version {
			if e.Commit && after != nil && (until == 0 || e.Chapter < until) {
				after(e, st)
			}
			continue // a note, or history the baseline already holds
		}
		if until > 0 && e.Chapter >= until {
			break
		}
		var ops []stateops.Op
		for _, raw := range e.Ops {
			v, err := stateops.Decode(raw)
			if err != nil {
				continue
			}
			if op, reason := stateops.Validate(v); reason == "" {
				ops = append(ops, op)
			}
		}
		stateops.Apply(st, ops)
		st["state_version"] = e.StateVersion
		st["last_updated_chapter"] = e.Chapter
		res.LinesReplayed++
		if after != nil {
			after(e, st)
		}
	}
	out, err := jsonio.Marshal(st)
	if err != nil {
		return nil, nil, errs.Newf(errs.IO, "无法编码重建的状态：%v", "cannot encode the rebuilt state: %v", err)
	}
	res.StateVersion, _ = jsonio.Int(st["state_version"])
	return out, res, nil
}

// Check compares the rebuilt state with the file: nil when equal, else
// E_STATE naming the first differing path. Its hint offers
// `novel-commit rebuild` only when the rebuild would be allowed (trust);
// otherwise it says why not and what to do instead.
func Check(root *project.Root) (*RebuildResult, error) {
	b, entries, err := replayInputs(root)
	if err != nil {
		return nil, err
	}
	rebuilt, res, err := replay(b, entries, 0)
	if err != nil {
		return nil, err
	}
	cur, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(cur, rebuilt) {
		res.Matches = true
		return res, nil
	}
	var a, bb any
	path := "(file bytes: not canonical)"
	if jsonio.Decode(cur, layout.CurrentState, &a) == nil && jsonio.Decode(rebuilt, "rebuilt", &bb) == nil {
		if p, ok := firstDiff(a, bb, ""); ok {
			path = p
		}
	} else if jsonio.Decode(cur, layout.CurrentState, &a) != nil {
		path = "(file does not parse)"
	}
	res.FirstDifference = path
	e := errs.Newf(errs.State, "%s 与 changelog 重放结果不一致，首个差异在 %s", "%s differs from the changelog replay; first difference at %s", layout.CurrentState, path).
		With("file", layout.CurrentState).With("path", path).With("lines_replayed", res.LinesReplayed).WithExit(errs.ExitFailed)
	if terr := trust(root, b, entries, cur, rebuilt); terr != nil {
		t := errs.Coerce(terr)
		e.With("rebuild", "refused").With("reason", t.En0())
		return res, e.Hint("不要运行 novel-commit rebuild，它会被拒绝："+t.Zh+"。"+t.HintZh, "do not run novel-commit rebuild, it refuses: "+t.En0()+". "+t.HintEn)
	}
	e.With("rebuild", "possible")
	return res, e.Hint("确认差异后运行 novel-commit rebuild（不带 --check）按 changelog 重写状态；原文件保存在 state/backups/",
		"after checking the difference, run novel-commit rebuild (without --check) to rewrite the state from the changelog; the old file is kept under state/backups/")
}

// RestoreRefusal says whether `novel-commit rebuild` would restore rel
// (state/current-state.json or foreshadowing/global.json) now: nil when
// it would, else its refusal (status offers rebuild only on nil).
func RestoreRefusal(root *project.Root, rel string) error {
	b, entries, err := replayInputs(root)
	if err != nil {
		return err
	}
	if rel == layout.GlobalForeshadow {
		_, err := foreshadowFromLog(root, entries)
		return err
	}
	rebuilt, _, err := replay(b, entries, 0)
	if err != nil {
		return err
	}
	cur, err := root.ReadIfExists(layout.CurrentState)
	if err != nil {
		return err
	}
	return trust(root, b, entries, cur, rebuilt)
}

// trust refuses (E_STATE, exit 1) a replay that would lose data (SPEC
// §22.1 "Repairs never destroy"): no baseline while the state is not
// empty; changelog lines after the baseline that do not cover each
// committed chapter once, in order, with their versions chained; a replay
// without an entity the current state has. cur is the current file (nil
// when missing).
func trust(root *project.Root, b *replayBase, entries []Entry, cur, rebuilt []byte) error {
	var curState map[string]any
	parses := cur != nil && json.Unmarshal(cur, &curState) == nil && curState != nil
	if !b.found && (cur != nil && (!parses || !stateops.IsEmpty(curState))) {
		e := refuse("没有 %s，而 %s 不是空状态：重放会从空状态开始，丢掉其中的内容", "%s is missing while %s is not empty: the replay would start from the empty state and lose its contents",
			layout.Baseline, layout.CurrentState).With("file", layout.Baseline)
		if parses {
			return e.Hint("保留现在的状态；运行 novel migrate 把它记为基线（state/baseline.json），之后的修复以它为起点",
				"keep the state as it is; run novel migrate to record it as the baseline (state/baseline.json), the start of every later repair")
		}
		return e.Hint("没有基线就无法从 changelog 恢复它：从你自己的副本恢复 state/current-state.json",
			"without a baseline the changelog cannot restore it: restore state/current-state.json from your own copy")
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		return err
	}
	want, prev, lines := b.chapter+1, b.version, 0
	for _, e := range entries {
		if !e.Commit || e.StateVersion <= b.version {
			continue
		}
		if e.Chapter != want || e.BaseStateVersion != prev {
			return gapErr(want, e, prev)
		}
		want, prev, lines = want+1, e.StateVersion, lines+1
	}
	if want <= cp.LastCompleted {
		return refuse("%s 缺少第 %d–%d 章的提交记录（基线之后已提交到第 %d 章）", "%s has no commit line for chapters %d–%d (chapters up to %d are committed after the baseline)",
			layout.Changelog, want, cp.LastCompleted, cp.LastCompleted).With("file", layout.Changelog).With("missing_from", want).With("missing_to", cp.LastCompleted).
			Hint("重放会丢掉这些章节的状态：从你自己的副本恢复 state/changelog.jsonl；状态文件本身保持不变",
				"the replay would lose those chapters' state: restore state/changelog.jsonl from your own copy; leave the state file as it is")
	}
	if lines > 0 && want-1 > cp.LastCompleted {
		return refuse("%s 有第 %d 章的提交记录，但 last_completed_chapter 是 %d", "%s has a commit line for chapter %d but last_completed_chapter is %d",
			layout.Changelog, want-1, cp.LastCompleted).With("file", layout.Changelog).
			Hint("先用 novel status 查看是否有未完成的提交或回滚并完成它", "check novel status for an unfinished commit or rollback and finish it first")
	}
	if parses {
		var next map[string]any
		if err := json.Unmarshal(rebuilt, &next); err != nil {
			return errs.Newf(errs.IO, "无法解析重建的状态：%v", "cannot parse the rebuilt state: %v", err)
		}
		for _, g := range stateops.Groups {
			have, _ := curState[g].(map[string]any)
			got, _ := next[g].(map[string]any)
			keys := make([]string, 0, len(have))
			for k := range have {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if _, ok := got[k]; !ok {
					return refuse("重放结果没有 %s.%s，而当前状态有：重放会丢掉它", "the replay has no %s.%s, which the current state has: it would be lost", g, k).
						With("path", g+"."+k).Hint("状态中有 changelog 没有记录的内容：保留现在的状态，不要重建；用 novel-commit rebuild --check 查看差异",
						"the state holds what the changelog never recorded: keep it as it is and do not rebuild; novel-commit rebuild --check shows the difference")
				}
			}
		}
	}
	return nil
}

func refuse(zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.State, "无法可靠重建："+zh, "cannot rebuild safely: "+en, args...).WithExit(errs.ExitFailed)
}

// gapErr names the first changelog line that breaks the chain.
func gapErr(want int, e Entry, prev int) error {
	if e.Chapter != want {
		return refuse("%s 缺少第 %d 章的提交记录（下一行是第 %d 章）", "%s has no commit line for chapter %d (the next line is chapter %d)", layout.Changelog, want, e.Chapter).
			With("file", layout.Changelog).With("missing_chapter", want).
			Hint("重放会丢掉该章的状态：从你自己的副本恢复 state/changelog.jsonl；状态文件本身保持不变",
				"the replay would lose that chapter's state: restore state/changelog.jsonl from your own copy; leave the state file as it is")
	}
	return refuse("%s 中第 %d 章的 base_state_version 是 %d，前一行的 state_version 是 %d", "%s: chapter %d has base_state_version %d but the line before ends at state_version %d",
		layout.Changelog, e.Chapter, e.BaseStateVersion, prev).With("file", layout.Changelog).With("chapter", e.Chapter).
		Hint("版本链断开，说明有提交记录丢失或被改动：从你自己的副本恢复 state/changelog.jsonl；状态文件本身保持不变",
			"the version chain is broken, so a commit line was lost or changed: restore state/changelog.jsonl from your own copy; leave the state file as it is")
}

// Rebuild rewrites state/current-state.json from the baseline and the
// changelog when they differ and the replay can be trusted; the replaced
// file is kept under state/backups/ first. A matching state is left alone.
func Rebuild(root *project.Root, now string) (*RebuildResult, error) {
	b, entries, err := replayInputs(root)
	if err != nil {
		return nil, err
	}
	data, res, err := replay(b, entries, 0)
	if err != nil {
		return nil, err
	}
	cur, err := root.ReadIfExists(layout.CurrentState)
	if err != nil {
		return nil, err
	}
	res.Matches = bytes.Equal(cur, data)
	if !res.Matches {
		if err := trust(root, b, entries, cur, data); err != nil {
			return nil, err
		}
	}
	fsOld, fsNew, err := foreshadowRestore(root, entries)
	if err != nil {
		return nil, err
	}
	if !res.Matches {
		if err := replaceKept(root, res, layout.CurrentState, cur, data, now); err != nil {
			return nil, err
		}
	}
	if fsNew != nil {
		if err := replaceKept(root, res, layout.GlobalForeshadow, fsOld, fsNew, now); err != nil {
			return nil, err
		}
		res.ForeshadowRestored = true
	}
	if err := rebuildMentions(root, res, now); err != nil {
		return nil, err
	}
	return res, nil
}

// replaceKept writes data over rel, keeping its old bytes (when there
// were any) under state/backups/ first.
func replaceKept(root *project.Root, res *RebuildResult, rel string, old, data []byte, now string) error {
	if old != nil {
		kept, err := keepBackup(root, rel, old, now)
		if err != nil {
			return err
		}
		res.Backups = append(res.Backups, kept)
	}
	if err := root.WriteFile(rel, data); err != nil {
		return err
	}
	res.Written = true
	return nil
}

// foreshadowRestore decides whether rebuild restores
// foreshadowing/global.json from the changelog's foreshadow ops: only when
// the file does not parse, or is missing although some commit planted
// something (a file that parses is the author's and is left alone). It
// returns the old bytes (nil when missing) and the restored ones (nil:
// nothing to do); a changelog that does not hold every committed chapter
// from chapter 1 on cannot restore it (E_STATE).
func foreshadowRestore(root *project.Root, entries []Entry) (old, restored []byte, err error) {
	if old, err = root.ReadIfExists(layout.GlobalForeshadow); err != nil {
		return nil, nil, err
	}
	if old != nil {
		if _, perr := foreshadow.Parse(old, layout.GlobalForeshadow); perr == nil {
			return old, nil, nil
		}
	} else if !hasForeshadowOps(entries) {
		return nil, nil, nil
	}
	data, err := foreshadowFromLog(root, entries)
	if err != nil {
		return nil, nil, err
	}
	return old, data, nil
}

func hasForeshadowOps(entries []Entry) bool {
	for _, e := range entries {
		if e.Commit && len(foreshadowOps(e.Ops)) > 0 {
			return true
		}
	}
	return false
}

func foreshadowOps(ops []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range ops {
		var head struct {
			Op string `json:"op"`
		}
		if json.Unmarshal(raw, &head) == nil && head.Op == string(stateops.Foreshadow) {
			out = append(out, raw)
		}
	}
	return out
}

// foreshadowFromLog merges every commit line's foreshadow ops in order
// into an empty fact layer, as the commits did. The lines must hold each
// committed chapter from 1 on: an item planted by a chapter without a
// line would be lost.
func foreshadowFromLog(root *project.Root, entries []Entry) ([]byte, error) {
	cp, err := checkpoint.Load(root)
	if err != nil {
		return nil, err
	}
	want := 1
	for _, e := range entries {
		if !e.Commit {
			continue
		}
		if e.Chapter != want {
			break
		}
		want++
	}
	if want <= cp.LastCompleted {
		return nil, refuse("%s 无法从 %s 恢复：没有第 %d 章的提交记录", "%s cannot be restored from %s: it has no commit line for chapter %d",
			layout.GlobalForeshadow, layout.Changelog, want).With("file", layout.GlobalForeshadow).With("missing_chapter", want).
			Hint("从你自己的副本恢复 foreshadowing/global.json", "restore foreshadowing/global.json from your own copy")
	}
	gf := &foreshadow.File{Rel: layout.GlobalForeshadow, Items: []foreshadow.Item{}}
	items := gf.Items
	for _, e := range entries {
		ops := foreshadowOps(e.Ops)
		if !e.Commit || len(ops) == 0 {
			continue
		}
		vol, _ := outline.VolumeOf(root, e.Chapter, cp.CurrentVolume)
		plan, err := foreshadow.LoadPlan(root, vol)
		if err != nil {
			return nil, err
		}
		// Ops another tool committed unvalidated drop here as they did there.
		items, _ = foreshadow.Merge(items, plan, foreshadow.ParseOps(ops), e.Chapter, e.StorylineID)
	}
	data, err := gf.Encode(items)
	if err != nil {
		return nil, errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", layout.GlobalForeshadow, err)
	}
	return data, nil
}

// backupDir keeps every file a repair replaced (rebuild).
const backupDir = layout.StateBackups

// keepBackup saves data (the file rel is about to be replaced) as
// state/backups/<name>.<UTC time>[-n].<ext>, never over another backup.
// The same bytes kept already are not kept twice: a rebuild killed after
// its backup and run again leaves the tree a single run leaves.
func keepBackup(root *project.Root, rel string, data []byte, now string) (string, error) {
	ext := path.Ext(rel)
	base := strings.TrimSuffix(path.Base(rel), ext)
	ents, err := root.ReadDir(backupDir)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, base+".") || !strings.HasSuffix(name, ext) {
			continue
		}
		if have, err := root.ReadFile(backupDir + "/" + name); err == nil && bytes.Equal(have, data) {
			return backupDir + "/" + name, nil
		}
	}
	stamp := strings.NewReplacer("-", "", ":", "").Replace(now)
	if stamp == "" {
		stamp = "backup"
	}
	kept := backupDir + "/" + base + "." + stamp + ext
	for n := 2; root.Exists(kept); n++ {
		kept = backupDir + "/" + base + "." + stamp + "-" + strconv.Itoa(n) + ext
	}
	if err := root.WriteFile(kept, data); err != nil {
		return "", err
	}
	return kept, nil
}

// firstDiff walks two decoded values in sorted key order.
func firstDiff(a, b any, path string) (string, bool) {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := map[string]bool{}
		for k := range ma {
			keys[k] = true
		}
		for k := range mb {
			keys[k] = true
		}
		list := make([]string, 0, len(keys))
		for k := range keys {
			list = append(list, k)
		}
		sort.Strings(list)
		for _, k := range list {
			p := k
			if path != "" {
				p = path + "." + k
			}
			va, ia := ma[k]
			vb, ib := mb[k]
			if ia != ib {
				return p, true
			}
			if d, ok := firstDiff(va, vb, p); ok {
				return d, true
			}
		}
		return "", false
	}
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB {
		for i := 0; i < len(la) && i < len(lb); i++ {
			if d, ok := firstDiff(la[i], lb[i], path+"["+strconv.Itoa(i)+"]"); ok {
				return d, true
			}
		}
		if len(la) != len(lb) {
			return path + "[" + strconv.Itoa(min(len(la), len(lb))) + "]", true
		}
		return "", false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		if path == "" {
			path = "(top)"
		}
		return path, true
	}
	return "", false
}
