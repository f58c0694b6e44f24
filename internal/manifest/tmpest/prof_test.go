package tmpest

import (
	"github.com/novelsuite/novel/internal/cmd/novelmanifest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/largeproject"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
)

func BenchmarkDraft(b *testing.B) {
	dir := "/tmp/w-context/big"
	o := largeproject.Options{}
	root, _ := project.New(dir)
	if !root.Exists(".checkpoint.json") {
		if err := largeproject.Generate(dir, o); err != nil {
			b.Fatal(err)
		}
	}
	for _, st := range []string{stepid.Draft, stepid.Summarize} {
		b.Run(st, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cp, _ := checkpoint.Load(root)
				set, _ := settings.Load(root, nil)
				if _, err := manifest.Build(root, cp, set, stepid.Chapter(o.Inflight(), st), manifest.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCLI(b *testing.B) {
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("/tmp/w-context/bin-new/novel-manifest", "packet", "chapter:2001:summarize")
		cmd.Dir = "/tmp/w-context/big"
		t := time.Now()
		cmd.Run()
		b.Log(time.Since(t))
	}
}

func BenchmarkMain(b *testing.B) {
	os.Chdir("/tmp/w-context/big")
	os.Args = []string{"novel-manifest", "packet", "chapter:2001:summarize"}
	devnull, _ := os.Open(os.DevNull)
	os.Stdout = devnull
	for i := 0; i < b.N; i++ {
		novelmanifest.Main()
	}
}
