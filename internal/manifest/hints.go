package manifest

import (
	"bytes"
	"encoding/json"

	"github.com/novelsuite/novel/internal/textmeasure"
)

// DraftHints extracts the writer's hints from a draft that ends with a
// fenced ```json {"hints":[…]}``` block. ok is false when there is no such
// block; a block that does not parse as {"hints":[…]} is reported as bad.
func DraftHints(draft string) (hints []json.RawMessage, ok bool, bad bool) {
	_, inner, found := textmeasure.SplitHints(draft)
	if !found {
		return nil, false, false
	}
	var obj struct {
		Hints []json.RawMessage `json:"hints"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(inner)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj.Hints == nil || dec.More() {
		return nil, true, true
	}
	return obj.Hints, true, false
}
