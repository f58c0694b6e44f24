package lint

import (
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// Blacklist is the effective ai-blacklist: words minus whitelist, file order.
type Blacklist struct {
	Words []string
}

// LoadBlacklist reads ai-blacklist.json (nil when the project has none):
// words minus whitelist and exemptions, first occurrence, file order.
func LoadBlacklist(root *project.Root) (*Blacklist, error) {
	if !root.Exists(layout.AIBlacklist) {
		return nil, nil
	}
	var raw any
	if err := root.ReadJSON(layout.AIBlacklist, &raw); err != nil {
		return nil, err
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, errs.SchemaIn(layout.AIBlacklist, "必须是 JSON 对象", "must be a JSON object")
	}
	return parseBlacklist(obj)
}

func parseBlacklist(obj map[string]any) (*Blacklist, error) {
	words, err := stringList(obj["words"], "words")
	if err != nil {
		return nil, err
	}
	white := map[string]bool{}
	var wl any = obj["whitelist"]
	if m, isObj := wl.(map[string]any); isObj {
		wl = m["words"]
	}
	wlist, err := stringList(wl, "whitelist")
	if err != nil {
		return nil, err
	}
	for _, w := range wlist {
		white[w] = true
	}
	if ex, isObj := obj["exemptions"].(map[string]any); isObj {
		el, err := stringList(ex["words"], "exemptions.words")
		if err != nil {
			return nil, err
		}
		for _, w := range el {
			white[w] = true
		}
	}
	b := &Blacklist{Words: []string{}}
	seen := map[string]bool{}
	for _, w := range words {
		if white[w] || seen[w] {
			continue
		}
		seen[w] = true
		b.Words = append(b.Words, w)
	}
	return b, nil
}

// stringList reads a list of strings (trimmed, empty ones dropped); also
// accepts {"word"|"phrase": …} entries.
func stringList(v any, field string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errs.SchemaIn(layout.AIBlacklist, "字段 %s 必须是字符串数组", "field %s must be a list of strings", field)
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		var s string
		switch e := x.(type) {
		case string:
			s = e
		case map[string]any:
			s = asString(e["word"])
			if s == "" {
				s = asString(e["phrase"])
			}
		default:
			return nil, errs.SchemaIn(layout.AIBlacklist, "字段 %s[%d] 必须是字符串", "field %s[%d] must be a string", field, i)
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Top10 is ai_blacklist_top10.
func (b *Blacklist) Top10() []string {
	return b.Words[:min(10, len(b.Words))]
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
