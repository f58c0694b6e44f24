// Package platform holds the web-novel platform profiles (SPEC §20): how
// many words a chapter should have on 番茄 (fanqie), 起点 (qidian), 晋江
// (jinjiang) or in general, the settings.json words_per_chapter target,
// and the project's platform-profile.json override.
package platform

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
)

// Names of the built-in profiles; General is the default.
const (
	Fanqie   = "fanqie"
	Qidian   = "qidian"
	Jinjiang = "jinjiang"
	General  = "general"
)

// Profile is the effective word-count profile of a project.
type Profile struct {
	Name string `json:"name"`
	// Chosen: the project chose a platform (settings.json platform or a
	// platform-profile.json), so a chapter below WordsMin is an error.
	Chosen      bool   `json:"chosen"`
	WordsMin    int    `json:"words_min"`
	WordsTarget [2]int `json:"words_target"`
	WordsMax    int    `json:"words_max"`
	// AuthorWords is the author's own length (settings words_per_chapter,
	// else the brief's 每章字数) the target is centred on; 0 when none.
	AuthorWords int `json:"words_per_chapter,omitempty"`
}

// builtin is the one table of platform limits (SPEC §20).
var builtin = []Profile{
	{Name: Fanqie, WordsMin: 2000, WordsTarget: [2]int{3000, 3500}, WordsMax: 4000},
	{Name: Qidian, WordsMin: 2500, WordsTarget: [2]int{3000, 4000}, WordsMax: 6000},
	{Name: Jinjiang, WordsMin: 3000, WordsTarget: [2]int{3000, 5000}, WordsMax: 6000},
	{Name: General, WordsMin: 2000, WordsTarget: [2]int{2500, 3500}, WordsMax: 5000},
}

// labels are the platforms' names as authors know them (the brief).
var labels = map[string]string{Fanqie: "番茄小说", Qidian: "起点中文网", Jinjiang: "晋江文学城", General: "通用"}

// Label is the platform's Chinese name ("" for an unknown one).
func Label(name string) string { return labels[name] }

// TargetSpread is how far words_per_chapter's target range reaches either
// side of it.
const TargetSpread = 0.15

// Names lists the built-in profiles in table order.
func Names() []string {
	out := make([]string, len(builtin))
	for i, p := range builtin {
		out[i] = p.Name
	}
	return out
}

// Builtin returns the named built-in profile.
func Builtin(name string) (Profile, bool) {
	for _, p := range builtin {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Load returns the effective profile: the built-in one named by name
// (settings.json platform; "" = general, not chosen), its target moved to
// words_per_chapter ±15 % when wordsPerChapter > 0, then any of
// words_min / words_target / words_max that platform-profile.json sets.
func Load(root *project.Root, name string, wordsPerChapter int) (Profile, error) {
	chosen := name != ""
	if name == "" {
		name = General
	}
	p, ok := Builtin(name)
	if !ok {
		return p, errs.Newf(errs.Config, "未知平台 %q", "unknown platform %q", name).With("key", "platform").With("value", name)
	}
	p.Chosen = chosen
	if wordsPerChapter <= 0 && root != nil {
		n, err := briefWords(root)
		if err != nil {
			return p, err
		}
		wordsPerChapter = n
	}
	if wordsPerChapter > 0 {
		p.AuthorWords = wordsPerChapter
		w := float64(wordsPerChapter)
		p.WordsTarget = [2]int{int(math.Round(w * (1 - TargetSpread))), int(math.Round(w * (1 + TargetSpread)))}
		// The target never reaches below the platform's floor (or above its
		// ceiling): 2500 on qidian (floor 2500) aims at 2500–2875, not a
		// 2125–2875 whose lower part the length check then refuses.
		p.WordsTarget[0] = min(max(p.WordsTarget[0], p.WordsMin), p.WordsMax)
		p.WordsTarget[1] = max(min(p.WordsTarget[1], p.WordsMax), p.WordsTarget[0])
	}
	if root == nil || !root.Exists(layout.PlatformProfile) {
		return p, nil
	}
	var raw map[string]json.RawMessage
	if err := root.ReadJSON(layout.PlatformProfile, &raw); err != nil {
		return p, err
	}
	if raw == nil {
		return p, cfgErr("(顶层)", "必须是 JSON 对象", "must be a JSON object", nil)
	}
	p.Chosen = true
	for _, f := range []struct {
		key string
		dst *int
	}{{"words_min", &p.WordsMin}, {"words_max", &p.WordsMax}} {
		if v, ok := raw[f.key]; ok && string(v) != "null" {
			n, ok := positive(v)
			if !ok {
				return p, cfgErr(f.key, "必须是正整数", "must be a positive integer", string(v))
			}
			*f.dst = n
		}
	}
	if v, ok := raw["words_target"]; ok && string(v) != "null" {
		a, b, ok := jsonio.IntRange(v)
		if !ok {
			return p, cfgErr("words_target", "必须是 [a,b]，1 ≤ a ≤ b", "must be [a,b] with 1 <= a <= b", string(v))
		}
		p.WordsTarget = [2]int{a, b}
	}
	if p.WordsMin > p.WordsMax {
		return p, cfgErr("words_min", "不能大于 words_max", "must not exceed words_max", p.WordsMin)
	}
	return p, nil
}

// Bounds of a chapter length the brief may set (settings.json has the
// same ones for words_per_chapter).
const (
	minBriefWords = 500
	maxBriefWords = 20000
)

var briefWordsRE = lazyre.New(`每章字数[^0-9\n]{0,12}([0-9]{3,5})`)

// briefWords is the 每章字数 the brief states (the line novel init writes,
// "- **每章字数**：2500"): the first number after it on its line, 0 when the
// brief has no such line or its number is outside 500..20000 (a brief is
// prose; a number it does not state plainly is not the author's target).
func briefWords(root *project.Root) (int, error) {
	if !root.IsFile(layout.Brief) {
		return 0, nil
	}
	// Raw bytes: a brief in another encoding is refused where it is sent
	// to a model, not here, where only one ASCII number is looked for.
	data, err := root.ReadFile(layout.Brief)
	if err != nil {
		return 0, err
	}
	m := briefWordsRE().FindSubmatch(data)
	if m == nil {
		return 0, nil
	}
	n, _ := strconv.Atoi(string(m[1]))
	if n < minBriefWords || n > maxBriefWords {
		return 0, nil
	}
	return n, nil
}

func positive(v json.RawMessage) (int, bool) {
	var x any
	if jsonio.Decode(v, layout.PlatformProfile, &x) != nil {
		return 0, false
	}
	n, ok := jsonio.Int(x)
	return n, ok && n > 0
}

func cfgErr(key, zh, en string, value any) error {
	src := layout.PlatformProfile
	return errs.New(errs.Config, fmt.Sprintf("配置 %s（来源 %s）无效：%s", key, src, zh), fmt.Sprintf("invalid setting %s (from %s): %s", key, src, en)).
		With("key", key).With("source", src).With("value", value).
		Hint("修正 "+src+" 中的该字段（或删除它以使用平台内置值）",
			"fix that field of "+src+" (or remove it to use the platform's built-in value)")
}
