package jsonio

import (
	"bytes"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

// FuzzDecode: every input either decodes or is E_INVALID_JSON / E_SCHEMA
// naming the file (with an in-range line and column for syntax errors);
// a decoded value's canonical form is a fixed point.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, "\xef\xbb\xbf{\"a\":1}", `{"a":`, "\xff", `[1e400]`, `{"a":1} {"b":2}`, `"\u0000"`, ``, "{\n\n  x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		err := Decode(data, "f.json", &v)
		if err != nil {
			e := errs.As(err)
			if e == nil || (e.Code != errs.InvalidJSON && e.Code != errs.Schema) {
				t.Fatalf("want E_INVALID_JSON or E_SCHEMA, got %v", err)
			}
			if e.Details["file"] != "f.json" {
				t.Fatalf("error does not name the file: %+v", e.Details)
			}
			if l, ok := e.Details["line"].(int); ok {
				if l < 1 || l > bytes.Count(data, []byte("\n"))+1 {
					t.Fatalf("line %d out of range", l)
				}
			}
			return
		}
		out, err := Marshal(v)
		if err != nil {
			return // e.g. numbers out of float range are refused on write
		}
		var w any
		if err := Decode(out, "again", &w); err != nil {
			t.Fatalf("canonical output does not decode: %v\n%s", err, out)
		}
		out2, err := Marshal(w)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n%s", out, out2)
		}
	})
}
