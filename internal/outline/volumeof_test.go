package outline

import (
	"testing"

	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

func TestVolumeOf(t *testing.T) {
	root := testkit.Project(t, map[string]string{
		"volumes/vol-01/outline.md": "### 第 1 章: 一\n### 第 2 章: 二\n",
		"volumes/vol-02/outline.md": "### 第 3 章: 三\n### 第 4 章: 四\n",
	})
	for _, tc := range []struct{ c, current, want int }{{2, 2, 1}, {3, 2, 2}, {1, 3, 1}, {4, 0, 1}} {
		got, warn := VolumeOf(root, tc.c, tc.current)
		if got != tc.want {
			t.Fatalf("VolumeOf(%d, current %d) = %d, want %d", tc.c, tc.current, got, tc.want)
		}
		if (tc.c == 4 && tc.current == 0) != (warn != "") {
			t.Fatalf("VolumeOf(%d, current %d) warning %q", tc.c, tc.current, warn)
		}
	}
}
