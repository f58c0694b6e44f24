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

func TestParsePlanNewCharacters(t *testing.T) {
	p := volumePacket(t)
	res, err := ParseAnswer(p, []byte(`{"outline":"x","storyline_schedule":{},"foreshadowing":{},
	 "new_characters":{"characters/active/bai-yi.md":"# 白衣人\n\n身份不明。","characters/active/bai-yi.json":{"display_name":"白衣人","role":"mystery","age":30}}}`), "ans")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(res.Paths()[3:], " ")
	if got != "staging/volumes/vol-02/characters/bai-yi.json staging/volumes/vol-02/characters/bai-yi.md" {
		t.Fatalf("paths %s", got)
	}
	if string(res.Files[3].Data) != "{\n  \"age\": 30,\n  \"display_name\": \"白衣人\",\n  \"role\": \"mystery\"\n}\n" ||
		string(res.Files[4].Data) != "# 白衣人\n\n身份不明。\n" {
		t.Errorf("contents %q %q", res.Files[3].Data, res.Files[4].Data)
	}
	for name, ans := range map[string]string{
		"outside characters": `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"new_characters":{"world/rules.json":{}}}`,
		"bad slug":           `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"new_characters":{"characters/active/Bai Yi.json":{}}}`,
		"json not object":    `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"new_characters":{"characters/active/bai-yi.json":[1]}}`,
		"empty profile":      `{"outline":"x","storyline_schedule":{},"foreshadowing":{},"new_characters":{"characters/active/bai-yi.md":" "}}`,
	} {
		if _, err := ParseAnswer(p, []byte(ans), "ans"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseSetupFiles(t *testing.T) {
	pk := func(agentName, step string) *Packet {
		p, err := ParsePacket([]byte(`{"version":1,"step":"`+step+`","chapter":null,"volume":0,"revision_round":0,
		 "agent":{"name":"`+agentName+`","kind":"agent","mode":"setup"},
		 "expected_outputs":[{"path":"staging/setup/x","required":true,"via":"file"}]}`), "p.json")
		if err != nil {
			t.Fatalf("setup packet refused: %v", err)
		}
		return p
	}
	w := pk(WorldBuilder, "setup:world")
	if got := (Replay{Dir: "fx"}).RecordingPath(w); got != "fx/setup/world-builder.setup.r0.json" {
		t.Errorf("recording path %s", got)
	}
	res, err := ParseAnswer(w, []byte(`{"files":{"world/rules.json":"{\"rules\":[]}","world/overview.md":"# 概况","storylines/storylines.json":{"storylines":[]}}}`), "ans")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Paths(), " "); got != "staging/setup/storylines/storylines.json staging/setup/world/overview.md staging/setup/world/rules.json" {
		t.Errorf("paths %s", got)
	}
	if string(res.Files[2].Data) != "{\n  \"rules\": []\n}\n" {
		t.Errorf("a JSON object given as a string is decoded: %q", res.Files[2].Data)
	}
	for name, c := range map[string]struct{ agent, step, ans string }{
		"world writes characters": {WorldBuilder, "setup:world", `{"files":{"characters/active/a.json":{}}}`},
		"nested world doc":        {WorldBuilder, "setup:world", `{"files":{"world/x/a.md":"a"}}`},
		"no files":                {WorldBuilder, "setup:world", `{"files":{}}`},
		"not json":                {WorldBuilder, "setup:world", `# 概况`},
		"style writes world":      {StyleAnalyzer, "setup:style", `{"files":{"world/rules.json":{}}}`},
		"weaver bad slug":         {CharacterWeaver, "setup:characters", `{"files":{"characters/active/Lu.json":{}}}`},
		"profile not a string":    {CharacterWeaver, "setup:characters", `{"files":{"characters/active/lu.md":{}}}`},
	} {
		if _, err := ParseAnswer(pk(c.agent, c.step), []byte(c.ans), "ans"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLiveSetupValidates: a live model's setup answer is validated like
// `novel validate setup:X` before anything is written, so the backend can
// ask again with the error as feedback.
func TestLiveSetupValidates(t *testing.T) {
	p, err := ParsePacket([]byte(`{"version":1,"step":"setup:world","chapter":null,"volume":0,"revision_round":0,
	 "agent":{"name":"world-builder","kind":"agent","mode":"setup"},
	 "expected_outputs":[{"path":"staging/setup/world/overview.md","required":true,"via":"file"}]}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	rule := func(id string) string {
		return `{"id":"` + id + `","category":"society","rule":"r","constraint_type":"hard","exceptions":[]}`
	}
	answer := func(ids ...string) []byte {
		rules := make([]string, len(ids))
		for i, id := range ids {
			rules[i] = rule(id)
		}
		return []byte("好的，设定如下：\n```json\n" + `{"files":{"world/overview.md":"# 概况\n\n云岚山。","world/rules.json":{"rules":[` +
			strings.Join(rules, ",") + `]},"storylines/storylines.json":{"storylines":[{"id":"main-arc","name":"主线","type":"main"}]}}}` + "\n```")
	}
	_, err = parseLive(nil, p, answer("W-001", "W-002", "W-002"), "model answer", nil)
	if e := errs.As(err); e == nil || e.Code != errs.Agent || !strings.Contains(e.Message("zh"), "规则 id W-002 重复") {
		t.Fatalf("duplicate rule ids: %v", err)
	}
	res, err := parseLive(nil, p, answer("W-001", "W-002", "W-003"), "model answer", nil)
	if err != nil || len(res.Files) != 3 {
		t.Fatalf("valid answer: %v", err)
	}
}
