package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// TestRecallScaleCase is SPEC §25's scale check on the generator's recall
// profile: 249 chapters committed of a 300-chapter plan, an item planted
// with evidence in chapter 30 and advanced in 120 that chapter 250's plan
// resolves, and a character and a location last named in chapter 120
// that chapter 250's outline names again. The chapter-250 draft packet
// recalls all three kinds and stays within the draft budget; the judge
// packet recalls them too, with the character's state (it has no slice).
func TestRecallScaleCase(t *testing.T) {
	dir := t.TempDir()
	o := largeproject.Options{Profile: largeproject.Recall, Chapters: largeproject.RecallPayoff - 1, Volumes: 2, Foreshadow: 300}
	if err := largeproject.Generate(dir, o); err != nil {
		t.Fatal(err)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	set := settings.Defaults()
	p, err := Build(root, cp, set, stepid.Chapter(largeproject.RecallPayoff, stepid.Draft), Options{})
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := Build(root, cp, set, stepid.Chapter(largeproject.RecallPayoff, stepid.Draft), Options{Embed: true})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"chapter":250,"budget_tokens":2500,"items":[` +
		`{"kind":"foreshadowing","id":"F-9030","action":"resolve","planted_chapter":30,"planted_evidence":"井底的铜镜背面刻着一个古篆的顾字。","advanced_chapter":120,"advanced_evidence":"顾长歌在断桥边把铜镜沉回井底，转身走进了雾里。"},` +
		`{"kind":"character","id":"gu-changge","name":"顾长歌","last_seen_chapter":120,"summary":"顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。"},` +
		`{"kind":"location","id":"broken-bridge","name":"断桥","last_seen_chapter":120,"summary":"顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。"}],"omitted":0}`
	if got := inlineJSON(t, p, keyRecall); got != want {
		t.Fatalf("draft recall:\n%s\nwant\n%s", got, want)
	}
	if p.Estimate == nil || p.Estimate.Tokens > set.Budget("draft") || p.OverBudget {
		t.Fatalf("draft packet over budget: %+v (budget %d)", p.Estimate, set.Budget("draft"))
	}
	t.Logf("chapter-250 draft packet: %d tokens (budget %d)", p.Estimate.Tokens, set.Budget("draft"))
	recalled := 0
	for _, blk := range embedded.Manifest.Embedded {
		if strings.HasPrefix(blk, `<DATA type="recall"`) {
			recalled++
		}
	}
	if recalled != 1 {
		t.Fatalf("embedded recall blocks: %d", recalled)
	}
	// The state slice already carries the character: recall does not repeat it.
	if slice := inlineJSON(t, p, keyStateSlice); !strings.Contains(slice, `"gu-changge":{`) {
		t.Fatalf("state slice lacks the returning character: %s", slice)
	}

	// A smaller context.recall_tokens keeps what fits, newest first, and
	// counts the rest.
	small := set
	small.RecallTokens = 150
	sp, err := Build(root, cp, small, stepid.Chapter(largeproject.RecallPayoff, stepid.Draft), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inlineJSON(t, sp, keyRecall), `{"chapter":250,"budget_tokens":150,"items":[`+
		`{"kind":"foreshadowing","id":"F-9030","action":"resolve","planted_chapter":30,"planted_evidence":"井底的铜镜背面刻着一个古篆的顾字。","advanced_chapter":120,"advanced_evidence":"顾长歌在断桥边把铜镜沉回井底，转身走进了雾里。"},`+
		`{"kind":"character","id":"gu-changge","name":"顾长歌","last_seen_chapter":120,"summary":"顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。"}],"omitted":1}`; got != want {
		t.Fatalf("recall within 150 tokens:\n%s\nwant\n%s", got, want)
	}

	j, err := Build(root, cp, set, stepid.Chapter(largeproject.RecallPayoff, stepid.Judge), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := inlineJSON(t, j, keyRecall)
	for _, part := range []string{`"description":"`, `"name":"井底铜镜背面的刻字"`,
		`"last_seen_chapter":120,"summary":"顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。","state":{"display_name":"顾长歌","level":3,"location":"broken-bridge","status":"下落不明"}}`} {
		if part == `"description":"` {
			if strings.Contains(got, part) {
				t.Fatalf("judge recall carries a description key: %s", got)
			}
			continue
		}
		if !strings.Contains(got, part) {
			t.Fatalf("judge recall lacks %s:\n%s", part, got)
		}
	}
}

func inlineJSON(t *testing.T, p *Packet, key string) string {
	t.Helper()
	v, ok := p.Manifest.Inline.Get(key)
	if !ok {
		t.Fatalf("packet %s has no inline %s", p.Step, key)
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(buf.String())
}
