package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
)

// Window is everything the checks read: the committed chapters a..b split
// into sentences, and the known entities with their history.
type Window struct {
	From, To   int
	Sentences  map[int][]string // chapter → sentences of its body
	Storyline  map[int]string   // chapter → storyline id (changelog)
	Characters []Entity
	// StatusOps are the status changes per character, in chapter order.
	StatusOps map[string][]statusOp
	// BaselineDead marks characters already dead before any logged op.
	BaselineDead map[string]bool
	// Touched[c] lists the state paths chapter c's ops set (location,
	// owner, inventory), to tell a shown change from a silent one.
	Touched    map[int][]string
	Locations  []string
	Items      []OwnedItem
	Foreshadow []foreshadow.Item
}

// Entity is a character: slug and display name.
type Entity struct{ Slug, Name string }

// OwnedItem is an item name and the character who holds it.
type OwnedItem struct{ Name, Owner string }

type statusOp struct {
	chapter int
	dead    bool
}

// deadWords mark a status value as dead (SPEC §21: dead/死亡/陨落).
var deadWords = []string{"dead", "死亡", "陨落"}

func isDead(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.ToLower(s)
	for _, w := range deadWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Load reads the window of chapters from..to (both committed).
func Load(root *project.Root, from, to int) (*Window, error) {
	w := &Window{From: from, To: to, Sentences: map[int][]string{}, Storyline: map[int]string{},
		StatusOps: map[string][]statusOp{}, BaselineDead: map[string]bool{}, Touched: map[int][]string{}}
	chars, _, err := manifest.LoadCharacters(root)
	if err != nil {
		return nil, err
	}
	for _, c := range chars {
		w.Characters = append(w.Characters, Entity{c.Slug, c.DisplayName})
	}
	for c := from; c <= to; c++ {
		rel := layout.Chapter(c)
		data, err := root.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(data) {
			return nil, errs.Newf(errs.Schema, "%s 不是 UTF-8 文本", "%s is not UTF-8 text", rel).With("file", rel).
				Hint("把文件另存为 UTF-8 后重试", "re-save the file as UTF-8 and retry")
		}
		w.Sentences[c] = Sentences(string(jsonio.StripBOM(data)))
	}
	if err := w.readChangelog(root); err != nil {
		return nil, err
	}
	if err := w.readState(root); err != nil {
		return nil, err
	}
	if w.Foreshadow, err = foreshadow.LoadGlobal(root); err != nil {
		return nil, err
	}
	return w, nil
}

// changelogEntry is the part of a state/changelog.jsonl line the audit reads.
type changelogEntry struct {
	Chapter     int    `json:"chapter"`
	StorylineID string `json:"storyline_id"`
	Ops         []struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	} `json:"ops"`
}

func (w *Window) readChangelog(root *project.Root) error {
	abs, err := root.Abs(layout.Changelog)
	if err != nil {
		return err
	}
	f, err := os.Open(abs)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", layout.Changelog, err).With("file", layout.Changelog)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 32<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var e changelogEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return errs.Newf(errs.InvalidJSON, "%s 第 %d 行不是有效的 JSON", "%s line %d is not valid JSON", layout.Changelog, n).
				With("file", layout.Changelog).With("line", n).Hint("运行 novel-commit rebuild --check 检查", "run novel-commit rebuild --check")
		}
		if e.Chapter > w.To {
			continue
		}
		w.Storyline[e.Chapter] = e.StorylineID
		for _, op := range e.Ops {
			seg := strings.Split(op.Path, ".")
			if len(seg) < 3 {
				continue
			}
			switch {
			case seg[0] == "characters" && seg[2] == "status" && op.Op == "set":
				w.StatusOps[seg[1]] = append(w.StatusOps[seg[1]], statusOp{e.Chapter, isDead(op.Value)})
			case seg[0] == "characters" && (seg[2] == "location" || seg[2] == "inventory"),
				seg[0] == "items" && (seg[2] == "owner" || seg[2] == "holder"):
				w.Touched[e.Chapter] = append(w.Touched[e.Chapter], op.Path)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", layout.Changelog, err).With("file", layout.Changelog)
	}
	return nil
}

// stateView is the part of state/current-state.json the audit reads.
type stateView struct {
	Characters map[string]map[string]any `json:"characters"`
	Items      map[string]map[string]any `json:"items"`
	Locations  map[string]map[string]any `json:"locations"`
}

func (w *Window) readState(root *project.Root) error {
	var st stateView
	if root.Exists(layout.CurrentState) {
		if err := root.ReadJSON(layout.CurrentState, &st); err != nil {
			return err
		}
	}
	locs := map[string]bool{}
	name := func(m map[string]any) string {
		for _, k := range []string{"display_name", "name"} {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	for slug, ch := range st.Characters {
		if l, ok := ch["location"].(string); ok {
			locs[strings.TrimSpace(l)] = true
		}
		if len(w.StatusOps[slug]) == 0 && isDead(ch["status"]) {
			w.BaselineDead[slug] = true
		}
		if inv, ok := ch["inventory"].([]any); ok {
			for _, it := range inv {
				if s, ok := it.(string); ok {
					w.Items = append(w.Items, OwnedItem{strings.TrimSpace(s), slug})
				}
			}
		}
	}
	for _, l := range st.Locations {
		if n := name(l); n != "" {
			locs[n] = true
		}
	}
	for _, it := range st.Items {
		n := name(it)
		owner, _ := it["owner"].(string)
		if owner == "" {
			owner, _ = it["holder"].(string)
		}
		if n != "" && owner != "" {
			w.Items = append(w.Items, OwnedItem{n, owner})
		}
	}
	for l := range locs {
		if utf8.RuneCountInString(l) >= 2 {
			w.Locations = append(w.Locations, l)
		}
	}
	sort.Strings(w.Locations)
	sort.Slice(w.Items, func(i, j int) bool {
		if w.Items[i].Name != w.Items[j].Name {
			return w.Items[i].Name < w.Items[j].Name
		}
		return w.Items[i].Owner < w.Items[j].Owner
	})
	return nil
}

// Sentences splits a chapter body (its `#` heading dropped) into
// sentences: a sentence ends at 。！？!? or …… (with any closing quote
// after it) or at a line end.
func Sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rs := []rune(line)
		start := 0
		for i := 0; i < len(rs); i++ {
			if !strings.ContainsRune("。！？!?…", rs[i]) {
				continue
			}
			j := i + 1
			for j < len(rs) && strings.ContainsRune("…。！？!?」』”’）)", rs[j]) {
				j++
			}
			if s := strings.TrimSpace(string(rs[start:j])); s != "" {
				out = append(out, s)
			}
			start, i = j, j-1
		}
		if s := strings.TrimSpace(string(rs[start:])); s != "" {
			out = append(out, s)
		}
	}
	return out
}
