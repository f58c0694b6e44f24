package jsonio

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `[1,2]`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `"x`, `"\u12"`, `"\u12G4"`, `"\x"`,
	`"\/\b\f\n\r\t\"\\\u00e9"`, "\"tab\there\"", "\"\xff\"", `01`, `-`, `-0`, `-0.5e+10`, `1.`, `1e`, `1E-`, `.5`,
	`tru`, `true`, `truex`, `nul`, `null null`, `[true,false,null]`, `{"a":[{"b":{}}]}`, ` [ 1 , { "k" : "v" } ] `,
	"{\n  \"a\": [\n    1\n  ]\n}\n", `{"a":1}}`, `[[]`, `1 2`, "\ufeff{}",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("valid(%.40q) = %v; json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("valid(%q) = %v; json.Valid says %v", b, got, want)
		}
	})
}
