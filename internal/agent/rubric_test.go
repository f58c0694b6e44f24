package agent

import "testing"

func TestStampRubric(t *testing.T) {
	judge := func(inline string) *Packet {
		p, err := ParsePacket([]byte(`{"version":1,"step":"chapter:001:judge","chapter":1,"volume":1,"revision_round":0,
		"agent":{"name":"quality-judge","kind":"agent","mode":"primary"},
		"manifest":{"inline":`+inline+`,"paths":{}},
		"expected_outputs":[{"path":"staging/evaluations/chapter-001-eval.json","required":true,"via":"stdout"}]}`), "p.json")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A model that omits or garbles the version gets the packet's.
	for _, v := range []map[string]any{{"overall": 4.1}, {"rubric_version": "v1"}, {"rubric_version": 7}} {
		if !StampRubric(judge(`{"rubric_version":"2026-11.1"}`), v) || v["rubric_version"] != "2026-11.1" {
			t.Errorf("not stamped: %v", v)
		}
	}
	same := map[string]any{"rubric_version": "2026-11.1"}
	if StampRubric(judge(`{"rubric_version":"2026-11.1"}`), same) {
		t.Errorf("an eval already carrying the version reports a change")
	}
	// Packets without a version (older packets) stamp nothing.
	old := map[string]any{"overall": 4.1}
	if StampRubric(judge(`{"key_chapter":false}`), old) || len(old) != 1 {
		t.Errorf("stamped from a packet without rubric_version: %v", old)
	}
	p := judge(`{"rubric_version":"2026-11.1"}`)
	p.Agent.Name = LogicReviewer
	lr := map[string]any{}
	if StampRubric(p, lr) || len(lr) != 0 {
		t.Errorf("stamped a logic review: %v", lr)
	}
}
