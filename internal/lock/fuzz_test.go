package lock

import "testing"

// parseInfo reads files other tools and shells write; no input may panic,
// and anything that is not an object must come out corrupt or empty.
func FuzzParseInfo(f *testing.F) {
	for _, s := range []string{``, ` `, `{}`, `[]`, `null`, `{"pid":"1"}`, `{"pid":1.5,"chapter":-3}`,
		`{"pid":12,"host":"h","started":"2026-01-01T00:00:00Z","heartbeat":"x","chapter":4,"token":"t","pid_start":9}`,
		"\xef\xbb\xbf{\"pid\":1}", "{\"host\":\"\xff\"}", `{"pid":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := parseInfo(data, nil)
		switch p.State {
		case InfoOK:
			if p.PID < 0 || (p.Chapter != nil && *p.Chapter < 1) {
				t.Fatalf("invalid values kept: %+v", p)
			}
		case InfoEmpty, InfoCorrupt:
			if p.PID != 0 || p.Token != "" {
				t.Fatalf("fields from an unreadable info: %+v", p)
			}
		default:
			t.Fatalf("state %q", p.State)
		}
		if _, ok := parseTime(p.Started); ok && p.Started == "" {
			t.Fatalf("empty started parsed as a time")
		}
	})
}
