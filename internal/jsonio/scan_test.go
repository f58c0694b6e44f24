package jsonio

import (
	"encoding/json"
	"testing"
)

func TestScanNumber(t *testing.T) {
	for in, want := range map[string]int{
		"0": 1, "-0": 2, "12,": 2, "1.5]": 3, "-2e+10 ": 6, "3E4": 3, "7.25e-3}": 7,
		"": -1, "-": -1, "01": 1, "1.": -1, ".5": -1, "1e": -1, "1e+": -1, "x": -1, "+1": -1,
	} {
		end, ok := ScanNumber([]byte(in), 0)
		if want < 0 {
			if ok {
				t.Errorf("ScanNumber(%q) = %d, true; want false", in, end)
			}
			continue
		}
		if !ok || end != want {
			t.Errorf("ScanNumber(%q) = %d, %v; want %d", in, end, ok, want)
		}
	}
	// It agrees with encoding/json on a whole document.
	for _, in := range []string{"0", "-0.0e0", "123456789012345678901234567890", "1e999", "00", "-01", "2.", "1e5.5"} {
		end, ok := ScanNumber([]byte(in), 0)
		if got, want := ok && end == len(in), json.Valid([]byte(in)); got != want {
			t.Errorf("ScanNumber(%q) accepts the whole input: %v; json.Valid: %v", in, got, want)
		}
	}
}

func TestFirstInvalidUTF8(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "雨夜": 6, "a\xffb": 1, "雨\xe5\x8a": 3, "ok\xe9": 2} {
		if got := FirstInvalidUTF8([]byte(in)); got != want {
			t.Errorf("FirstInvalidUTF8(%q) = %d, want %d", in, got, want)
		}
	}
}
