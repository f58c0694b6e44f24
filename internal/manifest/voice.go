package manifest

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/setupstep"
)

// Sizes of the voice inputs (SPEC §19, §24): the writer continues the
// whole previous chapter, imitates the samples and keeps to the cast's
// profiles; each is bounded so a long project stays within budget.
const (
	MaxPreviousChapterChars = 6000
	MaxSampleChars          = 1500
	MaxProfileChars         = 600
)

// Outline windows (SPEC §19): the writer sees its own block and the two
// before it, never a later one; the judge and the logic reviewer see five
// back and, as upcoming_outline, the next five, to catch premature reveals.
const (
	WriterOutlineBack = 2
	ReviewOutlineBack = 5
	UpcomingChapters  = 5
)

// Inline keys rendered as blocks (Assemble).
const (
	keyPrevious     = "previous_chapter"
	keySamples      = "style_samples"
	keyProfiles     = "character_profiles"
	keyOutlineWin   = "outline_window"
	keyUpcoming     = "upcoming_outline"
	typeUpcoming    = "upcoming_outline"
	typeProfile     = "character_profile"
	typeStyleSample = "style_samples"
)

// Profile is one cast member's profile excerpt in a writer packet.
type Profile struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

// Head is the start of text in at most n characters, cut at the last
// paragraph end inside the window (else after the last sentence end, else
// at the window), so an excerpt never stops mid-sentence.
func Head(text string, n int) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	win := string([]rune(text)[:n])
	if i := strings.LastIndex(win, "\n"); i > 0 {
		return strings.TrimRight(win[:i], " \t\n\u3000")
	}
	if i := strings.LastIndexAny(win, "。！？!?…"); i > 0 {
		_, size := utf8.DecodeRuneInString(win[i:])
		return win[:i+size]
	}
	return win
}

// previousChapter gives the writer the chapter it continues: the whole
// text, or its last MaxPreviousChapterChars cut at a paragraph boundary.
func (b *builder) previousChapter() error { return b.previous(keyPrevious, MaxPreviousChapterChars) }

// styleSamples sets the head of style-samples.md when the project has one.
func (b *builder) styleSamples() error {
	if !b.root.IsFile(setupstep.StyleSamples) {
		return nil
	}
	text, err := b.root.ReadText(setupstep.StyleSamples)
	if err != nil {
		return err
	}
	if h := Head(text, MaxSampleChars); h != "" {
		b.in.Set(keySamples, h)
	}
	return nil
}

// profiles sets the cast's profile excerpts in cast order.
func (b *builder) profiles(slugs []string) error {
	out, err := b.profileExcerpts(slugs)
	if len(out) > 0 {
		b.in.Set(keyProfiles, out)
	}
	return err
}

// profileExcerpts are the heads of the slugs' profiles, in their order.
func (b *builder) profileExcerpts(slugs []string) ([]Profile, error) {
	var out []Profile
	for _, s := range slugs {
		rel := layout.CharacterProfile(s)
		if !b.root.IsFile(rel) {
			continue
		}
		text, err := b.root.ReadText(rel)
		if err != nil {
			return nil, err
		}
		if h := Head(text, MaxProfileChars); h != "" {
			out = append(out, Profile{Source: rel, Text: h})
		}
	}
	return out, nil
}

// povSlug is the slug of the outline block's POV character: the character
// whose display name is the POV line, else the first (slug order) whose
// name the line contains; "" when none.
func (b *builder) povSlug() (string, error) {
	pov := strings.TrimSpace(b.blk.Keys["POV"])
	if pov == "" {
		return "", nil
	}
	chars, err := b.characters()
	if err != nil {
		return "", err
	}
	for _, c := range chars {
		if c.DisplayName == pov {
			return c.Slug, nil
		}
	}
	for _, c := range chars {
		if c.NamedIn(pov) {
			return c.Slug, nil
		}
	}
	return "", nil
}

// outlineWindows sets the outline the agent may see: the volume header
// and chapters C−back…C, and with upcoming the next UpcomingChapters
// blocks as upcoming_outline (judge and logic reviewer only).
func (b *builder) outlineWindows(back int, upcoming bool) {
	b.in.Set(keyOutlineWin, b.ol.Window(b.c-back, b.c))
	if upcoming {
		if next := b.ol.Blocks(b.c+1, b.c+UpcomingChapters); next != "" {
			b.in.Set(keyUpcoming, next)
		}
	}
}

// profileList reads the character_profiles inline value, typed or raw.
func profileList(v any) []Profile {
	switch x := v.(type) {
	case []Profile:
		return x
	case json.RawMessage:
		var list []Profile
		if json.Unmarshal(x, &list) == nil {
			return list
		}
	}
	return nil
}

// shed drops the next voice input when a packet is over budget (SPEC
// §24): the last profile first, then the samples. It reports what it
// dropped ("" when nothing is left to drop).
func shed(in *OMap) string {
	if v, ok := in.Get(keyProfiles); ok {
		list := profileList(v)
		if len(list) > 1 {
			in.Set(keyProfiles, list[:len(list)-1])
		} else {
			in.Delete(keyProfiles)
		}
		return keyProfiles
	}
	if _, ok := in.Get(keySamples); ok {
		in.Delete(keySamples)
		return keySamples
	}
	return ""
}
