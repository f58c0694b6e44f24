package manuscript

import (
	"strconv"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestParseHeading(t *testing.T) {
	cases := []struct {
		line  string
		kind  Kind
		n     int
		title string
		ok    bool
	}{
		{"第一章 雪夜", KindChapter, 1, "雪夜", true},
		{"　　第二章：归来", KindChapter, 2, "归来", true},
		{"### 第3章 终局", KindChapter, 3, "终局", true},
		{"# 第 十二 章", KindChapter, 12, "", true},
		{"第一百零三章\t夜行", KindChapter, 103, "夜行", true},
		{"第１２回 夜行", KindChapter, 12, "夜行", true},
		{"第三节: 山门", KindChapter, 3, "山门", true},
		{"Chapter 3", KindChapter, 3, "", true},
		{"CHAPTER 12: The Lamp", KindChapter, 12, "The Lamp", true},
		{"chapter 4. Snow", KindChapter, 4, "Snow", true},
		{"【第四章】灯火", KindChapter, 4, "灯火", true},
		{"【第五章 北上】", KindChapter, 5, "北上", true},
		{"第二卷 北上", KindVolume, 2, "北上", true},
		{"### 第一卷：雪夜", KindVolume, 1, "雪夜", true},
		{"楔子", KindPrologue, 0, "", true},
		{"序章 灯", KindPrologue, 0, "灯", true},
		{"【引子】", KindPrologue, 0, "", true},
		{"番外 周伯的雪夜", KindExtra, 0, "周伯的雪夜", true},
		{"番外一：雪关", KindExtra, 0, "雪关", true},
		{"后记", KindExtra, 0, "", true},
		// body text, not headings
		{"####### 第1章 七个井号", 0, 0, "", false},
		{"第三章节的内容", 0, 0, "", false},
		{"他想起第一章 的事", 0, 0, "", false},
		{"第x章 坏编号", 0, 0, "", false},
		{"第八章 结束了他的回忆，陆照合上书。", 0, 0, "", false},
		{"第二天一早，他下山了", 0, 0, "", false},
		{"第三回合开始", 0, 0, "", false},
		{"Chapters 3", 0, 0, "", false},
		{"Chapter 3.5", 0, 0, "", false},
		{"楔子是木头做的", 0, 0, "", false},
		{"番外的故事还没写完", 0, 0, "", false},
		{"第一章 " + strings.Repeat("长", 31), 0, 0, "", false},
	}
	for _, c := range cases {
		h, ok := ParseHeading(c.line)
		if ok != c.ok || ok && (h.Kind != c.kind || h.Number != c.n || h.Title != c.title) {
			t.Errorf("%q: got %+v %v, want kind %d n %d title %q ok %v", c.line, h, ok, c.kind, c.n, c.title, c.ok)
		}
	}
}

func TestSplitUnwrap(t *testing.T) {
	wrapped := "第一章 雪夜\n　　陆照提着灯穿过长明殿，檐下的雪簌簌落下，他数着一盏又一盏\n魂灯，数到第七盏时停了下来。\n　　那盏灯竟然亮着。\n第二章 归来\n　　正文。\n"
	for _, c := range []struct {
		mode, text string
		want       []string
	}{
		{UnwrapAuto, wrapped, []string{"陆照提着灯穿过长明殿，檐下的雪簌簌落下，他数着一盏又一盏魂灯，数到第七盏时停了下来。", "那盏灯竟然亮着。"}},
		{UnwrapOff, wrapped, []string{"陆照提着灯穿过长明殿，檐下的雪簌簌落下，他数着一盏又一盏", "魂灯，数到第七盏时停了下来。", "那盏灯竟然亮着。"}},
		// no indentation: paragraphs end at sentence ends
		{UnwrapOn, "第一章 雪夜\n陆照提着灯穿过长明殿，檐下的\n雪簌簌落下。\n那盏灯竟然\n亮着。\n", []string{"陆照提着灯穿过长明殿，檐下的雪簌簌落下。", "那盏灯竟然亮着。"}},
		// wrapped Latin text keeps its word boundaries
		{UnwrapOn, "Chapter 1\nThe snow fell on the hall,\nand the lamps\nwent out.\n", []string{"The snow fell on the hall, and the lamps went out."}},
		// one paragraph per line: auto leaves it alone
		{UnwrapAuto, "第一章 雪夜\n子时三刻。\n「周伯？」他问。\n\n灯灭了。\n", []string{"子时三刻。", "「周伯？」他问。", "灯灭了。"}},
	} {
		m, err := Split(c.text, "x.txt", Options{Start: 1, Unwrap: c.mode})
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		if got := strings.Join(m.Chapters[0].Paragraphs, "|"); got != strings.Join(c.want, "|") {
			t.Errorf("%s %q:\n got %s\nwant %s", c.mode, c.text, got, strings.Join(c.want, "|"))
		}
	}
}

func TestSplitNamesTheLineAtFault(t *testing.T) {
	for _, c := range []struct {
		text, message, hint string
	}{
		{"第1章 一\n正文。\n第2章 二\n正文。\n第2章 三\n正文。\n第4章 四\n正文。\n",
			"x.txt 第 5 行的标题是第 2 章，按前后章节应为第 3 章", "把第 5 行的编号改为 3 后重试"},
		{"第1章 一\n正文。\n第2章 二\n正文。\n三、灯火\n正文。\n第4章 四\n正文。\n",
			"x.txt 第 7 行是第 4 章，但第 3 行的第 2 章之后没有找到第 3 章的标题", "第 5 行「三、灯火」像是第 3 章的标题，但格式无法识别：改成「第3章 标题」后重试"},
		{"第1章 一\n正文。\n第2章 二\n正文。\n第1章 三\n正文。\n",
			"x.txt 第 5 行是第 1 章，但第 3 行已是第 2 章（重复或倒退）", "修正第 5 行的编号（应为第 3 章），或删去重复的章节后重试"},
		{"第31章 一\n正文。\n第32章 二\n正文。\n",
			"x.txt 第 1 行是第 31 章，应为第 1 章", "这是书的后半部分时，用 novel import --start 31 接着前面已导入的第 30 章导入；否则修正该标题的编号"},
	} {
		_, err := Split(c.text, "x.txt", Options{Start: 1})
		e := errs.As(err)
		if e == nil || e.Code != errs.Schema || e.Zh != c.message || e.HintZh != c.hint {
			t.Errorf("%q:\n got %v\nwant %s / %s", c.text, err, c.message, c.hint)
		}
	}
}

func TestSplitVolumesNumberedOnTheirOwn(t *testing.T) {
	text := "第一卷 雪夜\n第1章 甲\n正文。\n第2章 乙\n正文。\n第二卷 北上\n第1章 丙\n正文。\n"
	m, err := Split(text, "x.txt", Options{Start: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Chapters {
		got = append(got, strconv.Itoa(c.Number)+c.Title)
	}
	if strings.Join(got, " ") != "1甲 2乙 3丙" || len(m.Volumes) != 2 || m.Volumes[0].FirstChapter != 1 || m.Volumes[1].FirstChapter != 3 {
		t.Fatalf("chapters %v, volumes %+v", got, m.Volumes)
	}
}
