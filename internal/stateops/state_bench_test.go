package stateops_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/stateops"
	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// largeState is the ~5.9 MB state of the SPEC §14 project (generated on
// first use and cached by largeproject.Cached).
func largeState(b *testing.B) []byte {
	dir, err := largeproject.Cached(largeproject.Options{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(layout.CurrentState)))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// benchOps is a typical chapter delta: a few entity edits.
func benchOps(b *testing.B) []stateops.Op {
	raws := []string{
		`{"op":"set","path":"characters.char-001.location","value":"北境"}`,
		`{"op":"inc","path":"characters.char-002.level","value":1}`,
		`{"op":"add","path":"characters.char-150.notes","value":"第2001章：北上。"}`,
		`{"op":"set","path":"items.item-new.owner","value":"char-003"}`,
	}
	var ops []stateops.Op
	for _, r := range raws {
		v, err := stateops.Decode(json.RawMessage(r))
		if err != nil {
			b.Fatal(err)
		}
		op, reason := stateops.Validate(v)
		if reason != "" {
			b.Fatal(reason)
		}
		ops = append(ops, op)
	}
	return ops
}

// BenchmarkCommitStateUpdate is the commit's state work: open the
// canonical document and rewrite only the entities the ops touch.
func BenchmarkCommitStateUpdate(b *testing.B) {
	data, ops := largeState(b), benchOps(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := stateops.Open(data, layout.CurrentState)
		if err != nil {
			b.Fatal(err)
		}
		if _, res, err := doc.Apply(ops, 2001); err != nil || len(res.Applied) != len(ops) {
			b.Fatal(err, res.Dropped)
		}
	}
}

// BenchmarkApplyDecoded applies the ops to an already decoded state (the
// rebuild's per-line work).
func BenchmarkApplyDecoded(b *testing.B) {
	st, _, err := stateops.DecodeState(largeState(b), layout.CurrentState)
	if err != nil {
		b.Fatal(err)
	}
	ops := benchOps(b)
	b.ReportAllocs()
	for b.Loop() {
		stateops.Apply(st, ops)
	}
}

// BenchmarkDecodeState decodes the whole state into generic maps.
func BenchmarkDecodeState(b *testing.B) {
	data := largeState(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := stateops.DecodeState(data, layout.CurrentState); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeState re-encodes the whole decoded state canonically
// (what a commit must avoid, SPEC §14).
func BenchmarkEncodeState(b *testing.B) {
	data := largeState(b)
	st, _, err := stateops.DecodeState(data, layout.CurrentState)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonio.Marshal(st); err != nil {
			b.Fatal(err)
		}
	}
}
