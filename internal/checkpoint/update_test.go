package checkpoint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// Update re-reads under the lock: a writer that slipped in between the
// caller's first read and the lock is seen (moved, and its fields), and
// the caller's edit is made on that fresh copy, not on the stale one.
func TestUpdateRereadsUnderTheLock(t *testing.T) {
	dir := t.TempDir()
	cpPath := filepath.Join(dir, ".checkpoint.json")
	os.WriteFile(cpPath, []byte(`{"last_completed_chapter":2,"current_volume":1,"orchestrator_state":"WRITING"}`), 0o644)
	root, err := project.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, first, err := LoadSnapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	race := filepath.Join(t.TempDir(), "race.json")
	os.WriteFile(race, []byte(`{"last_completed_chapter":3,"current_volume":1,"orchestrator_state":"WRITING","custom":1}`), 0o644)
	env := map[string]string{raceEnv: race}
	getenv := func(k string) string { return env[k] }
	w := Writer{Root: root, Getenv: getenv, Now: "2026-01-01T00:00:00Z", BeforeLock: RaceHook(root, getenv)}
	var sawMoved bool
	cp, err := Update(w, first, func(cp *Checkpoint, moved bool) (bool, error) {
		sawMoved = moved
		if cp.LastCompleted != 3 {
			t.Fatalf("fn saw last_completed %d, want the racing writer's 3", cp.LastCompleted)
		}
		cp.RevisionCount = 1
		return true, nil
	})
	if err != nil || !sawMoved || cp.LastCompleted != 3 {
		t.Fatalf("Update = %+v, %v; moved %v", cp, err, sawMoved)
	}
	got, _ := os.ReadFile(cpPath)
	want := "{\n  \"current_volume\": 1,\n  \"custom\": 1,\n  \"inflight_chapter\": null,\n  \"last_checkpoint_time\": \"2026-01-01T00:00:00Z\",\n  \"last_completed_chapter\": 3,\n  \"orchestrator_state\": \"WRITING\",\n  \"pipeline_stage\": null,\n  \"revision_count\": 1,\n  \"schema_version\": 2\n}\n"
	if string(got) != want {
		t.Fatalf("checkpoint after Update:\n%s\nwant:\n%s", got, want)
	}

	// Unmoved: fn is told so; a refusal from fn writes nothing.
	delete(env, raceEnv)
	_, first, _ = LoadSnapshot(root)
	_, err = Update(w, first, func(cp *Checkpoint, moved bool) (bool, error) {
		if moved {
			t.Fatal("moved without a writer in between")
		}
		cp.RevisionCount = 9
		return false, errs.New(errs.State, "拒绝", "refused")
	})
	if !errs.Is(err, errs.State) {
		t.Fatalf("err = %v", err)
	}
	if again, _ := os.ReadFile(cpPath); string(again) != want {
		t.Fatalf("a refused update wrote the checkpoint:\n%s", again)
	}
}
