package lazyre

import "testing"

func TestNewCompilesOnce(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if first != re() {
		t.Fatal("second call compiled again")
	}
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatalf("wrong expression: %s", first)
	}
}

func TestNewPanicsOnFirstUse(t *testing.T) {
	re := New(`(`) // not compiled yet: New itself must not panic
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic on first use")
		}
	}()
	re()
}
