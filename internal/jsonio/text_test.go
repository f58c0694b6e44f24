package jsonio

import (
	"testing"

	"github.com/novelsuite/novel/internal/errs"
)

func TestText(t *testing.T) {
	s, err := Text([]byte("\xEF\xBB\xBF陆照\n"), "m.md")
	if err != nil || s != "陆照\n" {
		t.Fatalf("%q %v", s, err)
	}
	// "守灯" in GBK on line 2: the first bad byte is line 2, column 1.
	_, err = Text([]byte("ok\n\xca\xd8\xb5\xc6"), "brief.md")
	e := errs.As(err)
	if e == nil || e.Code != errs.Schema || e.Details["file"] != "brief.md" || e.Details["line"] != 2 || e.Details["column"] != 1 ||
		e.Message("zh") != "brief.md 不是有效的 UTF-8（第 2 行第 1 列）" {
		t.Fatalf("%#v", err)
	}
}
