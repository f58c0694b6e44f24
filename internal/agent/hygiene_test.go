package agent

import "testing"

func TestCleanChapter(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		heading  int
	}{
		// a story line that merely starts like chatter stays
		{"# 第3章 火\n\n天黑了。\n\n希望还在。", "# 第3章 火\n\n天黑了。\n\n希望还在。\n", 3},
		// closing lines of narration that open like a sign-off are story too (dogfood finding):
		// only a line addressed to the reader about the text is chatter
		{"# 第3章 火\n\n天黑了。\n\n希望这场雪早点停。", "# 第3章 火\n\n天黑了。\n\n希望这场雪早点停。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n如果需要，他可以再等三年。", "# 第3章 火\n\n天黑了。\n\n如果需要，他可以再等三年。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n我可以帮他，但不是今晚。", "# 第3章 火\n\n天黑了。\n\n我可以帮他，但不是今晚。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n以上就是他知道的全部。", "# 第3章 火\n\n天黑了。\n\n以上就是他知道的全部。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n如果你想让陆照更果断一些，我可以再改一版。", "# 第3章 火\n\n天黑了。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n希望你喜欢这一章！", "# 第3章 火\n\n天黑了。\n", 3},
		{"# 第3章 火\n\n天黑了。\n\n以上是第3章，希望你喜欢。\n\n如需调整请告诉我。", "# 第3章 火\n\n天黑了。\n", 3},
		{"<think>\n第三章要写火\n</think>\n\n## 第三章 火\n\n天黑了。\n\n---\n\n字数：1200", "## 第三章 火\n\n天黑了。\n", 3},
		// a closing tag without its opening one (the template put <think> in the prompt)
		{"先想想。\n</think>\n# 第3章 火\n\n天黑了。", "# 第3章 火\n\n天黑了。\n", 3},
		// no heading: a whole-answer fence is removed, nothing else
		{"```\n天黑了。\n```", "天黑了。\n", 0},
		// an unclosed outer fence keeps the hints block
		{"好的：\n```markdown\n# 第3章 火\n\n天黑了。\n\n```json\n{\"hints\":[]}\n```", "# 第3章 火\n\n天黑了。\n\n```json\n{\"hints\":[]}\n```\n", 3},
	} {
		got, n := CleanChapter(tc.in)
		if got != tc.want || n != tc.heading {
			t.Errorf("%q:\n got %q %d\nwant %q %d", tc.in, got, n, tc.want, tc.heading)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	for in, want := range map[string]string{
		"<think>{人物}</think>结果：{\"a\":{\"b\":1}} 之后还有 {x}": "{\"a\":{\"b\":1}}\n",
		"说明 {不是JSON}\n```json\n{\"a\":2}\n```\n":           "{\"a\":2}\n",
		"[1,2]":   "[1,2]\n",
		"{\"a\":": "{\"a\":\n",
	} {
		if got := string(ExtractJSON(in)); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}
