package textmeasure

import (
	"math"
	"sort"
	"strings"
)

// BlacklistHit is one blacklisted word found in the chapter.
type BlacklistHit struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

// BlacklistCount is the exact count of the effective blacklist in a
// chapter (the judge packet's blacklist_lint, SPEC §6).
type BlacklistCount struct {
	TotalHits    int            `json:"total_hits"`
	HitsPerKChar float64        `json:"hits_per_kchar"`
	Hits         []BlacklistHit `json:"hits"`
}

// CountBlacklist counts every effective blacklist word in text
// independently (non-overlapping occurrences of that word, as a hand count
// would), sorted by count descending, then word. words is the chapter's
// word count (WordCount) for the per-thousand rate, rounded to 3 places.
func CountBlacklist(list []string, text string, words int) BlacklistCount {
	l := BlacklistCount{Hits: []BlacklistHit{}}
	for _, w := range list {
		if w == "" {
			continue
		}
		if n := strings.Count(text, w); n > 0 {
			l.Hits = append(l.Hits, BlacklistHit{Word: w, Count: n})
			l.TotalHits += n
		}
	}
	sort.Slice(l.Hits, func(i, j int) bool {
		if l.Hits[i].Count != l.Hits[j].Count {
			return l.Hits[i].Count > l.Hits[j].Count
		}
		return l.Hits[i].Word < l.Hits[j].Word
	})
	if words > 0 {
		l.HitsPerKChar = Round(float64(l.TotalHits)*1000/float64(words), 3)
	}
	return l
}

// Round rounds f to places decimal places (half away from zero).
func Round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}
