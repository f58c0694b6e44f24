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

// objectMapSplitting gives, in one pass, what ObjectMap, SplitArray of
// the member and SplitObjectBytes of each element give, or declines
// (key missing, repeated or not an array).
func sameSplitting(t *testing.T, doc []byte) {
	t.Helper()
	if !json.Valid(doc) {
		return
	}
	type call struct {
		elem     int
		key, val string
	}
	var got []call
	top, elems, ok := objectMapSplitting(doc, "list", func(n int, k []byte, v json.RawMessage) {
		got = append(got, call{n, string(k), string(v)})
	})
	wantTop, isObj := ObjectMap(doc)
	count := 0
	if isObj {
		SplitObject(doc, func(k string, _ json.RawMessage) {
			if k == "list" {
				count++
			}
		})
	}
	list, isList := SplitArray(wantTop["list"])
	if !ok {
		if isObj && count == 1 && isList {
			t.Fatalf("%s: declined a single list", doc)
		}
		return
	}
	if !isObj || count != 1 || !isList {
		t.Fatalf("%s: took what it must decline", doc)
	}
	if !reflect.DeepEqual(top, wantTop) || !reflect.DeepEqual(elems, list) {
		t.Fatalf("%s: top %q elems %q; want %q %q", doc, top, elems, wantTop, list)
	}
	var want []call
	for n, e := range list {
		SplitObjectBytes(e, func(k []byte, v json.RawMessage) { want = append(want, call{n, string(k), string(v)}) })
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: members %q; want %q", doc, got, want)
	}
}

func TestObjectMapSplitting(t *testing.T) {
	for _, s := range append(splitSeeds,
		`{"list":[]}`, `{ "a" : 1 , "list" : [ {"x":1,"x":[2,{"y":"]"}]} , 3 , "s" , {} , [ ] ] , "b":{} }`,
		`{"list":[{"\u006bey":"v\"}"}]}`, `{"list":{}}`, `{"list":[1],"list":[2]}`, `{"a":1}`, `[{"a":1}]`,
		"{\n  \"list\": [\n    {\n      \"id\": 1\n    }\n  ]\n}") {
		sameSplitting(t, []byte(s))
	}
}

func FuzzObjectMapSplitting(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"list":[{"a":1},2,{"b":[{"c":"d"}]}],"z":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) { sameSplitting(t, doc) })
}

// ValidateSplitting is Validate then objectMapSplitting, in one walk.
func sameValidateSplitting(t *testing.T, doc []byte) {
	t.Helper()
	type call struct {
		elem     int
		key, val string
	}
	var got, want []call
	body, top, elems, ok, err := ValidateSplitting(doc, "f.json", "list", func(n int, k []byte, v json.RawMessage) {
		got = append(got, call{n, string(k), string(v)})
	})
	wbody, werr := Validate(doc, "f.json")
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("%q: error %v; Validate's %v", doc, err, werr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(body, wbody) {
		t.Fatalf("%q: body %q; Validate's %q", doc, body, wbody)
	}
	wtop, welems, wok := objectMapSplitting(wbody, "list", func(n int, k []byte, v json.RawMessage) {
		want = append(want, call{n, string(k), string(v)})
	})
	if ok != wok {
		t.Fatalf("%q: ok %v; objectMapSplitting's %v", doc, ok, wok)
	}
	if ok && (!reflect.DeepEqual(top, wtop) || !reflect.DeepEqual(elems, welems) || !reflect.DeepEqual(got, want)) {
		t.Fatalf("%q: %q %q %q; want %q %q %q", doc, top, elems, got, wtop, welems, want)
	}
}

func TestValidateSplitting(t *testing.T) {
	for _, s := range append(splitSeeds,
		"", " ", "{", "[1,]", `{"list":[1,]}`, `{"list":[{"a":}]}`, `{"list":[]} x`, "\ufeff{\"list\":[{\"a\":1}]}",
		`{"list":[]}`, `{ "a" : 1 , "list" : [ {"x":1,"x":[2,{"y":"]"}]} , 3 , "s" , {} , [ ] ] , "b":{} }`,
		`{"list":[{"\u006bey":"v\"}"}]}`, `{"list":{}}`, `{"list":[1],"list":[2]}`, `{"a":1}`, `[{"a":1}]`,
		"{\"list\":[{\"a\":\"\xff\"}]}", `{"list":[{"a":"\x01"}]}`, `{"list":[{"a":tru}]}`,
		"{\n  \"list\": [\n    {\n      \"id\": 1\n    }\n  ]\n}") {
		sameValidateSplitting(t, []byte(s))
	}
}

func FuzzValidateSplitting(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"list":[{"a":1},2,{"b":[{"c":"d"}]}],"z":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) { sameValidateSplitting(t, doc) })
}
