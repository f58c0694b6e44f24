package manifest

import (
	"math"
	"sort"
	"strings"
)

// LintHit is one blacklisted word found in the chapter.
type LintHit struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

// BlacklistLint is the judge's exact count of the effective blacklist.
type BlacklistLint struct {
	TotalHits    int       `json:"total_hits"`
	HitsPerKChar float64   `json:"hits_per_kchar"`
	Hits         []LintHit `json:"hits"`
}

// Lint counts every effective blacklist word in text independently
// (non-overlapping occurrences of that word, as a hand count would), sorted
// by count descending, then word. chars is the chapter's character count
// (the suite's word count) for the per-thousand rate, rounded to 3 places.
func Lint(words []string, text string, chars int) BlacklistLint {
	l := BlacklistLint{Hits: []LintHit{}}
	for _, w := range words {
		if w == "" {
			continue
		}
		if n := strings.Count(text, w); n > 0 {
			l.Hits = append(l.Hits, LintHit{Word: w, Count: n})
			l.TotalHits += n
		}
	}
	sort.Slice(l.Hits, func(i, j int) bool {
		if l.Hits[i].Count != l.Hits[j].Count {
			return l.Hits[i].Count > l.Hits[j].Count
		}
		return l.Hits[i].Word < l.Hits[j].Word
	})
	if chars > 0 {
		l.HitsPerKChar = math.Round(float64(l.TotalHits)*1000/float64(chars)*1000) / 1000
	}
	return l
}
