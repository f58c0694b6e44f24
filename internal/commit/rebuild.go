package commit

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
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
}

// Replay rebuilds the state from state/baseline.json (or the empty state)
// and the changelog lines after the baseline's version, stopping before
// chapter until (0 = all lines). It returns the canonical bytes.
func Replay(root *project.Root, until int) ([]byte, *RebuildResult, error) {
	res := &RebuildResult{}
	var st map[string]any
	if root.Exists(layout.Baseline) {
		data, err := root.ReadFile(layout.Baseline)
		if err != nil {
			return nil, nil, err
		}
		if st, _, err = stateops.DecodeState(data, layout.Baseline); err != nil {
			return nil, nil, err
		}
		res.FromBaseline = true
	} else {
		st = stateops.Empty()
	}
	base, _ := jsonio.Int(st["state_version"])
	data, err := readIfExists(root, layout.Changelog)
	if err != nil {
		return nil, nil, err
	}
	for i, ln := range splitLines(data) {
		var rl rawLine
		if err := jsonio.Decode(ln, layout.Changelog, &rl); err != nil {
			e := errs.Coerce(err)
			return nil, nil, errs.Newf(errs.InvalidJSON, "%s 第 %d 行无法解析：%s", "%s line %d does not parse: %s", layout.Changelog, i+1, e.En0()).
				With("file", layout.Changelog).With("line", i+1).
				Hint("修复或删除该行（先备份），再重新运行 rebuild", "fix or remove that line (back it up first), then run rebuild again")
		}
		if rl.StateVersion <= base {
			continue // before the baseline
		}
		if until > 0 && rl.Chapter >= until {
			break
		}
		var ops []stateops.Op
		for _, raw := range rl.Ops {
			v, err := stateops.Decode(raw)
			if err != nil {
				continue
			}
			if op, reason := stateops.Validate(v); reason == "" {
				ops = append(ops, op)
			}
		}
		stateops.Apply(st, ops)
		st["state_version"] = rl.StateVersion
		st["last_updated_chapter"] = rl.Chapter
		res.LinesReplayed++
	}
	out, err := jsonio.Marshal(st)
	if err != nil {
		return nil, nil, errs.Newf(errs.IO, "无法编码重建的状态：%v", "cannot encode the rebuilt state: %v", err)
	}
	res.StateVersion, _ = jsonio.Int(st["state_version"])
	return out, res, nil
}

// Check compares the rebuilt state with the file: nil when equal, else
// E_STATE naming the first differing path.
func Check(root *project.Root) (*RebuildResult, error) {
	rebuilt, res, err := Replay(root, 0)
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
	var a, b any
	path := "(file bytes: not canonical)"
	if jsonio.Decode(cur, layout.CurrentState, &a) == nil && jsonio.Decode(rebuilt, "rebuilt", &b) == nil {
		if p, ok := firstDiff(a, b, ""); ok {
			path = p
		}
	}
	res.FirstDifference = path
	return res, errs.Newf(errs.State, "%s 与 changelog 重放结果不一致，首个差异在 %s", "%s differs from the changelog replay; first difference at %s", layout.CurrentState, path).
		With("file", layout.CurrentState).With("path", path).With("lines_replayed", res.LinesReplayed).WithExit(errs.ExitFailed).
		Hint("确认后用 novel-commit rebuild（不带 --check）按 changelog 重写状态", "after checking, run novel-commit rebuild (without --check) to rewrite the state from the changelog")
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
