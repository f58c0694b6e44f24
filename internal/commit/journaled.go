package commit

import (
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/project"
)

// Step is one idempotent step of a journaled run (commit, rollback,
// volume commit).
type Step struct {
	Name string
	Run  func() error
}

// RunSteps runs steps in order, calling crash (the NOVEL_CRASH_AT hook)
// after each. A failing step's error names the step under key and the
// journal, and unless it has a hint of its own says that running resume
// again continues from the journal.
func RunSteps(steps []Step, crash func(string), key, journal, resume string) error {
	for _, s := range steps {
		if err := s.Run(); err != nil {
			e := errs.Coerce(err)
			e.With(key, s.Name).With("journal", journal)
			if e.HintZh == "" {
				e.Hint("修复后重新运行 "+resume+"，会从日志继续", "fix it and run "+resume+" again; it resumes from the journal")
			}
			return e
		}
		crash(s.Name)
	}
	return nil
}

// ReadJournal decodes the journal rel into v; an unreadable or malformed
// one is reported as damaged (whatZh/whatEn name it: 提交日志, commit
// journal), with a hint to inspect it or restore it from a backup.
func ReadJournal(root *project.Root, rel, whatZh, whatEn string, v any) error {
	err := root.ReadJSON(rel, v)
	if e := errs.As(err); e != nil {
		e.Hint(whatZh+"损坏：检查 "+rel+"，必要时从备份恢复", "the "+whatEn+" is damaged: inspect "+rel+" and restore from a backup if needed")
	}
	return err
}
