package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// FuzzContract: a chapter contract either loads (agreeing with the
// outline's chapter and storyline, next_storyline a slug, inlined values
// encodable) or is a typed suite error.
func FuzzContract(f *testing.F) {
	for _, s := range []string{
		`{"chapter":3,"storyline_id":"main-arc","objectives":[{"id":"o1","required":true}],"preconditions":{"character_states":{"林枫":{}}},"storyline_context":{"concurrent_state":{"b":"x\ny"}},"transition_hint":{"next_storyline":"b"}}`,
		`{"chapter":3.0,"storyline_id":"main-arc","objectives":[{"required":true}],"transition_hint":{"next_storyline":"../x"}}`,
		`[]`, `{"chapter":"3"}`, ``} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	root, err := project.New(dir)
	if err != nil {
		f.Fatal(err)
	}
	rel := layout.Contract(1, 3)
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ct, err := loadContract(root, 1, 3, "main-arc")
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if ct == nil {
			t.Fatal("an existing contract loaded as absent")
		}
		if ct.NextStoryline != "" && !project.IsSlug(ct.NextStoryline) {
			t.Fatalf("non-slug next_storyline %q", ct.NextStoryline)
		}
		for _, v := range []any{ct.StorylineContext, ct.ConcurrentState, ct.TransitionHint} {
			if v == nil {
				continue
			}
			if _, err := jsonio.Marshal(v); err != nil {
				t.Fatalf("inline value does not encode: %v", err)
			}
		}
	})
}

// FuzzDraftHints: the hints block is found only at the end of a draft;
// what it returns is valid JSON.
func FuzzDraftHints(f *testing.F) {
	for _, s := range []string{"正文\n```json\n{\"hints\":[\"a\"]}\n```\n", "```json\n{\"hints\":1}\n```", "```", "x```json\n{}```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, draft string) {
		hints, ok, bad := DraftHints(draft)
		if !ok && (bad || hints != nil) {
			t.Fatalf("no block but bad=%v hints=%v", bad, hints)
		}
		if ok && !strings.HasSuffix(strings.TrimRight(draft, " \t\r\n"), "```") {
			t.Fatal("block found that does not end the draft")
		}
		for _, h := range hints {
			if !json.Valid(h) {
				t.Fatalf("invalid hint %q", h)
			}
		}
	})
}
