package jsonio

import (
	"reflect"
	"testing"
)

// Deferred directory syncs are recorded once each, in first-seen order,
// and the flush ends the deferral (later syncs happen at once). The
// deferral is the writer's own: another writer syncs at once meanwhile.
func TestDeferDirSyncs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	w := &Writer{}
	flush := w.DeferDirSyncs()
	w.SyncDir(a)
	w.SyncDir(b)
	w.SyncDir(a)
	if err := w.WriteFile(b+"/x.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	other := &Writer{}
	other.SyncDir(t.TempDir())
	if err := WriteFile(t.TempDir()+"/y.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if want := []string{a, b}; !reflect.DeepEqual(w.dirs, want) {
		t.Fatalf("recorded %v, want %v", w.dirs, want)
	}
	if other.deferring || len(other.dirs) != 0 {
		t.Fatalf("another writer deferred: %v", other.dirs)
	}
	w.SyncNow(a) // synced now: off the list
	if want := []string{b}; !reflect.DeepEqual(w.dirs, want) {
		t.Fatalf("after SyncNow: %v, want %v", w.dirs, want)
	}
	flush()
	flush()
	w.SyncDir(a)
	if w.deferring || len(w.dirs) != 0 {
		t.Fatalf("still deferring after flush: %v %v", w.deferring, w.dirs)
	}
}
