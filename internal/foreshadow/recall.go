package foreshadow

// Setup is what recall shows of an item paid off long after it was set up
// (SPEC §25): where it was planted and the summarizer's quote of that
// scene, and its latest advance before the chapter with that quote.
type Setup struct {
	ID, Description string
	PlantedChapter  int
	PlantedQuote    string
	AdvancedChapter int
	AdvancedQuote   string
}

// SetupOf reads item id of the fact layer as of chapter c (history
// entries of c and later are ignored); false when the fact layer has no
// such item or nothing of it happened before c.
func SetupOf(global []Item, id string, c int) (Setup, bool) {
	light, ok := index(global)[id]
	if !ok {
		return Setup{}, false
	}
	it := light.clone()
	s := Setup{ID: it.ID, Description: it.Description}
	if it.PlantedChapter > 0 && it.PlantedChapter < c {
		s.PlantedChapter = it.PlantedChapter
	}
	for _, h := range it.History {
		if h.Chapter <= 0 || h.Chapter >= c {
			continue
		}
		switch h.Action {
		case Planted:
			if s.PlantedChapter == 0 || h.Chapter == s.PlantedChapter && s.PlantedQuote == "" {
				s.PlantedChapter, s.PlantedQuote = h.Chapter, h.Evidence
			}
		case Advanced:
			if h.Chapter >= s.AdvancedChapter {
				s.AdvancedChapter, s.AdvancedQuote = h.Chapter, h.Evidence
			}
		}
	}
	return s, s.PlantedChapter > 0 || s.AdvancedChapter > 0
}
