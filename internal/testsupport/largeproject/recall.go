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
	// RecallPlanted is where RecallItem is planted, with evidence.
	RecallPlanted = 30
	// RecallLastSeen is where RecallItem advances (with evidence) and
	// where RecallCharacter and RecallLocation are named for the last time.
	RecallLastSeen = 120
	// RecallMinChapters is the fewest committed chapters the profile needs.
	RecallMinChapters = RecallLastSeen
	// RecallPayoff is the chapter whose plan resolves RecallItem and whose
	// outline names RecallCharacter and RecallLocation again.
	RecallPayoff = 250
	// RecallBookChapters is how far the last volume's outline runs.
	RecallBookChapters = 300

	RecallItem          = "F-9030"
	RecallCharacter     = "gu-changge"
	recallCharacterName = "顾长歌"
	RecallLocation      = "broken-bridge"
	recallLocationName  = "断桥"
	// RecallPlantedQuote and RecallAdvancedQuote are the summarizer's
	// evidence quotes, sentences of those chapters' text.
	RecallPlantedQuote  = "井底的铜镜背面刻着一个古篆的顾字。"
	RecallAdvancedQuote = "顾长歌在断桥边把铜镜沉回井底，转身走进了雾里。"
	recallSummary       = "顾长歌在断桥边与众人作别，把铜镜沉回井底后不知所踪。\n"
)

func (o Options) recall() bool { return o.Profile == Recall }

// recallScene is what chapters RecallPlanted and RecallLastSeen add to
// their text.
func recallScene(c int) string {
	switch c {
	case RecallPlanted:
		return "众人散去后，他独自俯身望井。" + RecallPlantedQuote + "\n\n"
	case RecallLastSeen:
		return RecallAdvancedQuote + "\n\n"
	}
	return ""
}

func recallPayoffBlock(storyline string) string {
	return fmt.Sprintf("- **Storyline**: %s\n- **POV**: %s\n- **Location**: %s\n- **Conflict**: 失踪多年的%s在%s现身\n"+
		"- **Arc**: 重逢\n- **Foreshadowing**: 回收 %s（井底铜镜的刻字）\n- **StateChanges**: 真相揭开\n",
		storyline, recallCharacterName, recallLocationName, recallCharacterName, recallLocationName, RecallItem)
}

// recallState adds the character and the location to the baseline state.
func (g *gen) recallState(state map[string]any) {
	state["characters"].(map[string]any)[RecallCharacter] = map[string]any{"display_name": recallCharacterName, "level": json.Number("3"),
		"location": RecallLocation, "status": "下落不明"}
	state["locations"].(map[string]any)[RecallLocation] = map[string]any{"name": recallLocationName, "description": "青岚山北麓的古桥，桥下有一口枯井。"}
}

// recallCase registers the character and adds the item to the fact layer,
// as the commits of chapters RecallPlanted and RecallLastSeen would have.
func (g *gen) recallCase() error {
	if err := g.writeJSON(layout.CharacterContract(RecallCharacter), map[string]any{"display_name": recallCharacterName, "role": "配角", "faction": "散修"}); err != nil {
		return err
	}
	if err := g.write("characters/active/"+RecallCharacter+".md", []byte("# "+recallCharacterName+"\n\n主角少年时的同伴，多年前在断桥失踪。\n")); err != nil {
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
	item := map[string]any{"id": RecallItem, "description": "井底铜镜背面的刻字", "scope": "long", "status": "advanced",
		"planted_chapter": RecallPlanted, "planted_storyline": g.storylineOf(RecallPlanted),
		"target_resolve_range": []int{RecallPayoff - 5, RecallPayoff + 5}, "last_updated_chapter": RecallLastSeen,
		"history": []any{
			map[string]any{"chapter": RecallPlanted, "action": "planted", "detail": "井底铜镜刻着顾字", "evidence": RecallPlantedQuote},
			map[string]any{"chapter": RecallLastSeen, "action": "advanced", "detail": "顾长歌沉镜离去", "evidence": RecallAdvancedQuote},
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
