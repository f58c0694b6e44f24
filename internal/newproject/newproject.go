// Package newproject creates a novel project from nothing (`novel init`,
// SPEC §17): the checkpoint in QUICK_START, a brief to fill in, settings,
// an empty state and foreshadowing, the storyline rules and a starter
// AI-flavour blacklist, plus the folders the setup steps fill.
package newproject

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/platform"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
)

//go:embed starter
var starter embed.FS

// Options are novel init's flags; empty strings and zeros are "not given".
type Options struct {
	Title, Genre, Platform, Premise, Protagonist, Conflict string
	ChaptersPerVolume, WordsPerChapter                     int
	// TargetChapters is the whole book's length (the brief's 目标章数,
	// which setup:book plans to, SPEC §25); 0 leaves it to be filled in.
	TargetChapters int
	Language       string
	// BookID is settings.json book_id (settings.NewBookID); "" writes none.
	BookID string
}

// Folders are created (empty) for the setup steps and the pipeline.
var Folders = []string{layout.WorldDir, layout.CharactersActive, layout.ResearchDir, layout.ChaptersDir, layout.SummariesDir, layout.EvaluationsDir, layout.LogsDir, layout.Staging}

const todo = "（待补充）"

// Validate checks the options before anything is written.
func (o *Options) Validate() error {
	if o.Platform == "" {
		o.Platform = platform.General
	}
	if _, ok := platform.Builtin(o.Platform); !ok {
		return errs.Newf(errs.Usage, "--platform 必须是 %s 之一，实际为 %q", "--platform must be one of %s, got %q",
			strings.Join(platform.Names(), ", "), o.Platform)
	}
	if o.Language == "" {
		o.Language = "zh"
	}
	if o.Language != "zh" && o.Language != "en" {
		return errs.Newf(errs.Usage, "--language 必须是 zh 或 en，实际为 %q", "--language must be zh or en, got %q", o.Language)
	}
	if o.ChaptersPerVolume < 0 || o.ChaptersPerVolume > 1000 {
		return errs.New(errs.Usage, "--chapters-per-volume 必须是 1..1000", "--chapters-per-volume must be 1..1000")
	}
	if o.TargetChapters < 0 || o.TargetChapters > bookplan.MaxChapters {
		return errs.Newf(errs.Usage, "--target-chapters 必须是 1..%d", "--target-chapters must be 1..%d", bookplan.MaxChapters)
	}
	if o.WordsPerChapter < 0 || (o.WordsPerChapter > 0 && (o.WordsPerChapter < settings.MinWordsPerChapter || o.WordsPerChapter > settings.MaxWordsPerChapter)) {
		return errs.Newf(errs.Usage, "--words-per-chapter 必须是 %d..%d", "--words-per-chapter must be %d..%d", settings.MinWordsPerChapter, settings.MaxWordsPerChapter)
	}
	return nil
}

// CheckFloor refuses a --words-per-chapter below the words_min that will
// apply to the project (SPEC §24): the chosen platform's, or that of a
// platform-profile.json already in the folder (root nil: none yet), which
// may lower it. Otherwise every draft on target would fail the length lint.
func (o *Options) CheckFloor(root *project.Root) error {
	if o.WordsPerChapter <= 0 {
		return nil
	}
	p, err := platform.Load(root, o.Platform, 0)
	if err != nil {
		return err
	}
	if o.WordsPerChapter >= p.WordsMin {
		return nil
	}
	source := o.Platform
	var e *errs.Error
	if root != nil && root.Exists(layout.PlatformProfile) {
		source = layout.PlatformProfile
		e = errs.Newf(errs.Usage, "--words-per-chapter %d 低于 %s 设定的每章最少字数 %d（words_min）",
			"--words-per-chapter %d is below %s's minimum of %d words per chapter (words_min)",
			o.WordsPerChapter, layout.PlatformProfile, p.WordsMin)
	} else {
		e = errs.Newf(errs.Usage, "--words-per-chapter %d 低于平台 %s 的每章最少字数 %d（words_min）",
			"--words-per-chapter %d is below platform %s's minimum of %d words per chapter (words_min)",
			o.WordsPerChapter, o.Platform, p.WordsMin)
	}
	return e.With("words_per_chapter", o.WordsPerChapter).With("words_min", p.WordsMin).With("platform", o.Platform).With("source", source).
		Hint(fmt.Sprintf("给出不少于 %d 的字数；要写更短的章节，先在项目目录的 %s 中设置更低的 words_min", p.WordsMin, layout.PlatformProfile),
			fmt.Sprintf("give at least %d; for shorter chapters, first set a lower words_min in the project's %s", p.WordsMin, layout.PlatformProfile))
}

// File is one file init creates.
type File struct {
	Path string
	Data []byte
}

// Files renders everything init writes, in the order it is written (the
// checkpoint last, so a project is only "found" once it is complete).
func Files(o Options, now string) ([]File, error) {
	brief, err := renderBrief(o)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{"language": o.Language, "platform": o.Platform}
	if o.WordsPerChapter > 0 {
		settings["words_per_chapter"] = o.WordsPerChapter
	}
	if o.ChaptersPerVolume > 0 {
		settings["chapters_per_volume"] = o.ChaptersPerVolume
	}
	if o.Title != "" {
		settings["title"] = o.Title
	}
	if o.BookID != "" {
		settings["book_id"] = o.BookID
	}
	state := map[string]any{"schema_version": 1, "state_version": 0, "last_updated_chapter": 0,
		"characters": map[string]any{}, "items": map[string]any{}, "locations": map[string]any{},
		"factions": map[string]any{}, "world_state": map[string]any{}, "active_foreshadowing": []any{}}
	cp := &checkpoint.Checkpoint{SchemaVersion: 2, State: checkpoint.QuickStart, LastCheckpointTime: now}
	out := []File{{Path: layout.Brief, Data: brief}}
	for _, f := range []struct {
		path string
		v    any
	}{
		{layout.Settings, settings},
		{layout.CurrentState, state},
		{layout.GlobalForeshadow, map[string]any{"foreshadowing": []any{}}},
	} {
		data, err := jsonio.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		out = append(out, File{f.path, data})
	}
	for _, f := range []struct{ path, src string }{
		{layout.StorylineSpec, "starter/storyline-spec.json"},
		{layout.AIBlacklist, "starter/ai-blacklist.json"},
	} {
		data, err := canonicalStarter(f.src)
		if err != nil {
			return nil, err
		}
		out = append(out, File{f.path, data})
	}
	cpData, err := jsonio.Marshal(cp.Map())
	if err != nil {
		return nil, err
	}
	return append(out, File{layout.Checkpoint, cpData}), nil
}

// canonicalStarter re-encodes an embedded JSON file in the suite's
// canonical form (the source keeps the word list compact for reading).
func canonicalStarter(src string) ([]byte, error) {
	raw, err := starter.ReadFile(src)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return jsonio.Marshal(v)
}

func renderBrief(o Options) ([]byte, error) {
	or := func(s string) string {
		if s == "" {
			return todo
		}
		return s
	}
	num := func(n int) string {
		if n == 0 {
			return todo
		}
		return strconv.Itoa(n)
	}
	t, err := template.ParseFS(starter, "starter/brief.md.tmpl")
	if err != nil {
		return nil, err
	}
	title := o.Title
	if title == "" {
		title = "未命名"
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]string{"Title": title, "Genre": or(o.Genre), "PlatformName": platform.Label(o.Platform) + "（" + o.Platform + "）",
		"Premise": or(o.Premise), "Protagonist": or(o.Protagonist), "Conflict": or(o.Conflict),
		"ChaptersPerVolume": num(o.ChaptersPerVolume), "TargetChapters": num(o.TargetChapters), "WordsPerChapter": num(o.WordsPerChapter)})
	return b.Bytes(), err
}

// Conflicts lists the files init would create that already exist: init
// never replaces a file (E_CONFLICT), while unrelated files and the folders
// themselves may be there (research/, style-samples/ are used).
func Conflicts(root *project.Root, files []File) ([]string, error) {
	var found []string
	for _, f := range files {
		ok, err := root.Lexists(f.Path)
		if err != nil {
			return nil, err
		}
		if ok {
			found = append(found, f.Path)
		}
	}
	return found, nil
}
