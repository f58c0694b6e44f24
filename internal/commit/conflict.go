package commit

import (
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// checkDestinations refuses a fresh commit that would replace committed
// files of chapter C (SPEC §22): the chapter, summary, crossref, eval,
// chapter log and the storyline memory's history copy. The storyline
// memory itself is replaced by design (its old text goes to history/).
func checkDestinations(root *project.Root, j *Journal) error {
	dests := moveDests(j)
	for _, f := range []struct {
		rel string
		v   any
	}{{layout.Eval(j.Chapter), j.Eval}, {layout.ChapterLog(j.Chapter), j.ChapterLog}} {
		data, err := jsonio.Marshal(f.v)
		if err != nil {
			return errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", f.rel, err)
		}
		dests = append(dests, journal.Dest{File: f.rel, Data: data})
	}
	return journal.CheckDestinations(root, dests, chapterWayOut(j.Chapter))
}

// moveDests is what the journal's moves would put in place: every move
// but the storyline memory's (replaced by design), and the memory's
// history copy.
func moveDests(j *Journal) []journal.Dest {
	var dests []journal.Dest
	for _, m := range j.Moves {
		if m.To != layout.Memory(j.StorylineID) {
			dests = append(dests, journal.Dest{File: m.To, From: m.From})
		}
	}
	if j.MemoryHistory != "" {
		dests = append(dests, journal.Dest{File: j.MemoryHistory, From: layout.Memory(j.StorylineID)})
	}
	return dests
}

// chapterWayOut is the hint of a refused chapter destination.
func chapterWayOut(c int) journal.WayOutFor {
	n := strconv.Itoa(c)
	return func(file string) journal.WayOut {
		return journal.WayOut{
			Zh: "若第 " + n + " 章已提交过：改正 .checkpoint.json 的 last_completed_chapter 后用 novel-commit rollback --to " + n + " 撤销；否则把 " + file + " 移走后重试",
			En: "if chapter " + n + " was committed before, correct last_completed_chapter in .checkpoint.json and undo it with novel-commit rollback --to " + n + "; otherwise move " + file + " aside and retry",
		}
	}
}
