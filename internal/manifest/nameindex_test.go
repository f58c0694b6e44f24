package manifest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// A display name two characters share maps to the smaller slug
// (docs/DECISIONS.md) everywhere a packet maps names: the cast's
// contracts and the state slice's cast must name the same character.
// Chapter 1's contract names 陆照; its outline block does not, so only
// the contract decides who is in the slice.
func TestSharedNameSameSlugInContractsAndSlice(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		".checkpoint.json":                                  `{"schema_version":2,"last_completed_chapter":0,"current_volume":1,"orchestrator_state":"WRITING","pipeline_stage":"committed","inflight_chapter":null,"revision_count":0}`,
		"volumes/vol-01/outline.md":                         "# 第一卷\n\n### 第 1 章: 雪夜\n\n- **Storyline**: main-arc\n- **POV**: 林远\n- **Conflict**: 山门来客\n",
		"volumes/vol-01/chapter-contracts/chapter-001.json": `{"chapter":1,"storyline_id":"main-arc","objectives":[{"id":"OBJ-1","description":"来客","required":true}],"preconditions":{"character_states":{"陆照":{"location":"山门"}}}}`,
		"characters/active/lin-yuan.json":                   `{"display_name":"林远"}`,
		"characters/active/lu-zhao.json":                    `{"display_name":"陆照"}`,
		"characters/active/lu-zhao-2.json":                  `{"display_name":"陆照"}`,
		"state/current-state.json":                          `{"state_version":0,"last_updated_chapter":0,"characters":{"lin-yuan":{"location":"山门"},"lu-zhao":{"location":"长明殿"},"lu-zhao-2":{"location":"山下"}},"items":{},"locations":{},"factions":{},"world_state":{}}`,
	})
	cp, err := checkpoint.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(root, cp, settings.Defaults(), stepid.Chapter(1, stepid.Draft), Options{})
	if err != nil {
		t.Fatal(err)
	}
	contracts, _ := p.Manifest.Paths.Get("character_contracts")
	if want := []string{"characters/active/lin-yuan.json", "characters/active/lu-zhao.json"}; !slices.Equal(pathList(contracts), want) {
		t.Errorf("character_contracts = %v, want %v", pathList(contracts), want)
	}
	var slice struct {
		Characters map[string]json.RawMessage `json:"characters"`
	}
	if err := json.Unmarshal([]byte(inlineJSON(t, p, keyStateSlice)), &slice); err != nil {
		t.Fatal(err)
	}
	var cast []string
	for s := range slice.Characters {
		cast = append(cast, s)
	}
	slices.Sort(cast)
	if want := []string{"lin-yuan", "lu-zhao"}; !slices.Equal(cast, want) {
		t.Errorf("state slice cast = %v, want %v", cast, want)
	}
}
