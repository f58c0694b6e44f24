package jsonio

import "testing"

func TestIntRange(t *testing.T) {
	for in, want := range map[string][2]int{
		"[1,2]": {1, 2}, " [ 3 , 3 ] ": {3, 3}, "[2,2147483648]": {2, 1 << 31}, "[1.0,2]": {0, 0},
		"[0,2]": {0, 0}, "[3,2]": {0, 0}, `["1",2]`: {0, 0}, "[1]": {0, 0}, "[1,2,3]": {0, 0},
		"null": {0, 0}, "": {0, 0}, "[1,2147483649]": {0, 0}, "[1.5,2]": {0, 0}, "{}": {0, 0},
	} {
		a, b, ok := IntRange([]byte(in))
		if ok != (want != [2]int{}) || a != want[0] || b != want[1] {
			t.Errorf("IntRange(%q) = %d, %d, %v; want %v", in, a, b, ok, want)
		}
	}
}
