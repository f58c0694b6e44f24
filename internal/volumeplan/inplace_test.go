package volumeplan

import (
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// planFiles is a valid three-chapter plan of volume 1, relative to its
// volume directory.
func planFiles() map[string]string {
	return map[string]string{
		"outline.md":                         "### 第 1 章: 灯\n- **Storyline**: main-arc\n\n### 第 2 章: 玉\n- **Storyline**: main-arc\n\n### 第 3 章: 雪\n- **Storyline**: main-arc\n",
		"storyline-schedule.json":            `{"active_storylines":["main-arc"],"dormant_storylines":[],"convergence_events":[]}`,
		"foreshadowing.json":                 `{"foreshadowing":[]}`,
		"chapter-contracts/chapter-001.json": `{"chapter":1,"storyline_id":"main-arc","objectives":[{"id":"o1","required":true}]}`,
		"chapter-contracts/chapter-002.md":   "## 第 2 章：玉\n\n- **故事线**：main-arc\n\n### 验收标准\n1. 玉佩现身\n",
	}
}

const quickStart = `{"schema_version":2,"last_completed_chapter":0,"current_volume":0,"orchestrator_state":"QUICK_START","pipeline_stage":null,"inflight_chapter":null,"revision_count":0}`

// both writes the plan into staging/volumes/vol-01/ of one project and
// volumes/vol-01/ of another, and checks each the way its caller does.
func both(t *testing.T, files map[string]string) (staged, inPlace *Plan, stagedErr, inPlaceErr error) {
	t.Helper()
	sf := map[string]string{".checkpoint.json": quickStart}
	pf := map[string]string{".checkpoint.json": quickStart}
	for name, text := range files {
		sf["staging/volumes/vol-01/"+name] = text
		pf["volumes/vol-01/"+name] = text
	}
	sroot, proot := testkit.Project(t, sf), testkit.Project(t, pf)
	cp, err := checkpoint.Load(sroot)
	if err != nil {
		t.Fatal(err)
	}
	staged, stagedErr = Validate(sroot, cp, 1)
	inPlace, inPlaceErr = CheckInPlace(proot, 1, 1)
	return
}

// A plan fails in place exactly as it fails staged: same code, same
// message with the volume directory's path.
func TestCheckInPlaceRunsTheCommitChecks(t *testing.T) {
	cases := map[string]func(map[string]string){
		"contract storyline": func(f map[string]string) {
			f["chapter-contracts/chapter-001.json"] = `{"chapter":1,"storyline_id":"side","objectives":[{"id":"o1","required":true}]}`
		},
		"markdown contract storyline": func(f map[string]string) {
			f["chapter-contracts/chapter-002.md"] = strings.Replace(f["chapter-contracts/chapter-002.md"], "main-arc", "side", 1)
		},
		"contract for an unheaded chapter": func(f map[string]string) { f["chapter-contracts/chapter-009.json"] = `{}` },
		"outline gap": func(f map[string]string) {
			f["outline.md"] = "### 第 1 章: 灯\n- **Storyline**: main-arc\n\n### 第 3 章: 雪\n- **Storyline**: main-arc\n"
		},
		"outline start":       func(f map[string]string) { f["outline.md"] = "### 第 2 章: 玉\n- **Storyline**: main-arc\n" },
		"bad heading":         func(f map[string]string) { f["outline.md"] += "#### 第 4 章: 关\n" },
		"schedule JSON":       func(f map[string]string) { f["storyline-schedule.json"] = `{"active_storylines":[` },
		"foreshadowing shape": func(f map[string]string) { f["foreshadowing.json"] = `{"foreshadowing":"none"}` },
	}
	for name, breakIt := range cases {
		files := planFiles()
		breakIt(files)
		_, _, se, pe := both(t, files)
		s, p := errs.As(se), errs.As(pe)
		if s == nil || p == nil {
			t.Errorf("%s: staged %v, in place %v; want both refused", name, se, pe)
			continue
		}
		if s.Code != p.Code || strings.ReplaceAll(s.En, "staging/volumes/", "volumes/") != p.En {
			t.Errorf("%s: staged %s %q, in place %s %q", name, s.Code, s.En, p.Code, p.En)
		}
	}
}

// In place, what chapter packets do without is a warning; staged, a
// missing schedule is still an error and an unknown character refused.
func TestCheckInPlaceWarnings(t *testing.T) {
	files := planFiles()
	delete(files, "storyline-schedule.json")
	delete(files, "foreshadowing.json")
	files["chapter-contracts/chapter-001.json"] = `{"chapter":1,"storyline_id":"main-arc","objectives":[{"id":"o1","required":true}],"preconditions":{"character_states":{"周伯":{}}}}`
	_, p, se, pe := both(t, files)
	if pe != nil {
		t.Fatalf("in place refused: %v", pe)
	}
	if !errs.Is(se, errs.MissingFile) {
		t.Errorf("staged without a schedule: %v, want E_MISSING_FILE", se)
	}
	want := []string{"storyline-schedule.json is missing", "foreshadowing.json is missing", "no chapter contract", `names "周伯"`}
	if len(p.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", p.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.Contains(p.Warnings[i], w) {
			t.Errorf("warning %d %q lacks %q", i, p.Warnings[i], w)
		}
	}
	if p.Start != 1 || p.End != 3 || len(p.Moves) != 0 || p.Replace != nil {
		t.Errorf("plan %d–%d moves %v replace %v", p.Start, p.End, p.Moves, p.Replace)
	}

	files["storyline-schedule.json"] = `{}`
	files["foreshadowing.json"] = `{"foreshadowing":[]}`
	if _, _, se, _ = both(t, files); !errs.Is(se, errs.Contract) || !strings.Contains(errs.As(se).En, "周伯") {
		t.Errorf("staged unknown character: %v, want E_CONTRACT", se)
	}
}
