package agent

import "encoding/json"

// StampRubric copies the judge packet's inline rubric_version into the
// parsed eval v (SPEC §18: the executor stamps it, the model is not
// trusted to echo it). It returns whether v changed. Packets without a
// rubric_version (other steps, older packets) leave v as it is, and so
// does an eval that is not a quality-judge answer.
func StampRubric(p *Packet, v map[string]any) bool {
	if p == nil || v == nil || p.Agent.Name != QualityJudge || len(p.Manifest) == 0 {
		return false
	}
	var m struct {
		Inline struct {
			RubricVersion string `json:"rubric_version"`
		} `json:"inline"`
	}
	if json.Unmarshal(p.Manifest, &m) != nil || m.Inline.RubricVersion == "" {
		return false
	}
	if cur, ok := v["rubric_version"].(string); ok && cur == m.Inline.RubricVersion {
		return false
	}
	v["rubric_version"] = m.Inline.RubricVersion
	return true
}
