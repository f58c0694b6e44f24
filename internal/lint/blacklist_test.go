package lint

import (
	"reflect"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
)

func TestParseBlacklist(t *testing.T) {
	var obj map[string]any
	if err := jsonio.Decode([]byte(`{"words":["甲"," 乙 ","丙","甲","",{"word":"丁"}],"whitelist":{"words":["乙"]},"exemptions":{"words":["丙"]}}`), "x", &obj); err != nil {
		t.Fatal(err)
	}
	b, err := parseBlacklist(obj)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"甲", "丁"}; !reflect.DeepEqual(b.Words, want) {
		t.Fatalf("words = %v", b.Words)
	}
	if _, err := parseBlacklist(map[string]any{"words": "甲"}); err == nil {
		t.Fatal("words must be a list")
	}
}
