package jsonio

import (
	"bytes"
	"encoding/json"
	"testing"
)

var indentSeeds = []string{
	`{}`, `[]`, `{"a":[]}`, `{"a": {}, "b": [1, 2, {"c": "d\"e"}], "f": null}`, ` [ true , false ] `, "\n{\"x\":1}\n\t",
	`"s"`, `12.5e3`, `{"a":"x, y: [z]"}`, `{"k\\":"v\\\\"}`, `[[[]],[{}]]`, `{"a":1`, `{"a":1}}`, `nul`, ``, "{\"a\":\"\xff\"}",
	`{"description":"第3号伏笔：古井下的铜镜。","target_resolve_range":[5,9],"history":[{"chapter":4,"action":"planted"}]}`,
}

func sameIndent(t *testing.T, s string) {
	t.Helper()
	for _, pi := range [][2]string{{"", "  "}, {"    ", "  "}, {"", ""}} {
		var got, want bytes.Buffer
		got.WriteString("head")
		want.WriteString("head")
		gerr := Indent(&got, []byte(s), pi[0], pi[1])
		werr := json.Indent(&want, []byte(s), pi[0], pi[1])
		if (gerr == nil) != (werr == nil) || (werr == nil && got.String() != want.String()) {
			t.Fatalf("%q %q: %q, %v; json.Indent: %q, %v", s, pi, got.String(), gerr, want.String(), werr)
		}
	}
}

func TestIndentSameAsJSONIndent(t *testing.T) {
	for _, s := range indentSeeds {
		sameIndent(t, s)
	}
}

func FuzzIndent(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameIndent(t, s) })
}
