package tmpest

import (
	"fmt"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/largeproject"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

func TestEst(t *testing.T) {
	for _, o := range []largeproject.Options{{Chapters: 300, Volumes: 2, Foreshadow: 300}} {
		dir := fmt.Sprintf("/tmp/w-context/q%d", o.Chapters)
		root, _ := project.New(dir)
		if !root.Exists(".checkpoint.json") {
			if err := largeproject.Generate(dir, o); err != nil {
				t.Fatal(err)
			}
		}
		cp, _ := checkpoint.Load(root)
		set, _ := settings.Load(root, nil)
		for _, st := range []string{stepid.Draft, stepid.Summarize} {
			p, err := manifest.Build(root, cp, set, stepid.Chapter(o.Inflight(), st), manifest.Options{Embed: true})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println(o.Chapters, st, p.Estimate)
			for _, k := range p.Manifest.Inline.Keys() {
				v, _ := p.Manifest.Inline.Get(k)
				b, _ := (&manifest.OMap{}).MarshalJSON()
				_ = b
				m := &manifest.OMap{}
				m.Set(k, v)
				bb, _ := m.MarshalJSON()
				fmt.Println("  inline", k, manifest.EstimateText(string(bb)).Tokens)
			}
			for _, e := range p.Manifest.Embedded {
				fmt.Println("  block", manifest.EstimateText(e).Tokens, e[:60])
			}
		}
	}
}
