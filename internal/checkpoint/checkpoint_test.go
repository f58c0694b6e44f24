package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

func TestParseLenient(t *testing.T) {
	cp, err := Parse([]byte("\xEF\xBB\xBF{\"last_completed_chapter\":3,\"current_volume\":1,\"pipeline_stage\":\"refining\",\"inflight_chapter\":4,\"custom\":{\"a\":1}}"))
	if err != nil {
		t.Fatal(err)
	}
	if cp.State != Writing || cp.Stage != Drafted || cp.PluginStage != "refining" || cp.Inflight != 4 || cp.RevisionCount != 0 {
		t.Fatalf("%+v", cp)
	}
	cp, err = Parse([]byte(`{"last_completed_chapter":3,"current_volume":1,"inflight_chapter":0,"pipeline_stage":"summarized"}`))
	if err != nil || cp.Inflight != 0 || !cp.Idle() || cp.Stage != Judged {
		t.Fatalf("%+v %v", cp, err)
	}
	cp, err = Parse([]byte(`{"last_completed_chapter":0,"current_volume":0,"orchestrator_state":"QUICK_START"}`))
	if err != nil || cp.CurrentVolume != 0 {
		t.Fatalf("%+v %v", cp, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "[]", "[1,2]", "null", "42", `"x"`, "{", `{"last_completed_chapter":"3"}`,
		`{"last_completed_chapter":-1}`, `{"last_completed_chapter":1.5}`, `{"orchestrator_state":"writing"}`,
		`{"pipeline_stage":"bogus"}`, `{"current_volume":0}`, `{"inflight_chapter":true}`, "\xff\xfe{}",
		`{"last_error":"x"}`, `{} {}`,
		// SPEC §22: no default for the last completed chapter, no newer schema
		`{}`, `{"last_completed_chapter":null}`, `{"schema_version":3,"last_completed_chapter":1}`,
		// chapter numbers a step id cannot carry (stepid.MaxNumber): next would propose an unparsable step
		`{"last_completed_chapter":999999}`, `{"inflight_chapter":1000000}`, `{"current_volume":1000000}`} {
		_, err := Parse([]byte(in))
		if !errs.Is(err, errs.Checkpoint) {
			t.Errorf("Parse(%q) = %v, want E_CHECKPOINT", in, err)
		}
	}
}

func TestSaveKeepsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".checkpoint.json"), []byte(`{"last_completed_chapter":2,"current_volume":1,"zz_plugin":[1,"a"],"orchestrator_state":"WRITING"}`), 0o644)
	root, _ := project.New(dir)
	cp, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cp.Inflight, cp.Stage = 3, Drafting
	if err := cp.Save(root, "2026-01-02T03:04:05Z"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".checkpoint.json"))
	want := `{
  "current_volume": 1,
  "inflight_chapter": 3,
  "last_checkpoint_time": "2026-01-02T03:04:05Z",
  "last_completed_chapter": 2,
  "orchestrator_state": "WRITING",
  "pipeline_stage": "drafting",
  "revision_count": 0,
  "schema_version": 2,
  "zz_plugin": [
    1,
    "a"
  ]
}
`
	if string(data) != want {
		t.Fatalf("got\n%s", data)
	}
	if !strings.HasSuffix(string(data), "}\n") {
		t.Fatal("no trailing newline")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"last_completed_chapter":3,"current_volume":1,"pipeline_stage":"refining","inflight_chapter":4}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"last_error":{"step":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := Parse(data)
		if err != nil {
			if errs.As(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if cp.LastCompleted < 0 || cp.RevisionCount < 0 || cp.Inflight < 0 {
			t.Fatalf("negative field accepted: %+v", cp)
		}
	})
}
