package lint

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
	"github.com/novelsuite/novel/internal/textmeasure"
)

func runWith(text, prev string, terms ...string) *Report {
	c := cfg()
	c.Terms = terms
	return Run(Input{Chapter: 2, File: "x.md", Stage: StageRefine, Text: text, Previous: prev}, c)
}

func check(r *Report, id string) Check {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return Check{}
}

// repetition (SPEC §20, §24): a phrase of ≥ 4 characters five times in the
// chapter (names and registered terms excluded), or a sentence frame of
// ≥ 8 characters the previous chapter also used.
func TestRepetitionPhrase(t *testing.T) {
	five := "# 第2章 灯\n\n" + strings.Repeat("他又摸了摸怀里的残玉。风很大。\n\n", 5)
	c := check(runWith(five, ""), Repetition)
	if c.Severity != Warning || c.Count != 1 || !strings.Contains(c.Detail, "「他又摸了摸怀里的残玉」5 次") || len(c.Evidence) != 1 || c.Evidence[0].Line != 3 {
		t.Fatalf("five times: %+v", c)
	}
	four := "# 第2章 灯\n\n" + strings.Repeat("他又摸了摸怀里的残玉。风很大。\n\n", 4)
	if c := check(runWith(four, ""), Repetition); c.Count != 0 {
		t.Fatalf("four times fired: %+v", c)
	}
	// a name or registered term is not a phrase, nor is a run of numerals
	names := "# 第2章 灯\n\n" + strings.Repeat("秦守一看着。一二三四。\n\n", 6)
	if c := check(runWith(names, "", "秦守一"), Repetition); c.Count != 0 {
		t.Fatalf("names fired: %+v", c)
	}
	if c := check(runWith(names, ""), Repetition); c.Count != 1 || !strings.Contains(c.Detail, "「秦守一看着」6 次") {
		t.Fatalf("without the term: %+v", c)
	}
}

func TestRepetitionFrame(t *testing.T) {
	prev := "# 第1章 灯\n\n陆照闭上眼，数到七，手不抖了。\n"
	cur := "# 第2章 灯\n\n风停了。\n\n她吸了口气，数到三，手不抖了。\n"
	c := check(runWith(cur, prev), Repetition)
	if c.Count != 1 || !strings.Contains(c.Detail, "「数到N，手不抖了」") || len(c.Evidence) != 1 || c.Evidence[0].Line != 5 {
		t.Fatalf("frame: %+v", c)
	}
	if c := check(runWith(cur, ""), Repetition); c.Count != 0 {
		t.Fatalf("no previous chapter: %+v", c)
	}
	if c := check(runWith("# 第2章 灯\n\n她吸了口气，手还在抖。\n", prev), Repetition); c.Count != 0 {
		t.Fatalf("a short shared clause fired: %+v", c)
	}
}

// summary_lines: a narrator's verdict closing the chapter or a scene.
func TestSummaryLines(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"# 第2章 钟\n\n钟响了。\n\n这一刻，他终于明白了守灯的意义。\n", 1},
		{"# 第2章 钟\n\n钟响了。原来守灯就是守人。\n\n＊＊＊\n\n第二天雪停了。\n", 1},
		{"# 第2章 钟\n\n他推门出去，一切都变了。\n\n\n\n第二天雪停了，钟还在走。\n", 1},
		// dialogue is the character's, not the narrator's verdict
		{"# 第2章 钟\n\n「原来你就是送信的。」她说。\n", 0},
		// a verdict inside a scene is not a closing line
		{"# 第2章 钟\n\n这一刻，钟响了。\n\n他推门出去。\n", 0},
		{"# 第2章 钟\n\n他推门出去，雪还在下。\n", 0},
	} {
		r := runWith(c.text, "")
		if got := check(r, SummaryLines); got.Count != c.want || got.Severity != Warning {
			t.Errorf("%q: %+v, want count %d", c.text, got, c.want)
		}
	}
}

// The registered terms: display names, the state's item/location/faction
// names and the style profile's preferred expressions, longest first.
func TestLoadTerms(t *testing.T) {
	r := testkit.Project(t, map[string]string{
		"characters/active/lu-zhao.json": `{"display_name":"陆照"}`,
		"state/current-state.json":       `{"state_version":1,"items":{"can-yu":{"name" : "半块残玉"}},"factions":{"jlt":{"name":"戒律堂","note":"名\"字"}},"locations":{"x":{"name":"镇"}}}`,
		"style-profile.json":             `{"preferred_expressions":["添油剪芯"]}`,
	})
	c, err := LoadConfig(r, settings.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Terms, ","); got != "半块残玉,添油剪芯,戒律堂,陆照" {
		t.Fatalf("terms %q", got)
	}
}

// Only the terms present in the chapter are searched line by line; the
// masked lines are the ones every term gives (absent terms, a term with
// a blank that masking another could complete, a shorter term inside a
// longer one, terms that only occur across a line break).
func TestPresentTermsMaskLikeAll(t *testing.T) {
	text := "# 第1章 标题\n\n陆照走进长明殿，陆照看着长明。\n长明殿外，Lu Zhao 与 苏晚晴 同行。\n苏晚\n晴天。\n"
	terms := []string{"长明殿", "长明", "陆照", "Lu Zhao", "a b", "苏晚晴", "晚\n晴", "韩墨", "周伯", "不在此章"}
	d := &doc{cfg: Config{Terms: terms}}
	d.body = textmeasure.Body(text)
	present := d.presentTerms()
	for _, l := range d.body {
		if got, want := maskTerms(l.Text, present), maskTerms(l.Text, terms); got != want {
			t.Fatalf("line %q: masked %q with the present terms, %q with all", l.Text, got, want)
		}
	}
	if strings.Join(present, "|") != "长明殿|长明|陆照|Lu Zhao|a b|苏晚晴|晚\n晴" {
		t.Fatalf("present terms %q", present)
	}
}

// repeatedPhrasesBefore is repeatedPhrases with the whole-text count for
// every gram (the oracle for selfOverlapping's shortcut).
func repeatedPhrasesBefore(lines []string) []string {
	n := thresholds.RepeatPhraseChars
	counts := map[string]int{}
	var order []string
	for _, l := range lines {
		for _, run := range hanRuns(l) {
			r := []rune(run)
			for i := 0; i+n <= len(r); i++ {
				g := string(r[i : i+n])
				if counts[g] == 0 {
					order = append(order, g)
				}
				counts[g]++
			}
		}
	}
	all := strings.Join(lines, "\n")
	var out []string
	for _, g := range order {
		if counts[g] < thresholds.RepeatPhraseTimes || strings.IndexFunc(g, func(r rune) bool { return !isNumeral(r) }) < 0 {
			continue
		}
		if strings.Count(all, g) < thresholds.RepeatPhraseTimes {
			continue
		}
		covered := false
		for _, p := range out {
			if strings.Contains(p, g) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, extend(all, g))
		}
	}
	return out
}

// The same phrases as counting every gram over the whole text, on texts
// from a small alphabet full of repeats, periodic runs and line breaks.
func TestRepeatedPhrasesSameAsCounting(t *testing.T) {
	alphabet := []rune("灯灯火火光风a，\n一")
	seed := uint32(1)
	for c := 0; c < 3000; c++ {
		var b strings.Builder
		for i := 0; i < 20+c%200; i++ {
			seed = seed*1664525 + 1013904223
			b.WriteRune(alphabet[int(seed>>16)%len(alphabet)])
		}
		lines := strings.Split(b.String(), "\n")
		if got, want := repeatedPhrases(lines), repeatedPhrasesBefore(lines); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("%q: %q, want %q", lines, got, want)
		}
	}
	for _, g := range []string{"灯灯灯灯", "灯火灯火", "灯火风灯", "灯火风光"} {
		if selfOverlapping(g) != (g != "灯火风光") {
			t.Errorf("selfOverlapping(%s) = %v", g, selfOverlapping(g))
		}
	}
}
