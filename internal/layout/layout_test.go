package layout

import "testing"

// PacketStep reads back exactly the names Packet and AuditPacket write.
func TestPacketStep(t *testing.T) {
	for _, c := range []struct{ base, step, role string }{
		{"chapter-004-draft.packet.json", "chapter:004:draft", ""},
		{"chapter-1234-logic-review.packet.json", "chapter:1234:logic-review", ""},
		{"chapter-001-judge.secondary.packet.json", "chapter:001:judge", "secondary"},
		{"audit-005.packet.json", "audit:005", ""},
		{"chapter-04-draft.packet.json", "", ""},
		{"chapter-004-.packet.json", "", ""},
		{"chapter-004-Draft.packet.json", "", ""},
		{"chapter-004-draft.snapshot", "", ""},
		{"audit-5.packet.json", "", ""},
		{"volume-01-plan.packet.json", "", ""},
		{"xx.json", "", ""},
	} {
		step, role, ok := PacketStep(c.base)
		if step != c.step || role != c.role || ok != (c.step != "") {
			t.Errorf("%s: %q %q %v, want %q %q", c.base, step, role, ok, c.step, c.role)
		}
	}
	for _, rel := range []string{Packet(7, "summarize"), AuditPacket(10)} {
		if _, _, ok := PacketStep(rel[len(StagingManifests)+1:]); !ok {
			t.Errorf("%s not read back", rel)
		}
	}
}
