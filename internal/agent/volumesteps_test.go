package agent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func contractsPacket(t *testing.T) *Packet {
	t.Helper()
	pkt := `{"version":1,"step":"volume:02:contracts","chapter":null,"volume":2,"revision_round":0,
	"agent":{"name":"plot-architect","kind":"agent","mode":"contracts"},
	"manifest":{"inline":{"volume":2,"batch":[7,8]},"paths":{}},
	"expected_outputs":[{"path":"staging/volumes/vol-02/chapter-contracts/chapter-007.json","required":true,"via":"file"},
	{"path":"staging/volumes/vol-02/chapter-contracts/chapter-008.json","required":true,"via":"file"}]}`
	p, err := ParsePacket([]byte(pkt), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseContracts(t *testing.T) {
	p := contractsPacket(t)
	if a, b, ok := p.Batch(); !ok || a != 7 || b != 8 {
		t.Fatalf("batch = %d %d %v", a, b, ok)
	}
	if got := (Replay{Dir: "fx"}).RecordingPath(p); got != filepath.Join("fx", "volume-02", "plot-architect.contracts-007-008.r0.json") {
		t.Errorf("recording path %s", got)
	}
	ok := `{"chapter_contracts":[{"chapter":7,"storyline_id":"a"},{"chapter":8,"storyline_id":"a"}]}`
	r, err := ParseAnswer(p, []byte(ok), "ans")
	if err != nil || strings.Join(r.Paths(), " ") != "staging/volumes/vol-02/chapter-contracts/chapter-007.json staging/volumes/vol-02/chapter-contracts/chapter-008.json" {
		t.Fatalf("%v %v", r, err)
	}
	for answer, want := range map[string]string{
		`{"chapter_contracts":[{"chapter":7},{"chapter":8},{"chapter":9}]}`: "outside this batch",
		`{"chapter_contracts":[{"chapter":7}]}`:                             "chapter-008.json",
		`{"chapter_contracts":[{"chapter":7},{"chapter":7}]}`:               "two chapter_contracts",
		`{"chapter_contracts":[{"chapter":"7"}]}`:                           "not an integer",
	} {
		_, err := ParseAnswer(p, []byte(answer), "ans")
		if e := errs.As(err); e == nil || e.Code != errs.Agent || !strings.Contains(e.En, want) {
			t.Errorf("%s: got %v, want E_AGENT with %q", answer, err, want)
		}
	}
}

func TestParseVolumeReview(t *testing.T) {
	pkt := `{"version":1,"step":"volume:01:review","chapter":null,"volume":1,"revision_round":0,
	"agent":{"name":"plot-architect","kind":"agent","mode":"review"},"manifest":{"inline":{},"paths":{}},
	"expected_outputs":[{"path":"staging/volumes/vol-01/review.md","required":true,"via":"file"}]}`
	p, err := ParsePacket([]byte(pkt), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	for answer, want := range map[string]string{
		`{"review":"## 回顾\n内容"}`:   "## 回顾\n内容\n",
		"## 回顾\n\n直接写的 Markdown\n": "## 回顾\n\n直接写的 Markdown\n",
	} {
		r, err := ParseAnswer(p, []byte(answer), "ans")
		if err != nil || len(r.Files) != 1 || string(r.Files[0].Data) != want || r.Files[0].Path != "staging/volumes/vol-01/review.md" {
			t.Errorf("%q: %v %v", answer, r, err)
		}
	}
	for _, bad := range []string{`{"summary":"x"}`, `{"review":"  "}`, "  ", `{"review":`} {
		if _, err := ParseAnswer(p, []byte(bad), "ans"); !errs.Is(err, errs.Agent) {
			t.Errorf("%q: want E_AGENT, got %v", bad, err)
		}
	}
}
