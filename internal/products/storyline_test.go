package products

import (
	"testing"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

func TestChapterStoryline(t *testing.T) {
	outline := "# 卷\n\n### 第 1 章: 一\n- **Storyline**: main-arc\n### 第 2 章: 二\n- **Storyline**: main-arc\n### 第 3 章: 三\n- **Storyline**: main-arc\n"
	root := testkit.Project(t, map[string]string{
		"volumes/vol-01/outline.md":                         outline,
		"volumes/vol-01/chapter-contracts/chapter-002.json": `{"chapter":2,"storyline_id":"sect-intrigue"}`,
		"volumes/vol-01/chapter-contracts/chapter-003.md":   "## 第 3 章：三\n\n- **故事线**：north-line\n",
	})
	for c, want := range map[int][2]string{
		1: {"main-arc", "volumes/vol-01/outline.md"},
		2: {"sect-intrigue", "volumes/vol-01/chapter-contracts/chapter-002.json"},
		3: {"north-line", "volumes/vol-01/chapter-contracts/chapter-003.md"},
	} {
		id, src, ok := ChapterStoryline(root, 1, c)
		if !ok || id != want[0] || src != want[1] {
			t.Errorf("chapter %d: %q %q %v, want %v", c, id, src, ok, want)
		}
	}
	// no block for the chapter, no outline, volume 0: unknown
	for _, v := range [][2]int{{1, 9}, {2, 1}, {0, 1}} {
		if _, _, ok := ChapterStoryline(root, v[0], v[1]); ok {
			t.Errorf("volume %d chapter %d: want unknown", v[0], v[1])
		}
	}
	cp := &checkpoint.Checkpoint{CurrentVolume: 1}
	err := CheckDeltaStoryline(root, cp, &Delta{Chapter: 1, StorylineID: "sect-intrigue", File: "d.json"})
	if e := errs.As(err); e == nil || e.Code != errs.Contract || e.Details["expected"] != "main-arc" {
		t.Fatalf("%v", err)
	}
	if err := CheckDeltaStoryline(root, cp, &Delta{Chapter: 9, StorylineID: "anything", File: "d.json"}); err != nil {
		t.Fatal(err)
	}
}
