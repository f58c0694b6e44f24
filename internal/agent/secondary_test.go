package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stepid"
)

func judgeRequest(t *testing.T, settingsJSON, mode string) (model string, temperature any) {
	t.Helper()
	dir := t.TempDir()
	if settingsJSON != "" {
		os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settingsJSON), 0o644)
	}
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"NOVEL_LLM_MODEL": "deepseek-chat"}
	o, err := OpenAIConfig(root, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p := &Packet{Packet: manifest.Packet{Step: "chapter:001:judge"}, Chapter: 1}
	p.Agent.Name, p.Agent.Mode = stepid.QualityJudge, mode
	req, err := o.Request(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req.Model, req.Body["temperature"]
}

// Issue #27: on key chapters the two judge requests ran on the same model
// at the same temperature. The secondary defaults to the primary's model at
// 0.5 and takes llm.roles.quality-judge-secondary when set.
func TestSecondaryJudgeRole(t *testing.T) {
	pm, pt := judgeRequest(t, "", stepid.RolePrimary)
	sm, st := judgeRequest(t, "", stepid.RoleSecondary)
	if sm != pm || st != 0.5 || pt == st {
		t.Fatalf("defaults: primary %s %v, secondary %s %v", pm, pt, sm, st)
	}
	const roles = `{"llm":{"roles":{"quality-judge":{"model":"judge-a","temperature":0.1},
 "quality-judge-secondary":{"model":"judge-b","temperature":0.3}}}}`
	if m, tp := judgeRequest(t, roles, stepid.RolePrimary); m != "judge-a" || tp != 0.1 {
		t.Fatalf("primary %s %v", m, tp)
	}
	if m, tp := judgeRequest(t, roles, stepid.RoleSecondary); m != "judge-b" || tp != 0.3 {
		t.Fatalf("secondary %s %v", m, tp)
	}
	// only the primary configured: the secondary keeps its model at 0.5
	const primaryOnly = `{"llm":{"roles":{"quality-judge":{"model":"judge-a","temperature":0.1}}}}`
	if m, tp := judgeRequest(t, primaryOnly, stepid.RoleSecondary); m != "judge-a" || tp != 0.5 {
		t.Fatalf("secondary from primary %s %v", m, tp)
	}
}
