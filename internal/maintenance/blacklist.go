package maintenance

import (
	"slices"
	"strconv"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

// blacklistCap is the size of `words` at which nothing more is appended.
const blacklistCap = 80

// blacklistSource names this upkeep in update_log entries.
const blacklistSource = stepid.QualityJudge

// BlacklistReport lists what one chapter's suggestions changed.
type BlacklistReport struct {
	Added      []string `json:"added"`
	Exempted   []string `json:"exempted"`
	SkippedCap []string `json:"auto_skipped_cap"`
	Version    string   `json:"version,omitempty"`
}

type suggestion struct {
	phrase   string
	count    int
	examples any
}

// suggestions reads eval.anti_ai.blacklist_update_suggestions, keeping
// those with confidence medium/high and count_in_chapter ≥ 3, first
// occurrence of a phrase wins.
func suggestions(eval map[string]any) []suggestion {
	anti, _ := eval["anti_ai"].(map[string]any)
	list, _ := anti["blacklist_update_suggestions"].([]any)
	var out []suggestion
	seen := map[string]bool{}
	for _, x := range list {
		m, _ := x.(map[string]any)
		phrase, _ := m["phrase"].(string)
		conf, _ := m["confidence"].(string)
		n, isInt := jsonio.Int(m["count_in_chapter"])
		if phrase == "" || seen[phrase] || !isInt || n < 3 || (conf != "medium" && conf != "high") {
			continue
		}
		seen[phrase] = true
		out = append(out, suggestion{phrase: phrase, count: n, examples: m["examples"]})
	}
	return out
}

// updateBlacklist applies the eval's suggestions to ai-blacklist.json.
// Nothing is written when nothing qualifies, when the file is missing, or
// when update_log already has this chapter's entry (idempotence).
func updateBlacklist(root *project.Root, c int, eval map[string]any, now string) (BlacklistReport, error) {
	rep := BlacklistReport{Added: []string{}, Exempted: []string{}, SkippedCap: []string{}}
	sugg := suggestions(eval)
	if len(sugg) == 0 {
		return rep, nil
	}
	if ok, err := root.Optional(layout.AIBlacklist); !ok || err != nil {
		return rep, err
	}
	var bl map[string]any
	if err := root.ReadJSON(layout.AIBlacklist, &bl); err != nil {
		return rep, err
	}
	if bl == nil {
		bl = map[string]any{}
	}
	log, _ := bl["update_log"].([]any)
	for _, e := range log {
		m, _ := e.(map[string]any)
		if n, ok := jsonio.Int(m["chapter"]); ok && n == c && m["source"] == blacklistSource {
			// Already applied (a resumed commit): report what was done.
			rep.Added = stringList(m["added"])
			rep.Exempted = stringList(m["exempted"])
			rep.SkippedCap = stringList(m["auto_skipped_cap"])
			rep.Version, _ = bl["version"].(string)
			return rep, nil
		}
	}
	wordsRaw, _ := bl["words"].([]any)
	words := stringList(wordsRaw)
	white := whitelist(bl)
	preferred, err := preferredExpressions(root)
	if err != nil {
		return rep, err
	}
	evidence := map[string]any{}
	for _, s := range sugg {
		if slices.Contains(words, s.phrase) || slices.Contains(white, s.phrase) {
			continue
		}
		switch {
		case preferred[s.phrase]:
			white = append(white, s.phrase)
			rep.Exempted = append(rep.Exempted, s.phrase)
		case len(wordsRaw) >= blacklistCap:
			rep.SkippedCap = append(rep.SkippedCap, s.phrase)
		default:
			words = append(words, s.phrase)
			wordsRaw = append(wordsRaw, s.phrase)
			rep.Added = append(rep.Added, s.phrase)
		}
		evidence[s.phrase] = map[string]any{"count_in_chapter": s.count, "examples": s.examples}
	}
	if len(evidence) == 0 {
		return rep, nil
	}
	bl["words"] = wordsRaw
	setWhitelist(bl, white)
	bl["update_log"] = append(log, map[string]any{
		"chapter": c, "source": blacklistSource, "at": now,
		"added": rep.Added, "exempted": rep.Exempted, "auto_skipped_cap": rep.SkippedCap, "evidence": evidence,
	})
	bl["last_updated"] = now
	if v, ok := bl["version"].(string); ok {
		if bumped, ok := bumpPatch(v); ok && (len(rep.Added) > 0 || len(rep.Exempted) > 0) {
			bl["version"] = bumped
		}
	}
	rep.Version, _ = bl["version"].(string)
	return rep, root.WriteJSON(layout.AIBlacklist, bl)
}

// whitelist reads `whitelist` in either accepted form: a list of strings
// or an object {"words":[…]}.
func whitelist(bl map[string]any) []string {
	switch w := bl["whitelist"].(type) {
	case []any:
		return stringList(w)
	case map[string]any:
		return stringList(w["words"])
	}
	return nil
}

// setWhitelist writes the whitelist back in the form the file used.
func setWhitelist(bl map[string]any, words []string) {
	list := make([]any, len(words))
	for i, w := range words {
		list[i] = w
	}
	if m, ok := bl["whitelist"].(map[string]any); ok {
		m["words"] = list
		return
	}
	bl["whitelist"] = list
}

func preferredExpressions(root *project.Root) (map[string]bool, error) {
	out := map[string]bool{}
	if ok, err := root.Optional(layout.StyleProfile); !ok || err != nil {
		return out, err // a profile leaving the project is refused, not skipped
	}
	var sp map[string]any
	if root.ReadJSON(layout.StyleProfile, &sp) != nil {
		return out, nil
	}
	for _, p := range stringList(sp["preferred_expressions"]) {
		out[p] = true
	}
	return out, nil
}

var semverRE = lazyre.New(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$`)

// bumpPatch increments the patch of a plain MAJOR.MINOR.PATCH version.
func bumpPatch(v string) (string, bool) {
	m := semverRE().FindStringSubmatch(v)
	if m == nil {
		return v, false
	}
	p, err := strconv.Atoi(m[3])
	if err != nil {
		return v, false
	}
	return m[1] + "." + m[2] + "." + strconv.Itoa(p+1), true
}

func stringList(v any) []string {
	var list []any
	switch l := v.(type) {
	case []any:
		list = l
	case []string:
		return l
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
