package settings

import "github.com/novelsuite/novel/internal/jsonio"

// Volume plan approval (settings.json volume_plan_approval, SPEC §23).
const (
	ApprovalAuthor = "author" // make … volume stops with E_AWAITING_APPROVAL
	ApprovalAuto   = "auto"   // a plan that validates is committed at once
)

// applyVolume reads chapters_per_volume and volume_plan_approval.
func (s *Settings) applyVolume(raw map[string]any, src string) error {
	if v, ok := raw["chapters_per_volume"]; ok && v != nil {
		n, isInt := jsonio.Int(v)
		if !isInt || n < 1 || n > 1000 {
			return cfgErr("chapters_per_volume", src, "必须是 1..1000 的整数", "must be an integer 1..1000", v)
		}
		s.ChaptersPerVolume = n
	}
	if v, ok := raw["volume_plan_approval"]; ok && v != nil {
		str, _ := v.(string)
		if str != ApprovalAuthor && str != ApprovalAuto {
			return cfgErr("volume_plan_approval", src, "必须是 author 或 auto", "must be author or auto", v)
		}
		s.VolumePlanApproval = str
	}
	return nil
}
