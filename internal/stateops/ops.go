// Package stateops validates and applies the Summarizer's state ops (SPEC
// §8.2) to state/current-state.json. Invalid ops are dropped with a
// reason, never fatal. The document layer (doc.go) rewrites only the
// entities the ops touch, so a 5 MiB state is never fully re-encoded.
package stateops

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/project"
)

// Op kinds.
const (
	Set        = "set"
	Inc        = "inc"
	Add        = "add"
	Remove     = "remove"
	Foreshadow = "foreshadow"
)

// Foreshadow actions, in the order status may move.
const (
	Planted  = "planted"
	Advanced = "advanced"
	Resolved = "resolved"
)

// Groups are the top-level state objects ops may write (SPEC §8.2).
var Groups = []string{"characters", "items", "locations", "factions", "world_state"}

// ActiveForeshadowing is the derived list of open foreshadow ids.
const ActiveForeshadowing = "active_foreshadowing"

// Op is one validated op. Raw is the op object exactly as the delta gave
// it (it is what the changelog and the output show).
type Op struct {
	Raw    any
	Kind   string
	Path   string
	Segs   []string // dot segments; for foreshadow ops just the id
	Value  any
	Detail string
}

// Dropped is an op that was not applied, with the reason.
type Dropped struct {
	Op     any    `json:"op"`
	Reason string `json:"reason"`
}

// Decode parses one raw op (json.Number for numbers) for Validate.
func Decode(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Validate checks the static shape of one op (kind, path, value). The
// checks that depend on the state (collisions, non-numeric leaves) happen
// in Apply. reason is "" for a valid op.
func Validate(raw any) (Op, string) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Op{}, "op is not an object"
	}
	op := Op{Raw: raw}
	kind, ok := m["op"].(string)
	if !ok {
		return op, "op kind is missing or not a string"
	}
	op.Kind = kind
	path, ok := m["path"].(string)
	if !ok || path == "" {
		return op, "path is missing or not a non-empty string"
	}
	op.Path = path
	value, hasValue := m["value"]
	op.Value = value
	if d, ok := m["detail"].(string); ok {
		op.Detail = d
	}
	switch kind {
	case Foreshadow:
		if !foreshadow.ValidID(path) {
			return op, "foreshadow path must be one item id (non-empty, no dots or spaces)"
		}
		switch value {
		case Planted, Advanced, Resolved:
		default:
			return op, "foreshadow value must be planted, advanced or resolved"
		}
		op.Segs = []string{path}
		return op, ""
	case Set, Inc, Add, Remove:
	default:
		return op, "unknown op kind " + strconv.Quote(kind) + " (set, inc, add, remove, foreshadow)"
	}
	segs := strings.Split(path, ".")
	if len(segs) < 2 || len(segs) > 4 {
		return op, "path must have 2 to 4 dot-separated segments"
	}
	for _, s := range segs {
		if s == "" {
			return op, "path has an empty segment"
		}
		if !printable(s) {
			return op, "path segment contains control characters"
		}
	}
	if !isGroup(segs[0]) {
		return op, "top-level path segment must be one of characters, items, locations, factions, world_state"
	}
	if segs[0] != "world_state" && !project.IsSlug(segs[1]) {
		return op, "entity segment " + strconv.Quote(segs[1]) + " is not a slug"
	}
	op.Segs = segs
	if !hasValue {
		return op, kind + " needs a value key"
	}
	if kind == Inc {
		if _, ok := value.(json.Number); !ok {
			return op, "inc needs a numeric value"
		}
		if _, ok := finite(value.(json.Number)); !ok {
			return op, "inc value is not a finite number"
		}
	}
	return op, ledgerReason(op)
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func isGroup(s string) bool {
	for _, g := range Groups {
		if g == s {
			return true
		}
	}
	return false
}

// Result is what applying a list of ops did.
type Result struct {
	Applied  []Op
	Dropped  []Dropped
	Warnings []string
}

// AppliedRaw lists the applied ops as given (for the changelog/output).
func (r *Result) AppliedRaw() []any {
	out := make([]any, 0, len(r.Applied))
	for _, op := range r.Applied {
		out = append(out, op.Raw)
	}
	return out
}

// Apply applies validated ops in order to state (a decoded state object,
// or a partial one holding every unit the ops touch). Ops that hit a
// collision or a non-numeric leaf are dropped.
func Apply(state map[string]any, ops []Op) Result {
	var res Result
	for _, op := range ops {
		reason, warn := applyOne(state, op)
		if reason != "" {
			res.Dropped = append(res.Dropped, Dropped{Op: op.Raw, Reason: reason})
			continue
		}
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
		res.Applied = append(res.Applied, op)
	}
	return res
}

func applyOne(state map[string]any, op Op) (reason, warn string) {
	if op.Kind == Foreshadow {
		list, _ := state[ActiveForeshadowing].([]any)
		idx := -1
		for i, v := range list {
			if s, ok := v.(string); ok && s == op.Path {
				idx = i
				break
			}
		}
		switch op.Value {
		case Planted, Advanced:
			if idx < 0 {
				list = append(list, op.Path)
			}
		case Resolved:
			if idx >= 0 {
				list = append(list[:idx:idx], list[idx+1:]...)
			}
		}
		if list == nil {
			list = []any{}
		}
		state[ActiveForeshadowing] = list
		return "", ""
	}
	create := op.Kind != Remove
	parent, ok := state[op.Segs[0]].(map[string]any)
	if !ok {
		return "path collision: " + op.Segs[0] + " is not an object", ""
	}
	for _, seg := range op.Segs[1 : len(op.Segs)-1] {
		next, exists := parent[seg]
		if !exists {
			if !create {
				return "", "remove " + op.Path + ": nothing to remove (path does not exist)"
			}
			m := map[string]any{}
			parent[seg] = m
			parent = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return "path collision: " + seg + " in " + op.Path + " is not an object", ""
		}
		parent = m
	}
	leaf := op.Segs[len(op.Segs)-1]
	cur, exists := parent[leaf]
	switch op.Kind {
	case Set:
		parent[leaf] = Clone(op.Value)
	case Inc:
		base := json.Number("0")
		if exists {
			n, ok := cur.(json.Number)
			if !ok {
				return "inc target " + op.Path + " is not a number", ""
			}
			base = n
		}
		sum, ok := addNumbers(base, op.Value.(json.Number))
		if !ok {
			return "inc of " + op.Path + " overflows or is not finite", ""
		}
		parent[leaf] = sum
	case Add:
		if !exists {
			parent[leaf] = []any{Clone(op.Value)}
			return "", ""
		}
		list, ok := cur.([]any)
		if !ok {
			return "add target " + op.Path + " is not an array", ""
		}
		for _, v := range list {
			if equal(v, op.Value) {
				return "", ""
			}
		}
		parent[leaf] = append(list, Clone(op.Value))
	case Remove:
		if !exists {
			return "", "remove " + op.Path + ": nothing to remove (path does not exist)"
		}
		list, ok := cur.([]any)
		if !ok {
			return "remove target " + op.Path + " is not an array", ""
		}
		kept := make([]any, 0, len(list))
		for _, v := range list {
			if !equal(v, op.Value) {
				kept = append(kept, v)
			}
		}
		if len(kept) == len(list) {
			return "", "remove " + op.Path + ": no equal element to remove"
		}
		parent[leaf] = kept
	}
	return "", ""
}

func finite(n json.Number) (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// addNumbers adds two JSON numbers; two integers give an integer.
func addNumbers(a, b json.Number) (json.Number, bool) {
	ai, aerr := strconv.ParseInt(string(a), 10, 64)
	bi, berr := strconv.ParseInt(string(b), 10, 64)
	if aerr == nil && berr == nil {
		s := ai + bi
		if (bi > 0 && s < ai) || (bi < 0 && s > ai) {
			return "", false
		}
		return json.Number(strconv.FormatInt(s, 10)), true
	}
	af, ok1 := finite(a)
	bf, ok2 := finite(b)
	if !ok1 || !ok2 {
		return "", false
	}
	s := af + bf
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return "", false
	}
	// Format as encoding/json formats a float64, so a later full
	// re-encode keeps the same literal.
	out, err := json.Marshal(s)
	if err != nil {
		return "", false
	}
	return json.Number(out), true
}

// equal is JSON deep equality; numbers compare by value (1 == 1.0).
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		xi, e1 := strconv.ParseInt(string(x), 10, 64)
		yi, e2 := strconv.ParseInt(string(y), 10, 64)
		if e1 == nil && e2 == nil {
			return xi == yi
		}
		xf, ok1 := finite(x)
		yf, ok2 := finite(y)
		return ok1 && ok2 && xf == yf
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// Clone deep-copies a decoded JSON value, so state edits never alias an
// op's own value (which the changelog still shows).
func Clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	}
	return v
}
