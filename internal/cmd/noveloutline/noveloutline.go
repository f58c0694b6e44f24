// Package noveloutline is the command surface of novel-outline: one
// chapter's outline block, keys and the volume range (SPEC §5).
package noveloutline

import (
	"io"
	"path/filepath"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/cli"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/outline"
)

type grammar struct {
	cli.Globals `embed:""`
	Chapter     int    `type:"chapter" required:"" help:"Chapter number (≥ 1)." placeholder:"C"`
	Volume      *int   `type:"volume" help:"Volume (default: the checkpoint's current_volume)." placeholder:"V"`
	File        string `help:"Read this outline file instead of the project's (- reads stdin); no project is needed." placeholder:"PATH"`
}

type volumeRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type result struct {
	Chapter        int                     `json:"chapter"`
	Volume         *int                    `json:"volume"`
	Title          string                  `json:"title"`
	Block          string                  `json:"block"`
	Keys           map[string]string       `json:"keys"`
	StorylineID    string                  `json:"storyline_id"`
	TransitionHint *outline.TransitionHint `json:"transition_hint"`
	MissingKeys    []string                `json:"missing_keys"`
	VolumeRange    *volumeRange            `json:"volume_range"`
	Chapters       []int                   `json:"chapters"`
}

func (g *grammar) Run(ctx *cli.Context) error {
	o, vol, err := g.load(ctx)
	if err != nil {
		return err
	}
	b, err := o.Block(g.Chapter)
	if err != nil {
		return err
	}
	res := &result{Chapter: g.Chapter, Volume: vol, Title: b.Title, Block: b.Text, Keys: b.Keys,
		StorylineID: b.StorylineID, TransitionHint: b.TransitionHint, MissingKeys: b.MissingKeys, Chapters: o.Chapters}
	if s, e, ok := o.Range(); ok {
		res.VolumeRange = &volumeRange{Start: s, End: e}
	}
	ctx.Result(res, func() string { return b.Text })
	return nil
}

// load reads the outline from --file, stdin or the project. The volume is
// null only for --file outside a project without --volume.
func (g *grammar) load(ctx *cli.Context) (*outline.Outline, *int, error) {
	if g.File != "" {
		vol := g.volumeHint(ctx)
		v := 0
		if vol != nil {
			v = *vol
		}
		var data []byte
		var err error
		if g.File == "-" {
			data, err = io.ReadAll(io.LimitReader(ctx.In, jsonio.MaxFileSize+1))
			if err == nil && len(data) > jsonio.MaxFileSize {
				err = errs.New(errs.IO, "标准输入超过 32 MiB 上限", "stdin is larger than the 32 MiB limit")
			}
			if err != nil {
				return nil, nil, errs.Coerce(err).With("file", "-")
			}
		} else {
			p := g.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(ctx.Cwd, p)
			}
			if data, err = jsonio.ReadFile(p, g.File); err != nil {
				return nil, nil, err
			}
		}
		o, err := outline.Parse(data, g.File, v)
		return o, vol, err
	}
	root, err := ctx.Root()
	if err != nil {
		return nil, nil, err
	}
	v := 0
	cp, cpErr := checkpoint.Load(root)
	if g.Volume != nil {
		v = *g.Volume
		if cpErr != nil || cp.CurrentVolume != v {
			cp = nil // not the checkpoint's volume: its state says nothing about it
		}
	} else {
		if cpErr != nil {
			return nil, nil, cpErr
		}
		if cp.CurrentVolume < 1 {
			return nil, nil, errs.Newf(errs.Usage, "检查点的 current_volume 为 %d，没有当前卷", "the checkpoint's current_volume is %d: there is no current volume", cp.CurrentVolume).
				With("file", ".checkpoint.json").Hint("用 --volume V 指定卷", "pass --volume V")
		}
		v = cp.CurrentVolume
	}
	o, err := outline.LoadFor(root, v, cp)
	return o, &v, err
}

// volumeHint is --volume, else the current volume of a project found
// nearby (best effort: --file needs no project).
func (g *grammar) volumeHint(ctx *cli.Context) *int {
	if g.Volume != nil {
		v := *g.Volume
		return &v
	}
	root, err := ctx.Root()
	if err != nil {
		return nil
	}
	cp, err := checkpoint.Load(root)
	if err != nil || cp.CurrentVolume < 1 {
		return nil
	}
	v := cp.CurrentVolume
	return &v
}

// Main runs novel-outline.
func Main() int {
	return cli.Main("novel-outline", "Print one chapter's outline block, key lines, storyline, transition hint and the volume range (SPEC §5).", &grammar{})
}
