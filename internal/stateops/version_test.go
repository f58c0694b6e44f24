package stateops

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

func TestStateVersion(t *testing.T) {
	big := "{\n  \"characters\": {\n    \"a\": {\n      \"state_version\": 99\n    }\n  },\n  \"state_version\": 12,\n  \"world_state\": {\n    \"pad\": \"" +
		strings.Repeat("x", 100<<10) + "\"\n  }\n}\n"
	// The key line across the boundary of the backward 64 KiB chunks, at
	// every offset around it, and a world_state of several chunks after it.
	split := func(pad int) string {
		return "{\n  \"characters\": {},\n  \"state_version\": 345,\n  \"world_state\": {\n    \"pad\": \"" +
			strings.Repeat("y", pad) + "\"\n  }\n}\n"
	}
	type tc = struct {
		name, body string
		want       int
	}
	var extra []tc
	for pad := 64<<10 - 60; pad <= 64<<10+10; pad++ {
		extra = append(extra, tc{name: "split " + strconv.Itoa(pad), body: split(pad), want: 345})
	}
	extra = append(extra, tc{name: "world_state of 5 chunks", body: split(5 * 64 << 10), want: 345})
	cases := []struct {
		name, body string
		want       int
		code       string
	}{
		{"canonical tail", "{\n  \"schema_version\": 1,\n  \"state_version\": 7,\n  \"world_state\": {}\n}\n", 7, ""},
		{"canonical, key far from the end", big, 12, ""},
		{"compact", `{"characters":{"a":{"state_version":3}},"state_version":5}`, 5, ""},
		{"missing field", `{"characters":{}}`, 0, ""},
		{"negative", `{"state_version":-1}`, 0, errs.Schema},
		{"string", `{"state_version":"3"}`, 0, errs.Schema},
		{"array", `[1]`, 0, errs.Schema},
		{"broken", "{\n  \"state_version\": 3,", 0, errs.InvalidJSON},
	}
	for _, c := range extra {
		cases = append(cases, struct {
			name, body string
			want       int
			code       string
		}{c.name, c.body, c.want, ""})
	}
	// The canonical ones are read by the chunked scan, not the fallback.
	for _, c := range extra {
		f, _ := os.CreateTemp(t.TempDir(), "state")
		f.WriteString(c.body)
		if v, ok := tailStateVersion(f); !ok || v != c.want {
			t.Errorf("%s: tail scan %d, %v", c.name, v, ok)
		}
		f.Close()
	}
	for _, c := range cases {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "state"), 0o755)
		os.WriteFile(filepath.Join(dir, "state", "current-state.json"), []byte(c.body), 0o644)
		root, _ := project.New(dir)
		got, err := StateVersion(root)
		if c.code != "" {
			if !errs.Is(err, c.code) {
				t.Errorf("%s: err = %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	root, _ := project.New(t.TempDir())
	if v, err := StateVersion(root); v != 0 || err != nil {
		t.Errorf("no state file: %d, %v", v, err)
	}
}
