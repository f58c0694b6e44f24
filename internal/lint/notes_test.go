package lint

import (
	"strings"
	"testing"
)

func artifacts(t *testing.T, text string) Check {
	t.Helper()
	r := Run(Input{Chapter: 1, File: "x.md", Stage: StageRefine, Text: text}, cfg())
	for _, c := range r.Checks {
		if c.ID == ModelArtifacts {
			return c
		}
	}
	t.Fatal("no model_artifacts check")
	return Check{}
}

// Issue #27: a refiner's 修改说明, a --- + 下章预告 block and the chapter
// repeated under a second heading were committed and the lint saw nothing.
func TestArtifactsFlagTrailingNotes(t *testing.T) {
	for name, tail := range map[string]string{
		"change note":    "\n修改说明：删去了比喻。\n",
		"preview":        "\n---\n\n下章预告：苏晚晴夜访。\n",
		"second heading": "\n# 第1章 界（修订版）\n\n一二三。\n",
	} {
		c := artifacts(t, chapter("", 2600)+tail)
		if c.Count != 1 || c.Severity != Error || !strings.Contains(c.Detail, "正文后的非正文块") || len(c.Evidence) != 1 {
			t.Errorf("%s: %+v", name, c)
		}
	}
	// a scene break followed by story is story
	if c := artifacts(t, chapter("", 2600)+"\n* * *\n\n天亮了。\n"); c.Count != 0 {
		t.Errorf("scene break: %+v", c)
	}
}

// Chat phrases count only where an assistant addresses the reader: at the
// start of a line of narration.
func TestChatPhrasesOnlyAtLineStart(t *testing.T) {
	for text, want := range map[string]int{
		"作为一个AI研究员，他从不相信灯会复燃。": 0,
		"他说作为AI助手的日子早就过去了。":    0,
		"作为一个AI语言模型，我无法续写。":    1,
		"如果你需要，我可以继续写第二章。":     1,
		"如果你需要一个理由，灯就是理由。":     0,
	} {
		if got := artifacts(t, chapter(text, 2600)).Count; got != want {
			t.Errorf("%s: %d, want %d", text, got, want)
		}
	}
}

// Above words_max a draft is an error (re-asked "trim to the target"); a
// refined text only warns.
func TestLengthAboveMaxIsADraftError(t *testing.T) {
	text := chapter("", 9000)
	for stage, sev := range map[string]string{StageDraft: Error, StageRefine: Warning, StagePolish: Warning, StageCommitted: Warning} {
		r := Run(Input{Chapter: 1, File: "x.md", Stage: stage, Text: text}, cfg())
		c := r.Checks[0]
		if c.ID != Length || c.Count != 1 || c.Severity != sev {
			t.Errorf("%s: %+v", stage, c)
		}
		if stage == StageDraft && !strings.Contains(c.Detail, "请删减到目标字数") {
			t.Errorf("draft detail %q", c.Detail)
		}
	}
}
