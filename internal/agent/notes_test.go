package agent

import "testing"

// The repros (#27): a refiner's 修改说明, a --- + 下章预告 block and
// the chapter repeated under a second heading were committed as they were.
func TestCleanChapterDropsTrailingNotes(t *testing.T) {
	const story = "# 第1章 灯\n\n灯亮了。\n\n他推门出去。"
	for _, tc := range []struct{ name, in, want string }{
		{"change note", story + "\n\n修改说明：1. 删去了比喻；2. 收紧了对白。", story + "\n"},
		{"revision note over lines", story + "\n\n**修订说明**\n- 删去了比喻\n- 收紧了对白", story + "\n"},
		{"separator and preview", story + "\n\n---\n\n下章预告：苏晚晴夜访。\n\n敬请期待。", story + "\n"},
		{"separator and nothing", story + "\n\n***\n", story + "\n"},
		{"end marker", story + "\n\n本章完\n\n字数：2400", story + "\n"},
		{"second heading", story + "\n\n# 第1章 灯（修订版）\n\n灯亮了。\n\n他推门出去。", story + "\n"},
		{"note after the hints block", story + "\n\n```json\n{\"hints\":[]}\n```\n\n注：本章约 2400 字。", story + "\n\n```json\n{\"hints\":[]}\n```\n"},
		{"note before the hints block", story + "\n\n修改说明：无\n\n```json\n{\"hints\":[]}\n```", story + "\n\n```json\n{\"hints\":[]}\n```\n"},
		// a scene break followed by story stays, and so does dialogue
		{"scene break", story + "\n\n* * *\n\n天亮了。", story + "\n\n* * *\n\n天亮了。\n"},
		{"dialogue", story + "\n\n「说明：这灯不能灭。」", story + "\n\n「说明：这灯不能灭。」\n"},
	} {
		if got, _ := CleanChapter(tc.in); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
