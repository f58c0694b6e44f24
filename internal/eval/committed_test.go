package eval

import (
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

// TestFinalScoreOneRule: the report (ParseCommitted) and the volume
// digest (LoadDigest) take the same final score from a committed eval:
// the judges' overall_final, else the gate's, else the primary overall.
func TestFinalScoreOneRule(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		want       float64
	}{
		{"judges", `{"gate":{"overall_final":3.2},"judges":{"overall_final":3.1}}`, 3.1},
		{"judges only", `{"judges":{"overall_final":3.3}}`, 3.3},
		{"gate only", `{"gate":{"decision":"pass","overall_final":3.4}}`, 3.4},
		{"none", `null`, 4.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"chapter":2,"overall":4.5,"metadata":` + tc.meta + `}`
			c, err := ParseCommitted([]byte(doc), "e.json", 2)
			if err != nil {
				t.Fatal(err)
			}
			if c.Final() != tc.want {
				t.Fatalf("ParseCommitted final = %v, want %v", c.Final(), tc.want)
			}
			root := testkit.Project(t, map[string]string{"e.json": doc})
			d, err := LoadDigest(root, "e.json", 2)
			if err != nil {
				t.Fatal(err)
			}
			if d.Overall != tc.want {
				t.Fatalf("LoadDigest overall = %v, want %v", d.Overall, tc.want)
			}
		})
	}
}
