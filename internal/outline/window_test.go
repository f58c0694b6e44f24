package outline

import "testing"

func TestWindow(t *testing.T) {
	src := "# 第一卷\n\n> 简介\n\n## 第一幕\n\n### 第 1 章: 一\n\n- **Storyline**: a\n\n### 第 2 章: 二\n\n- **Storyline**: a\n\n## 第二幕\n\n### 第 3 章: 三\n\n- **Storyline**: b\n#### 细节\n\n仍属第 3 章\n\n### 第 4 章: 四\n\n- **Storyline**: a\n\n## 附录\n\n人物表\n"
	o, err := Parse([]byte(src), "outline.md", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := "# 第一卷\n\n> 简介\n\n## 第一幕\n\n### 第 2 章: 二\n\n- **Storyline**: a\n\n### 第 3 章: 三\n\n- **Storyline**: b\n#### 细节\n\n仍属第 3 章\n"
	if got := o.Window(2, 3); got != want {
		t.Errorf("Window(2,3) =\n%q\nwant\n%q", got, want)
	}
	if got := o.Window(9, 12); got != "# 第一卷\n\n> 简介\n\n## 第一幕\n" {
		t.Errorf("Window outside the volume = %q, want the header only", got)
	}
}
