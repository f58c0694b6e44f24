package setupstep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// CanonLog is logs/canon-changes.jsonl (SPEC §25): one line per setup
// commit that changed the world rules or the cast while the book was
// being written, so the chapters still to write follow the new canon.
const CanonLog = layout.LogsDir + "/canon-changes.jsonl"

// CanonEntry is one line of the canon log.
type CanonEntry struct {
	// Chapter is the last completed chapter when the canon changed: every
	// later chapter of Volume follows the new text.
	Chapter int           `json:"chapter"`
	Volume  int           `json:"volume"`
	Step    string        `json:"step"`
	At      string        `json:"at"`
	Changes []CanonChange `json:"changes"`
}

// CanonChange is one changed rule or character field; Old null is an
// addition, New null a removal.
type CanonChange struct {
	Rule      string  `json:"rule,omitempty"`      // W-NNN
	Character string  `json:"character,omitempty"` // slug
	Field     string  `json:"field,omitempty"`     // a character's field
	Old       *string `json:"old"`
	New       *string `json:"new"`
}

// Midbook is where the book stands when a setup commit changes canon
// (nil: not while writing, nothing is logged).
type Midbook struct {
	Chapter, Volume int
}

// canonChanges compares the committed world rules or characters with the
// staged ones (files: the stage's staged outputs as final paths).
func canonChanges(root *project.Root, stage string, files []string) ([]CanonChange, error) {
	out := []CanonChange{}
	switch stage {
	case stepid.SetupWorld:
		if !has(files, layout.WorldRules) {
			return out, nil
		}
		old, err := ruleTexts(root, layout.WorldRules)
		if err != nil {
			return nil, err
		}
		staged, err := ruleTexts(root, StagedPath(layout.WorldRules))
		if err != nil {
			return nil, err
		}
		for _, id := range unionKeys(old, staged) {
			if o, n := old[id], staged[id]; !sameText(o, n) {
				out = append(out, CanonChange{Rule: id, Old: o, New: n})
			}
		}
	case stepid.SetupCharacters:
		for _, f := range files {
			if !strings.HasSuffix(f, ".json") {
				continue
			}
			slug := strings.TrimSuffix(f[strings.LastIndex(f, "/")+1:], ".json")
			old := map[string]*string{}
			if root.IsFile(f) {
				var err error
				if old, err = fieldTexts(root, f); err != nil {
					return nil, err
				}
			}
			staged, err := fieldTexts(root, StagedPath(f))
			if err != nil {
				return nil, err
			}
			for _, k := range unionKeys(old, staged) {
				if o, n := old[k], staged[k]; !sameText(o, n) {
					out = append(out, CanonChange{Character: slug, Field: k, Old: o, New: n})
				}
			}
		}
	}
	return out, nil
}

func sameText(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func unionKeys(a, b map[string]*string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// ruleTexts reads a rules file as id → "rule（hard|soft）；例外：…".
func ruleTexts(root *project.Root, rel string) (map[string]*string, error) {
	out := map[string]*string{}
	if !root.IsFile(rel) {
		return out, nil
	}
	var doc struct {
		Rules []struct {
			ID             string   `json:"id"`
			Rule           string   `json:"rule"`
			ConstraintType string   `json:"constraint_type"`
			Exceptions     []string `json:"exceptions"`
		} `json:"rules"`
	}
	if err := root.ReadJSON(rel, &doc); err != nil {
		return nil, err
	}
	for _, r := range doc.Rules {
		t := r.Rule + "（" + r.ConstraintType + "）"
		if len(r.Exceptions) > 0 {
			t += "；例外：" + strings.Join(r.Exceptions, "；")
		}
		out[r.ID] = &t
	}
	return out, nil
}

// fieldTexts reads a character contract as field → its value as text
// (strings as they are, anything else as compact JSON).
func fieldTexts(root *project.Root, rel string) (map[string]*string, error) {
	var m map[string]json.RawMessage
	if err := root.ReadJSON(rel, &m); err != nil {
		return nil, err
	}
	out := map[string]*string{}
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) != nil {
				return nil, errs.Newf(errs.InvalidJSON, "%s 的字段 %s 不是有效的 JSON", "field %s of %s is not valid JSON", rel, k).With("file", rel)
			}
			s = buf.String()
		}
		out[k] = &s
	}
	return out, nil
}

// canonWrite is the canon log with entry appended (its whole new text:
// the log is short, and an atomic rewrite replays safely).
func canonWrite(root *project.Root, entry CanonEntry) (string, error) {
	line, err := jsonio.MarshalLine(entry)
	if err != nil {
		return "", err
	}
	old := ""
	if root.IsFile(CanonLog) {
		if old, err = root.ReadText(CanonLog); err != nil {
			return "", err
		}
		if old != "" && !strings.HasSuffix(old, "\n") {
			old += "\n"
		}
	}
	return old + strings.TrimRight(string(line), "\n") + "\n", nil
}

// loadCanon reads the canon log (none: no entries). A line that is not a
// canon entry is E_SCHEMA naming the file and line.
func loadCanon(root *project.Root) ([]CanonEntry, error) {
	ok, err := root.Optional(CanonLog)
	if err != nil || !ok {
		return nil, err
	}
	text, err := root.ReadText(CanonLog)
	if err != nil {
		return nil, err
	}
	var out []CanonEntry
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var e CanonEntry
		if err := jsonio.Decode([]byte(line), CanonLog, &e); err != nil {
			return nil, errs.New(errs.Schema, fmt.Sprintf("%s 第 %d 行不是设定变更记录", CanonLog, i+1), fmt.Sprintf("line %d of %s is not a canon change record", i+1, CanonLog)).
				With("file", CanonLog).With("line", i+1).
				Hint("修正或删除该行（它由 novel-commit setup --replace 写入）", "fix or remove that line (novel-commit setup --replace writes it)")
		}
		out = append(out, e)
	}
	return out, nil
}

// CanonSince are the canon changes chapter c of volume v must follow:
// those made while volume v was being written, before chapter c — newer
// than the chapter's contract, which the volume plan wrote.
func CanonSince(root *project.Root, v, c int) ([]CanonEntry, error) {
	all, err := loadCanon(root)
	if err != nil {
		return nil, err
	}
	var out []CanonEntry
	for _, e := range all {
		if e.Volume == v && e.Chapter < c {
			out = append(out, e)
		}
	}
	return out, nil
}

// canonSummary is the result's account of a logged canon change.
func canonSummary(changes []CanonChange) []string {
	out := make([]string, len(changes))
	for i, ch := range changes {
		switch {
		case ch.Rule != "":
			out[i] = ch.Rule
		default:
			out[i] = fmt.Sprintf("%s.%s", ch.Character, ch.Field)
		}
	}
	return out
}
