package largeproject

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
)

// The recall profile (SPEC §25 "Scale check"): generate it with
// Options{Profile: Recall, Chapters: RecallPayoff − 1} and chapter
// RecallPayoff is the one in flight.
const (
	Recall = "recall"
	// recallPlanted is where RecallItem is planted, with evidence.
	recallPlanted = 30
	// recallLastSeen is where RecallItem advances (with evidence) and
	// where RecallCharacter and RecallLocation are named for the last time.
	recallLastSeen = 120
	// recallMinChapters is the fewest committed chapters the profile needs.
	recallMinChapters = recallLastSeen
	// RecallPayoff is the chapter whose plan resolves RecallItem and whose
	// outline names RecallCharacter and RecallLocation again.
	RecallPayoff = 250
	// recallBookChapters is how far the last volume's outline runs.
	recallBookChapters = 300

	recallItem          = "F-9030"
	recallCharacter     = "gu-changge"
	recallCharacterName = "顾长歌"
	recallLocation      = "broken-bridge"
	recallLocationName  = "断桥"
	// recallPlantedQuote and RecallAdvancedQuote are the summarizer's
	// evidence quotes, sentences of those chapters' text.
	recallPlantedQuote  = "井底的铜镜背面刻着一个古篆的顾字。"
	recallAdvancedQuote = "顾长歌在断桥边把铜镜沉回井底，转身走进了雾里。"
	recallSummary       = "顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。\n"
)

func (o Options) recall() bool { return o.Profile == Recall }

// recallScene is what chapters RecallPlanted and RecallLastSeen add to
// their text.
func recallScene(c int) string {
	switch c {
	case recallPlanted:
		return "众人散去后，他独自俯身望井。" + recallPlantedQuote + "\n\n"
	case recallLastSeen:
		return recallAdvancedQuote + "\n\n"
	}
	return ""
}

func recallPayoffBlock(storyline string) string {
	return fmt.Sprintf("- **Storyline**: %s\n- **POV**: %s\n- **Location**: %s\n- **Conflict**: 失踪多年的%s在%s现身\n"+
		"- **Arc**: 重逢\n- **Foreshadowing**: 回收 %s（井底铜镜的刻字）\n- **StateChanges**: 真相揭开\n",
		storyline, recallCharacterName, recallLocationName, recallCharacterName, recallLocationName, recallItem)
}

// recallState adds the character and the location to the baseline state.
func (g *gen) recallState(state map[string]any) {
	state["characters"].(map[string]any)[recallCharacter] = map[string]any{"display_name": recallCharacterName, "level": json.Number("3"),
		"location": recallLocation, "status": "下落不明"}
	state["locations"].(map[string]any)[recallLocation] = map[string]any{"name": recallLocationName, "description": "青岚山北麓的古桥，桥下有一口枯井。"}
}

// recallCase registers the character and adds the item to the fact layer,
// as the commits of chapters RecallPlanted and RecallLastSeen would have.
func (g *gen) recallCase() error {
	if err := g.writeJSON(layout.CharacterContract(recallCharacter), map[string]any{"display_name": recallCharacterName, "role": "配角", "faction": "散修"}); err != nil {
		return err
	}
	if err := g.write("characters/active/"+recallCharacter+".md", []byte("# "+recallCharacterName+"\n\n主角少年时的同伴，多年前在断桥失踪。\n")); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(g.dir, filepath.FromSlash(layout.GlobalForeshadow)))
	if err != nil {
		return err
	}
	f, err := foreshadow.Parse(data, layout.GlobalForeshadow)
	if err != nil {
		return err
	}
	item := map[string]any{"id": recallItem, "description": "井底铜镜背面的刻字", "scope": "long", "status": "advanced",
		"planted_chapter": recallPlanted, "planted_storyline": g.storylineOf(recallPlanted),
		"target_resolve_range": []int{RecallPayoff - 5, RecallPayoff + 5}, "last_updated_chapter": recallLastSeen,
		"history": []any{
			map[string]any{"chapter": recallPlanted, "action": "planted", "detail": "井底铜镜刻着顾字", "evidence": recallPlantedQuote},
			map[string]any{"chapter": recallLastSeen, "action": "advanced", "detail": "顾长歌沉镜离去", "evidence": recallAdvancedQuote},
		}}
	raw, err := json.Marshal(map[string]any{"foreshadowing": []any{item}})
	if err != nil {
		return err
	}
	extra, err := foreshadow.Parse(raw, layout.GlobalForeshadow)
	if err != nil {
		return err
	}
	out, err := f.Encode(append(f.Items, extra.Items...))
	if err != nil {
		return err
	}
	return g.write(layout.GlobalForeshadow, out)
}
