package manifest

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// TestReviewPacketOfLongVolumeWithinBudget: the review of a finished
// 60-chapter volume carries eval digests, not whole evals, and stays
// within the plan budget of 24,000 estimated tokens (SPEC §25; twenty
// whole evals once made a 67k-token packet).
func TestReviewPacketOfLongVolumeWithinBudget(t *testing.T) {
	dir := t.TempDir()
	o := largeproject.Options{Chapters: 60, Volumes: 1, Characters: 40, Foreshadow: 60, StateBytes: 40 << 10, ChapterSize: 3000, Idle: true}
	if err := largeproject.Generate(dir, o); err != nil {
		t.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Summaries as long as a real summarizer's (the demo's are about 300
	// characters; the generator's are a line).
	for c := 1; c <= 60; c++ {
		sum := "# 第" + strconv.Itoa(c) + "章摘要\n\n" + strings.Repeat("陆照在雪关旧营与苏晚晴会合，得知周伯留下的守灯令另一半压在祭台之下；柳言的人马连夜追到，二人借风雪脱身。", 6) + "\n"
		if err := root.WriteFile(layout.Summary(c), []byte(sum)); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cp.State, cp.CurrentVolume = checkpoint.VolReview, 1
	set, err := settings.Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(root, cp, set, stepid.Step{Volume: true, Number: 1, Stage: stepid.Review}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Budget != 24000 || p.Estimate == nil || p.Estimate.Tokens > p.Budget || p.OverBudget {
		t.Fatalf("review packet: %+v tokens against a budget of %d (over: %v)", p.Estimate, p.Budget, p.OverBudget)
	}
	// Over budget with everything, it left out the whole state, the global
	// foreshadowing list and the 70-chapter outline (in that order), and
	// kept the summaries, the plan and the inventories.
	for key, want := range map[string]bool{"current_state": false, "global_foreshadowing": false, "volume_outline": false,
		"volume_summaries": true, "volume_foreshadowing": true, "storyline_spec": true} {
		if _, ok := p.Manifest.Paths.Get(key); ok != want {
			t.Errorf("paths has %s: %v, want %v", key, ok, want)
		}
	}
	if !slices.Contains(p.Warnings, "指令包超出 plan 预算，去掉了 current_state, global_foreshadowing, volume_outline（settings.json context.budget_tokens.plan） / the packet was over the plan budget: dropped current_state, global_foreshadowing, volume_outline (settings.json context.budget_tokens.plan)") {
		t.Errorf("warnings: %q", p.Warnings)
	}
	if _, ok := p.Manifest.Paths.Get("volume_evals"); ok {
		t.Fatal("the review packet still names the whole evals")
	}
	v, _ := p.Manifest.Inline.Get("eval_digests")
	data, err := jsonio.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var digests []struct {
		Chapter int `json:"chapter"`
		Lowest  []struct {
			Dimension string `json:"dimension"`
		} `json:"lowest_dimensions"`
	}
	if err := jsonio.Decode(data, "eval_digests", &digests); err != nil {
		t.Fatal(err)
	}
	if len(digests) != 60 || digests[0].Chapter != 1 || digests[59].Chapter != 60 || len(digests[0].Lowest) != 2 {
		t.Fatalf("digests: %d, first %+v", len(digests), digests[0])
	}
	// Whole evals of those chapters alone would be well over the budget's
	// share: the digests are what keeps the packet in.
	whole := 0
	for c := 1; c <= 60; c++ {
		text, err := root.ReadText(layout.Eval(c))
		if err != nil {
			t.Fatal(err)
		}
		whole += EstimateText(text).Tokens
	}
	t.Logf("review packet %d tokens; the 60 whole evals alone would be %d", p.Estimate.Tokens, whole)
}
