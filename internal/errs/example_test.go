package errs_test

import (
	"fmt"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// Every user-facing string is written in both languages where it is
// produced; the project's settings.json "language" picks one.
func ExampleText() {
	for _, lang := range []string{"zh", "en"} {
		fmt.Println(errs.Text(lang, "已导入 3 章", "3 chapters imported"))
	}
	// Output:
	// 已导入 3 章
	// 3 chapters imported
}

// An error carries both languages, a hint and details; Envelope is the
// one JSON line a binary prints on stderr.
func ExampleError_Envelope() {
	e := errs.Newf(errs.State, "第 %d 章的提交尚未完成", "the commit of chapter %d is unfinished", 4).
		With("journal", "staging/commit-004.journal.json").
		Hint("先运行 novel-commit --chapter 4", "run novel-commit --chapter 4 first")
	line, _ := jsonio.MarshalLine(e.Envelope("en"))
	fmt.Print(string(line))
	fmt.Println(e.Exit)
	// Output:
	// {"error":{"code":"E_STATE","message":"the commit of chapter 4 is unfinished","hint":"run novel-commit --chapter 4 first","details":{"journal":"staging/commit-004.journal.json"}}}
	// 3
}
