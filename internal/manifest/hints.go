package manifest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// DraftHints extracts the writer's hints from a draft that ends with a
// fenced ```json {"hints":[…]}``` block. ok is false when there is no such
// block; a block that does not parse as {"hints":[…]} is reported as bad.
func DraftHints(draft string) (hints []json.RawMessage, ok bool, bad bool) {
	t := strings.TrimRight(draft, " \t\r\n")
	if !strings.HasSuffix(t, "```") {
		return nil, false, false
	}
	body := strings.TrimSuffix(t, "```")
	open := strings.LastIndex(body, "```json")
	if open < 0 {
		return nil, false, false
	}
	// The opening fence must start a line.
	if open > 0 && body[open-1] != '\n' {
		return nil, false, false
	}
	inner := body[open+len("```json"):]
	if nl := strings.IndexByte(inner, '\n'); nl < 0 || strings.TrimSpace(inner[:nl]) != "" {
		return nil, false, false
	} else {
		inner = inner[nl+1:]
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
