package pipeline

import (
	"fmt"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/setupstep"
)

// What the author staged is the author's (SPEC §22.1): make … volume,
// review and start never delete, regenerate or overwrite a staged plan,
// review or setup output that is already there — it may be the author's
// edit. One that does not validate stops the run with its own validation
// error and stays as it is; with REDO=1 (--redo) the staged files first
// move to a fresh staging/replaced/redo-N/ and the model is asked again.

// keepStaged is the stop for invalid staged outputs without --redo: a line
// saying what stays and the two ways on, then the validation error itself
// (the last line, naming the file).
func (e *Env) keepStaged(label, what string, failure *errs.Error) error {
	fmt.Fprintf(e.Stderr, "%s ✗ 暂存的产物未通过校验，保留不动：修正 %s 后重新运行，或加 REDO=1 让模型重写（原文件移到 staging/replaced/） / "+
		"the staged outputs do not validate and are kept as they are: fix %s and run again, or add REDO=1 to have the model write them again (the old files move to staging/replaced/)\n",
		label, what, what)
	return failure
}

// redoAside moves the staged paths (files or folders under staging/) into a
// fresh staging/replaced/redo-N/, keeping their layout below staging/.
func (e *Env) redoAside(label string, paths []string) error {
	dir, err := e.Root.Unused(setupstep.ReplacedDir + "/redo")
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := e.Root.Move(p, dir+"/"+strings.TrimPrefix(p, layout.Staging+"/")); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.Stderr, "%s REDO=1：原暂存文件已移到 %s/ / REDO=1: the staged files moved to %s/\n", label, dir, dir)
	return nil
}
