package gate

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// FuzzParseGateFile: a gate file parses to a known decision for the right
// chapter, or is a typed suite error; a parsed file survives a rewrite.
func FuzzParseGateFile(f *testing.F) {
	for _, s := range []string{`{"chapter":3,"decision":"pass","polished":false}`,
		`{"chapter":3,"decision":"accepted","original_decision":"review"}`, `{"chapter":"3"}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGateFile(data, "staging/evaluations/chapter-003-gate.json", 3)
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if g.Chapter != 3 {
			t.Fatalf("chapter %d accepted", g.Chapter)
		}
		out, err := jsonio.Marshal(g)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := ParseGateFile(out, "again", 3)
		if err != nil || again.Decision != g.Decision || again.Polished != g.Polished {
			t.Fatalf("rewrite changed the gate file: %v %+v", err, again)
		}
	})
}
