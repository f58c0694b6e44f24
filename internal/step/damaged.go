package step

import (
	"github.com/novelsuite/novel/internal/changelog"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/stateops"
)

// DamagedFile is a state or foreshadowing file that does not parse, as
// status reports it (SPEC §22.1): its error, and the fix — `novel-commit
// rebuild` only when the changelog can restore the file, else the
// reason it cannot and what to do instead.
type DamagedFile struct {
	File    string `json:"file"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// damagedFiles checks the state and the foreshadowing cheaply (the state
// through its canonical scan); a full replay runs only for a damaged one.
func damagedFiles(root *project.Root, lang string) []DamagedFile {
	var out []DamagedFile
	check := func(rel string, parse func([]byte) error) {
		if !root.IsFile(rel) {
			return // a missing file is reported where it is needed
		}
		data, err := root.ReadFile(rel)
		if err == nil {
			err = parse(data)
		}
		if err == nil {
			return
		}
		e := errs.Coerce(err)
		d := DamagedFile{File: rel, Code: e.Code, Message: e.Message(lang)}
		if refusal := changelog.RestoreRefusal(root, rel); refusal == nil {
			d.Fix = errs.Text(lang, "运行 novel-commit rebuild：按 changelog 恢复该文件，原文件保存在 state/backups/",
				"run novel-commit rebuild: it restores the file from the changelog and keeps the old one under state/backups/")
		} else {
			r := errs.Coerce(refusal)
			d.Fix = r.Message(lang)
			if h := r.HintText(lang); h != "" {
				d.Fix += errs.Text(lang, "。", ". ") + h
			}
		}
		out = append(out, d)
	}
	check(layout.CurrentState, func(data []byte) error {
		_, err := stateops.Open(data, layout.CurrentState)
		return err
	})
	check(layout.GlobalForeshadow, func(data []byte) error {
		_, err := foreshadow.Parse(data, layout.GlobalForeshadow)
		return err
	})
	return out
}
