package settings

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestVolumeSettings(t *testing.T) {
	s, err := load(t, `{"chapters_per_volume":30,"volume_plan_approval":"auto"}`, nil)
	if err != nil || s.ChaptersPerVolume != 30 || s.VolumePlanApproval != ApprovalAuto {
		t.Fatalf("%+v %v", s, err)
	}
	if d := Defaults(); d.ChaptersPerVolume != 0 || d.VolumePlanApproval != ApprovalAuthor {
		t.Errorf("defaults: %+v", d)
	}
	for _, bad := range []string{`{"chapters_per_volume":0}`, `{"chapters_per_volume":1001}`, `{"chapters_per_volume":"30"}`,
		`{"chapters_per_volume":2.5}`, `{"volume_plan_approval":"Auto"}`, `{"volume_plan_approval":true}`} {
		_, err := load(t, bad, nil)
		if e := errs.As(err); e == nil || e.Code != errs.Config {
			t.Errorf("%s: want E_CONFIG, got %v", bad, err)
		}
	}
}
