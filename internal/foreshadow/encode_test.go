package foreshadow

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodeViaEncoder is the straightforward rendering Encode must match
// byte for byte: encoding/json's indenting encoder over the top-level map.
func encodeViaEncoder(f *File, items []Item) ([]byte, error) {
	top := map[string]json.RawMessage{}
	for k, v := range f.top {
		top[k] = v
	}
	var lb bytes.Buffer
	lb.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			lb.WriteByte(',')
		}
		if v, ok := it.raw["_entry"]; ok && len(it.raw) == 1 {
			lb.Write(v)
			continue
		}
		b, err := it.MarshalJSON()
		if err != nil {
			return nil, err
		}
		lb.Write(b)
	}
	lb.WriteByte(']')
	top["foreshadowing"] = lb.Bytes()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var encodeSeeds = []string{
	`{"foreshadowing":[]}`,
	`[]`,
	`{"volume":2}`,
	`{"z":{"a":[1, 2,{"b":[]}]},"foreshadowing":[{"id":"F-1","description":"<铜镜> & \u2028","scope":"short","status":"planted","planted_chapter":3,"target_resolve_range":[4, 8],"history":[{"chapter":3,"action":"planted","detail":"x","extra":{"k":[]}}],"zz":null,"aa":{}}],"a":"top"}`,
	`[{"id":"F-2","history":[1,{"chapter":2}]}, 5, "str", null, {"id":"F-3","target_resolve_range":"bad"}]`,
	"{\"foreshadowing\": [ {\"id\" : \"F-4\" ,\n \"description\": \"a\\\"b\\\\c\\n\"} ] , \"schema_version\" : 1 }",
}

func checkEncode(t *testing.T, doc []byte) {
	f, err := Parse(doc, "f.json")
	if err != nil {
		return
	}
	want, werr := encodeViaEncoder(f, f.Items)
	got, gerr := f.Encode(f.Items)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Encode(%q) error %v; encoder error %v", doc, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode(%q) =\n%s\nwant\n%s", doc, got, want)
	}
	// Merged items (typed history rewritten) too.
	merged, _ := Merge(f.Items, nil, []Op{
		{Op: "foreshadow", Path: "F-1", Value: json.RawMessage(`"advanced"`), Detail: json.RawMessage(`"d"`)},
		{Op: "foreshadow", Path: "F-new", Value: json.RawMessage(`"planted"`)},
	}, 9, "main-arc")
	want, werr = encodeViaEncoder(f, merged)
	got, gerr = f.Encode(merged)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("Encode(merged %q) =\n%s (%v)\nwant\n%s (%v)", doc, got, gerr, want, werr)
	}
}

func TestEncodeMatchesIndentingEncoder(t *testing.T) {
	for _, s := range encodeSeeds {
		checkEncode(t, []byte(s))
	}
}

func FuzzEncodeMatchesIndentingEncoder(f *testing.F) {
	for _, s := range encodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkEncode(t, doc) })
}
