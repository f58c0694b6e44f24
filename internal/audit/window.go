package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/cast"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/textmeasure"
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
	// StoryTime is the story clock each chapter set (SPEC §25).
	StoryTime map[int]Clock
}

// Clock is a chapter's story clock: the day and the in-world label.
type Clock struct {
	Day   int
	Label string
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
	return load(root, from, to, false, nil, false)
}

// loadLight is Load with the foreshadowing items light (LoadGlobalLight):
// for the continuity audit alone, whose only item check (dormancy) needs
// the selection fields and parses in full just the items that look
// dormant on them — a third of a long book's items at most.
func loadLight(root *project.Root, from, to int) (*Window, error) {
	return load(root, from, to, false, nil, true)
}

// load reads the window; trusted skips the syntax check of the state file
// and of the changelog lines the window does not use, for the commit's
// maintenance step: it has just checked and written the state, each
// commit checked its own line, and rebuild --check judges the file (a
// damaged old line stopped the periodic audit and inventories, and their
// check was a third of a dense 10th-chapter commit's audit). The step
// also passes the foreshadowing items when it has parsed them.
func load(root *project.Root, from, to int, trusted bool, items []foreshadow.Item, light bool) (*Window, error) {
	w := &Window{From: from, To: to, Sentences: map[int][]string{}, Storyline: map[int]string{},
		StatusOps: map[string][]statusOp{}, BaselineDead: map[string]bool{}, Touched: map[int][]string{}}
	chars, _, err := cast.Load(root)
	if err != nil {
		return nil, err
	}
	for _, c := range chars {
		w.Characters = append(w.Characters, Entity{c.Slug, c.DisplayName})
	}
	for c := from; c <= to; c++ {
		rel := layout.Chapter(c)
		if !root.Exists(rel) {
			continue // a gap (a hand-arranged or plugin-era project): audit what is there
		}
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
	if err := w.readChangelog(root, trusted); err != nil {
		return nil, err
	}
	if err := w.readState(root, trusted); err != nil {
		return nil, err
	}
	if w.Foreshadow = items; items == nil {
		load := foreshadow.LoadGlobal
		if light {
			load = foreshadow.LoadGlobalLight
		}
		if w.Foreshadow, err = load(root); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// changelogOp is the part of a changelog op the audit reads.
type changelogOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// relevantPaths mark a changelog line whose ops the audit must decode;
// other lines only give their chapter's storyline (a long changelog is
// mostly lines the audit can skip).
var relevantPaths = [][]byte{[]byte(`.status"`), []byte(`.location"`), []byte(`.inventory"`), []byte(`.owner"`), []byte(`.holder"`), []byte(`"` + stateops.StoryTimePath + `"`)}

func (w *Window) readChangelog(root *project.Root, trusted bool) error {
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
		if err := w.changelogLine(sc.Bytes(), n, trusted); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return errs.Newf(errs.IO, "无法读取 %s：%v", "cannot read %s: %v", layout.Changelog, err).With("file", layout.Changelog)
	}
	return nil
}

func (w *Window) changelogLine(line []byte, n int, trusted bool) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	// A suite line before the window without a status op gives nothing
	// (its storyline and location/owner ops matter only around the
	// window): its chapter, first in the line as novel-commit writes it,
	// is enough to skip it without splitting the line (a dense project's
	// changelog is MBs, mostly such lines).
	c, ok := leadingChapter(line)
	unused := ok && c < w.From-1 && !bytes.Contains(line, relevantPaths[0])
	if trusted && unused {
		return nil
	}
	bad := func() error {
		return errs.Newf(errs.InvalidJSON, "%s 第 %d 行不是有效的 JSON 对象", "%s line %d is not a valid JSON object", layout.Changelog, n).
			With("file", layout.Changelog).With("line", n).Hint("运行 novel-commit rebuild --check 检查", "run novel-commit rebuild --check")
	}
	if _, err := jsonio.Validate(line, layout.Changelog); err != nil {
		return bad()
	}
	if unused {
		return nil
	}
	var chapter int
	var storyline string
	var ops json.RawMessage
	if !jsonio.SplitObjectBytes(line, func(key []byte, val json.RawMessage) {
		switch string(key) {
		case "chapter":
			chapter, _ = strconv.Atoi(string(val))
		case "storyline_id":
			storyline, _ = jsonio.String(val)
		case "ops":
			ops = val
		}
	}) {
		return bad()
	}
	if chapter > w.To || chapter < 1 {
		return nil
	}
	w.Storyline[chapter] = storyline
	// Status ops count from the first chapter (who is dead); the others
	// only around the window (a location or owner change between two
	// window chapters), so older lines without a status op stay undecoded.
	relevant := bytes.Contains(ops, relevantPaths[0])
	for _, p := range relevantPaths[1:] {
		relevant = relevant || (chapter >= w.From-1 && bytes.Contains(ops, p))
	}
	if !relevant {
		return nil
	}
	var decoded []changelogOp
	if json.Unmarshal(ops, &decoded) != nil {
		return nil // ops of another shape: nothing the audit can use
	}
	for _, op := range decoded {
		if op.Op == stateops.Set && op.Path == stateops.StoryTimePath {
			if day, label, ok := stateops.StoryTime(op.Value); ok {
				if w.StoryTime == nil {
					w.StoryTime = map[int]Clock{}
				}
				w.StoryTime[chapter] = Clock{day, label}
			}
			continue
		}
		seg := strings.Split(op.Path, ".")
		if len(seg) < 3 {
			continue
		}
		switch {
		case seg[0] == "characters" && seg[2] == "status" && op.Op == "set":
			w.StatusOps[seg[1]] = append(w.StatusOps[seg[1]], statusOp{chapter, isDead(op.Value)})
		case seg[0] == "characters" && (seg[2] == "location" || seg[2] == "inventory"),
			seg[0] == "items" && (seg[2] == "owner" || seg[2] == "holder"):
			w.Touched[chapter] = append(w.Touched[chapter], op.Path)
		}
	}
	return nil
}

// leadingChapter reads N from a line that starts {"chapter":N, (the
// layout of novel-commit's changelog lines).
func leadingChapter(line []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"chapter":`))
	if !ok {
		return 0, false
	}
	n, i := 0, 0
	for ; i < len(rest) && i < 9 && rest[i] >= '0' && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
	}
	if i == 0 || i >= len(rest) || rest[i] != ',' || (rest[0] == '0' && i > 1) {
		return 0, false
	}
	return n, true
}

// readState takes the known locations, items and dead characters from
// state/current-state.json. The state is the project's largest file (MBs
// at 2,000 chapters), so it is split with jsonio's scanner and only the
// few fields the audit reads are decoded.
func (w *Window) readState(root *project.Root, trusted bool) error {
	if !root.Exists(layout.CurrentState) {
		return nil
	}
	data, err := root.ReadFile(layout.CurrentState)
	if err != nil {
		return err
	}
	locs := map[string]bool{}
	entity := func(group, key string, val json.RawMessage) {
		switch group {
		case "characters":
			w.readCharacter(key, val, locs)
		case "items":
			f := fields(val, "display_name", "name", "owner", "holder")
			name, owner := firstOf(f["display_name"], f["name"]), firstOf(f["owner"], f["holder"])
			if name != "" && owner != "" {
				w.Items = append(w.Items, OwnedItem{name, owner})
			}
		case "locations":
			f := fields(val, "display_name", "name")
			if n := firstOf(f["display_name"], f["name"]); n != "" {
				locs[n] = true
			}
		}
	}
	// The state as the suite writes it is checked and split in one pass
	// (stateops' canonical scan); any other document the generic way.
	if groups, ok := stateops.CanonicalGroups(data); ok {
		for _, g := range []string{"characters", "items", "locations"} {
			for _, e := range groups[g] {
				entity(g, e.Key, e.Value)
			}
		}
	} else {
		if trusted {
			data = jsonio.StripBOM(data)
		} else if data, err = jsonio.Validate(data, layout.CurrentState); err != nil {
			return err
		}
		ok := jsonio.SplitObjectBytes(data, func(key []byte, group json.RawMessage) {
			if g := string(key); g == "characters" || g == "items" || g == "locations" {
				jsonio.SplitObject(group, func(k string, v json.RawMessage) { entity(g, k, v) })
			}
		})
		if !ok {
			return errs.Newf(errs.Schema, "%s 必须是 JSON 对象", "%s must be a JSON object", layout.CurrentState).With("file", layout.CurrentState)
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

func (w *Window) readCharacter(slug string, ch json.RawMessage, locs map[string]bool) {
	f := fields(ch, "location", "status", "inventory")
	if l := firstOf(f["location"]); l != "" {
		locs[l] = true
	}
	if st, ok := jsonio.String(f["status"]); ok && len(w.StatusOps[slug]) == 0 && isDead(st) {
		w.BaselineDead[slug] = true
	}
	if inv, ok := jsonio.SplitArray(f["inventory"]); ok {
		for _, it := range inv {
			if s := firstOf(it); s != "" {
				w.Items = append(w.Items, OwnedItem{s, slug})
			}
		}
	}
}

// fields picks the named members of a JSON object (absent → nil).
func fields(obj json.RawMessage, names ...string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(names))
	jsonio.SplitObjectBytes(obj, func(key []byte, val json.RawMessage) {
		for _, n := range names {
			if string(key) == n {
				out[n] = val
			}
		}
	})
	return out
}

// firstOf is the first raw value that is a non-blank JSON string, trimmed.
func firstOf(raws ...json.RawMessage) string {
	for _, r := range raws {
		if s, ok := jsonio.String(r); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// Sentences splits a chapter body (its heading line dropped) into
// sentences with the suite's one splitter (textmeasure).
func Sentences(text string) []string {
	var out []string
	for _, l := range textmeasure.Body(text) {
		out = append(out, textmeasure.Sentences(l.Text)...)
	}
	return out
}
