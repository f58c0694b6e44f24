package volume

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// FuzzParseSchedule: a schedule either parses (every id a slug, every
// event a valid range) or is a typed suite error naming the file.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `null`,
		`{"active_storylines":["a",{"storyline_id":"b"}],"dormant_storylines":["c"],"convergence_events":[{"chapter_range":[2,3],"involved_storylines":["a","b"]},{"target_chapter_range":[4,4]},{"chapter_range":null},7]}`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, c int) {
		s, err := ParseSchedule(data, "volumes/vol-01/storyline-schedule.json")
		if err != nil {
			e := errs.As(err)
			if e == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, id := range append(append([]string{}, s.Active...), s.Dormant...) {
			if !project.IsSlug(id) {
				t.Fatalf("non-slug id %q accepted", id)
			}
		}
		for _, ev := range s.Events {
			if ev.Start < 1 || ev.End < ev.Start {
				t.Fatalf("invalid event range kept: %+v", ev)
			}
			for _, id := range ev.Storylines {
				if !project.IsSlug(id) {
					t.Fatalf("non-slug involved id %q accepted", id)
				}
			}
		}
		for _, ev := range s.EventsAt(c) {
			if c < ev.Start || c > ev.End {
				t.Fatalf("EventsAt(%d) returned %+v", c, ev)
			}
		}
	})
}
