package errs

import (
	"encoding/json"
	"testing"
)

// The envelope prints its keys in the SPEC §1 order, never a null details,
// and ParseLine reads back what it printed.
func TestEnvelopeRoundTrip(t *testing.T) {
	e := New(Usage, "坏", "bad").Hint("改", "fix").With("V", `a"b`)
	line, err := json.Marshal(e.Envelope("en"))
	if err != nil || string(line) != `{"error":{"code":"E_USAGE","message":"bad","hint":"fix","details":{"V":"a\"b"}}}` {
		t.Fatalf("%s %v", line, err)
	}
	if line, _ := json.Marshal(New(IO, "x", "").Envelope("zh")); string(line) != `{"error":{"code":"E_IO","message":"x","hint":"","details":{}}}` {
		t.Fatalf("%s", line)
	}
	back := ParseLine(line)
	if back == nil || back.Code != Usage || back.Message("zh") != "bad" || back.HintText("en") != "fix" || back.Details["V"] != `a"b` || back.Exit != ExitUsage {
		t.Fatalf("%+v", back)
	}
	for _, bad := range []string{"", "not json", `{"error":{}}`, `{"error":null}`, `{"x":1}`} {
		if ParseLine([]byte(bad)) != nil {
			t.Errorf("%q parsed as an error line", bad)
		}
	}
}
