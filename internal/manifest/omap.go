package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/novelsuite/novel/internal/jsonio"
)

// OMap is a JSON object whose keys keep insertion order, so each agent's
// inline/paths sets come out in a fixed, readable order (never map order).
type OMap struct{ kvs []kv }

type kv struct {
	k string
	v any
}

// Set adds or replaces a key (a replaced key keeps its position).
func (m *OMap) Set(k string, v any) {
	for i := range m.kvs {
		if m.kvs[i].k == k {
			m.kvs[i].v = v
			return
		}
	}
	m.kvs = append(m.kvs, kv{k, v})
}

// Delete removes a key (a missing key is no change).
func (m *OMap) Delete(k string) {
	for i := range m.kvs {
		if m.kvs[i].k == k {
			m.kvs = append(m.kvs[:i], m.kvs[i+1:]...)
			return
		}
	}
}

// Get returns a key's value.
func (m *OMap) Get(k string) (any, bool) {
	for _, p := range m.kvs {
		if p.k == k {
			return p.v, true
		}
	}
	return nil, false
}

// Keys lists the keys in order.
func (m *OMap) Keys() []string {
	ks := make([]string, len(m.kvs))
	for i, p := range m.kvs {
		ks[i] = p.k
	}
	return ks
}

// Len is the number of keys.
func (m *OMap) Len() int { return len(m.kvs) }

// MarshalJSON writes the keys in order without HTML escaping.
func (m *OMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range m.kvs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeCompact(&b, p.k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encodeCompact(&b, p.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func encodeCompact(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// UnmarshalJSON reads an object keeping its key order; values stay raw
// (json.RawMessage), which MarshalJSON writes back compacted.
func (m *OMap) UnmarshalJSON(data []byte) error {
	m.kvs = nil
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	if !jsonio.SplitObject(data, func(k string, v json.RawMessage) { m.Set(k, v) }) {
		return &json.UnmarshalTypeError{Value: "non-object", Type: reflect.TypeOf(m)}
	}
	return nil
}
