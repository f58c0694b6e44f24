package jsonio

import (
	"reflect"
	"testing"
)

// Deferred directory syncs are recorded once each, in first-seen order,
// and the flush ends the deferral (later syncs happen at once).
func TestDeferDirSyncs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	flush := DeferDirSyncs()
	SyncDir(a)
	SyncDir(b)
	SyncDir(a)
	if err := WriteFile(b+"/x.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	dirSyncs.Lock()
	got := append([]string(nil), dirSyncs.dirs...)
	dirSyncs.Unlock()
	if want := []string{a, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
	SyncDirNow(a) // synced now: off the list
	dirSyncs.Lock()
	got = append([]string(nil), dirSyncs.dirs...)
	dirSyncs.Unlock()
	if want := []string{b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after SyncDirNow: %v, want %v", got, want)
	}
	flush()
	flush()
	SyncDir(a)
	dirSyncs.Lock()
	defer dirSyncs.Unlock()
	if dirSyncs.on || len(dirSyncs.dirs) != 0 {
		t.Fatalf("still deferring after flush: %v %v", dirSyncs.on, dirSyncs.dirs)
	}
}
