package agent

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func volumePacket(t *testing.T) *Packet {
	t.Helper()
	p, err := ParsePacket([]byte(`{"version":1,"step":"volume:02:plan","chapter":null,"volume":2,"revision_round":0,
	 "agent":{"name":"plot-architect","kind":"agent","mode":"plan"},
	 "expected_outputs":[{"path":"staging/volumes/vol-02/outline.md","required":true,"via":"file"},
	  {"path":"staging/volumes/vol-02/chapter-contracts/chapter-NNN.json","required":false,"via":"file"}]}`), "p.json")
	if err != nil {
		t.Fatalf("volume packet refused: %v", err)
	}
	return p
}

func TestVolumePacketAndReplayPath(t *testing.T) {
	p := volumePacket(t)
	if got := (Replay{Dir: "fx"}).RecordingPath(p); got != "fx/volume-02/plot-architect.plan.r0.json" {
		t.Errorf("recording path %s", got)
	}
	_, err := ParsePacket([]byte(`{"step":"volume:00:plan","chapter":null,"volume":0,"agent":{"name":"plot-architect","mode":"plan"},
	 "expected_outputs":[{"path":"staging/volumes/vol-00/outline.md"}]}`), "p.json")
	if !errs.Is(err, errs.Schema) {
		t.Errorf("volume 0: %v", err)
	}
}

func TestParsePlan(t *testing.T) {
	p := volumePacket(t)
	res, err := ParseAnswer(p, []byte(`{"outline":"### 第 7 章: a\n- **Storyline**: main-arc","storyline_schedule":{"active_storylines":["main-arc"]},
	 "foreshadowing":[{"id":"F-9","target_resolve_range":[7,12]}],
	 "chapter_contracts":[{"chapter":7,"storyline_id":"main-arc","objectives":[{"id":"o","required":true}],"weight":1.50}]}`), "ans")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"staging/volumes/vol-02/outline.md", "staging/volumes/vol-02/storyline-schedule.json",
		"staging/volumes/vol-02/foreshadowing.json", "staging/volumes/vol-02/chapter-contracts/chapter-007.json"}
	if strings.Join(res.Paths(), " ") != strings.Join(want, " ") {
		t.Fatalf("paths %v", res.Paths())
	}
	if string(res.Files[0].Data) != "### 第 7 章: a\n- **Storyline**: main-arc\n" {
		t.Errorf("outline %q", res.Files[0].Data)
	}
	if !strings.Contains(string(res.Files[3].Data), `"weight": 1.50`) {
		t.Errorf("numbers must be kept as written: %s", res.Files[3].Data)
	}
	bad := map[string]string{
		"no outline":      `{"storyline_schedule":{},"foreshadowing":{}}`,
		"blank outline":   `{"outline":"  ","storyline_schedule":{},"foreshadowing":{}}`,
		"no schedule":     `{"outline":"x","foreshadowing":{}}`,
		"no foreshadow":   `{"outline":"x","storyline_schedule":{}}`,
		"string fs":       `{"outline":"x","storyline_schedule":{},"foreshadowing":"F-1"}`,
		"contract list":   `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"chapter_contracts":[[1]]}`,
		"chapter string":  `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"chapter_contracts":[{"chapter":"7"}]}`,
		"chapter zero":    `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"chapter_contracts":[{"chapter":0}]}`,
		"duplicate":       `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"chapter_contracts":[{"chapter":7},{"chapter":7}]}`,
		"not json":        `### 第 7 章`,
		"schedule a list": `{"outline":"x","storyline_schedule":[],"foreshadowing":{}}`,
	}
	for name, ans := range bad {
		if _, err := ParseAnswer(p, []byte(ans), "ans"); err == nil {
			t.Errorf("%s: accepted", name)
		} else if e := errs.As(err); e == nil || e.Code != errs.Agent {
			t.Errorf("%s: want E_AGENT, got %v", name, err)
		}
	}
}
