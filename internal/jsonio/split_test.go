package jsonio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// sameAsStdlib checks the splitters against encoding/json on one
// validated document.
func sameAsStdlib(t *testing.T, doc []byte) {
	t.Helper()
	if !json.Valid(doc) {
		return
	}
	var wantArr []json.RawMessage
	gotArr, ok := SplitArray(doc)
	if err := json.Unmarshal(doc, &wantArr); err == nil && bytes.HasPrefix(bytes.TrimSpace(doc), []byte("[")) {
		if !ok || len(gotArr) != len(wantArr) {
			t.Fatalf("SplitArray(%q) = %q, %v; want %q", doc, gotArr, ok, wantArr)
		}
		for i := range wantArr {
			if !bytes.Equal(gotArr[i], wantArr[i]) {
				t.Fatalf("SplitArray(%q)[%d] = %q; want %q", doc, i, gotArr[i], wantArr[i])
			}
		}
	} else if ok {
		t.Fatalf("SplitArray(%q) accepted a non-array", doc)
	}
	var wantObj map[string]json.RawMessage
	gotObj, ok := ObjectMap(doc)
	if err := json.Unmarshal(doc, &wantObj); err == nil && wantObj != nil {
		if !ok || !reflect.DeepEqual(gotObj, wantObj) {
			t.Fatalf("ObjectMap(%q) = %q, %v; want %q", doc, gotObj, ok, wantObj)
		}
	} else if ok {
		t.Fatalf("ObjectMap(%q) accepted a non-object", doc)
	}
	var wantStr string
	gotStr, ok := String(bytes.TrimSpace(doc))
	// null unmarshals into "" without error but is not a string.
	if err := json.Unmarshal(doc, &wantStr); err == nil && string(bytes.TrimSpace(doc)) != "null" {
		if !ok || gotStr != wantStr {
			t.Fatalf("String(%q) = %q, %v; want %q", doc, gotStr, ok, wantStr)
		}
	} else if ok {
		t.Fatalf("String(%q) accepted a non-string", doc)
	}
}

var splitSeeds = []string{
	`[]`, ` [ ] `, `{}`, `[1, "a,b", {"x":[1,2,{"y":"]"}]}, null, true, -1.5e3]`,
	`{"a":1,"b":"x\"}","c":{"d":[1,2]},"a":2}`,
	`{ "k\u00e9y" : "v\\\"" , "e":"" }`,
	`"plain"`, `"esc\n\u4e2d"`, `"中文"`, `12`, `null`, "\"bad\xff\"", `[[],[[]],{}]`,
	"{\"id\":\"F-1\",\n  \"target_resolve_range\": [ 1 , 5 ]\n}",
	// runs of backslashes before quotes (skipString jumps quote to quote)
	`{"a":"x\\\\\"y\\\\","b":["\\\"","\\\\",""],"c":"\"\"\\\\\\\"q"}`,
}

func TestSplitMatchesEncodingJSON(t *testing.T) {
	for _, s := range splitSeeds {
		sameAsStdlib(t, []byte(s))
	}
}

func TestSplitValuesDoNotShareCapacity(t *testing.T) {
	doc := []byte(`[[1],[2]]`)
	elems, _ := SplitArray(doc)
	_ = append(elems[0], 'x')
	if string(doc) != `[[1],[2]]` {
		t.Fatalf("append to an element changed the document: %s", doc)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { sameAsStdlib(t, doc) })
}

func TestValidateAgreesWithDecode(t *testing.T) {
	for _, s := range append(splitSeeds, "", "  ", "{", `{"a":1} x`, `{"a":1}{}`, "\ufeff{\"a\":1}", "{\"a\":\"\xff\"}", "[1,]") {
		var v json.RawMessage
		derr := Decode([]byte(s), "f.json", &v)
		body, verr := Validate([]byte(s), "f.json")
		if (derr == nil) != (verr == nil) {
			t.Fatalf("Validate(%q) error %v; Decode error %v", s, verr, derr)
		}
		if derr != nil && derr.Error() != verr.Error() {
			t.Fatalf("Validate(%q) error %q; want Decode's %q", s, verr, derr)
		}
		if derr == nil && !bytes.Equal(bytes.TrimSpace(body), bytes.TrimSpace(v)) {
			t.Fatalf("Validate(%q) = %q; want %q", s, body, v)
		}
	}
}
