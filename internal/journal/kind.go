package journal

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/project"
)

// Kind names one journaled transaction. Every kind is registered in
// kinds below with its journal path (from layout), how an unfinished
// journal of it is found and resumed, and which unfinished kinds refuse
// it; commands ask the registry instead of choosing by hand.
type Kind string

// The journaled transactions (SPEC §6.1, §8.4, §17, §22, §23).
const (
	Commit       Kind = "commit" // novel-commit --chapter C and backfill (one journal file)
	Amend        Kind = "amend"
	Rollback     Kind = "rollback"
	Volume       Kind = "volume"
	VolumeReview Kind = "volume-review"
	Setup        Kind = "setup"
	Migrate      Kind = "migrate"
)

// kind is one registry entry.
type kind struct {
	// path is the journal of the transaction on arg (a chapter, volume
	// or setup stage; "" for the project-wide ones).
	path func(arg string) string
	// name recognises the journal's file name in staging/ and returns
	// its arg; project-wide journals read it from the file (read).
	name func() *regexp.Regexp
	read func(root *project.Root) string
	// zh/en name an unfinished transaction on arg; resume is the
	// command that finishes it.
	zh, en func(arg string) string
	resume func(arg string) string
	// blockedBy lists, in the order they are checked, the kinds whose
	// unfinished journal refuses this one. The kind itself in the list
	// refuses an unfinished run on another arg.
	blockedBy []Kind
}

var kinds = map[Kind]kind{
	Commit: {
		path: func(a string) string { return layout.CommitJournal(atoi(a)) },
		name: lazyre.New(`^commit-(\d{3,})\.journal\.json$`),
		zh:   func(a string) string { return "第 " + a + " 章的提交" }, en: func(a string) string { return "the commit of chapter " + a },
		resume:    func(a string) string { return "novel-commit --chapter " + a },
		blockedBy: []Kind{Rollback, Amend, Commit},
	},
	Amend: {
		path: func(a string) string { return layout.AmendJournal(atoi(a)) },
		name: lazyre.New(`^amend-(\d{3,})\.journal\.json$`),
		zh:   func(a string) string { return "第 " + a + " 章的修订" }, en: func(a string) string { return "the amend of chapter " + a },
		resume:    func(a string) string { return "novel-commit amend --chapter " + a },
		blockedBy: []Kind{Rollback, Commit, Amend},
	},
	Rollback: {
		path: func(string) string { return layout.RollbackJournal },
		name: lazyre.New(`^rollback\.journal\.json$`),
		read: rollbackTo,
		zh:   func(a string) string { return "回滚到第 " + a + " 章的操作" }, en: func(a string) string { return "the rollback to chapter " + a },
		resume:    func(a string) string { return "novel-commit rollback --to " + a },
		blockedBy: []Kind{Amend, Rollback, Commit, Volume},
	},
	Volume: {
		path: func(a string) string { return layout.VolumeJournal(atoi(a)) },
		name: lazyre.New(`^volume-(\d{2,})\.journal\.json$`),
		zh:   func(a string) string { return "第 " + a + " 卷的规划提交" }, en: func(a string) string { return "the volume " + a + " plan commit" },
		resume:    func(a string) string { return "novel-commit volume --volume " + a },
		blockedBy: []Kind{Rollback},
	},
	VolumeReview: {
		path: func(a string) string { return layout.VolumeReviewJournal(atoi(a)) },
		name: lazyre.New(`^volume-(\d{2,})-review\.journal\.json$`),
		zh:   func(a string) string { return "第 " + a + " 卷的回顾提交" }, en: func(a string) string { return "the volume " + a + " review commit" },
		resume:    func(a string) string { return "novel-commit volume-review --volume " + a },
		blockedBy: []Kind{Rollback},
	},
	Setup: {
		path: layout.SetupJournal,
		name: lazyre.New(`^setup-([a-z]+)\.journal\.json$`),
		zh:   func(a string) string { return "设定步骤 setup:" + a + " 的提交" }, en: func(a string) string { return "the commit of setup:" + a },
		resume:    func(a string) string { return "novel-commit setup --step " + a },
		blockedBy: []Kind{Rollback},
	},
	Migrate: {
		path: func(string) string { return layout.MigrateJournal },
		name: lazyre.New(`^migrate\.journal\.json$`),
		zh:   func(string) string { return "迁移" }, en: func(string) string { return "the migration" },
		resume: func(string) string { return "novel migrate" },
	},
}

// Path is the journal file of kind k on arg.
func (k Kind) Path(arg string) string { return kinds[k].path(arg) }

// Pending is an unfinished journal found in staging/.
type Pending struct {
	Kind Kind
	Arg  string // as the user types it: chapter 3 is "3", not "003"
	File string
}

// list lists the unfinished journals of kind k, in file-name order.
func list(root *project.Root, k Kind) ([]Pending, error) {
	ents, err := root.ReadDir(layout.Staging)
	if err != nil {
		return nil, err
	}
	return pendingIn(root, ents, k), nil
}

// pendingIn picks kind k's journals out of a listing of staging/.
func pendingIn(root *project.Root, ents []fs.DirEntry, k Kind) []Pending {
	spec := kinds[k]
	var out []Pending
	for _, e := range ents {
		m := spec.name().FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		arg := ""
		if len(m) > 1 {
			arg = m[1]
			if n, err := strconv.Atoi(arg); err == nil {
				arg = strconv.Itoa(n)
			}
		} else if spec.read != nil {
			arg = spec.read(root)
		}
		out = append(out, Pending{Kind: k, Arg: arg, File: layout.Staging + "/" + e.Name()})
	}
	return out
}

// Unfinished reports whether kind k on arg has an unfinished journal,
// which its command then resumes instead of starting afresh.
func (k Kind) Unfinished(root *project.Root, arg string) bool {
	return root.IsFile(k.Path(arg))
}

// Refuse is the one check a journaled command makes before it starts or
// resumes: the first unfinished journal among the kinds that block k
// (an unfinished run of k itself on another arg included) is refused
// with Refusal. nil when nothing blocks.
func (k Kind) Refuse(root *project.Root, arg string) error {
	return firstUnfinished(root, kinds[k].blockedBy, k, arg)
}

// Blocked refuses, with Refusal, an action that is not itself journaled
// (rebuild, abandon, a gate resolve) while one of the kinds is
// unfinished.
func Blocked(root *project.Root, blockers ...Kind) error {
	return firstUnfinished(root, blockers, "", "")
}

// BlockedExit is Blocked for the commands that have always refused an
// unfinished transaction with another exit status (novel-step next,
// abandon and redraft, novel-gate resolve: 3, blocked, like their other
// refusals): the same wording, their status.
func BlockedExit(exit int, root *project.Root, blockers ...Kind) error {
	err := Blocked(root, blockers...)
	if e := errs.As(err); e != nil && e.Code == errs.State {
		e.WithExit(exit)
	}
	return err
}

func firstUnfinished(root *project.Root, blockers []Kind, self Kind, arg string) error {
	ents, err := root.ReadDir(layout.Staging) // one listing serves every kind
	if err != nil {
		return err
	}
	for _, b := range blockers {
		for _, p := range pendingIn(root, ents, b) {
			if b == self && (p.Arg == arg || p.Arg == "") {
				continue // k's own journal (or one too damaged to tell): resumed, its Load reports it
			}
			return p.Refusal()
		}
	}
	return nil
}

// Refusal is the one wording of "another transaction is unfinished"
// (E_STATE, exit 1): what is unfinished, its journal, and the command
// that finishes it.
func (p Pending) Refusal() *errs.Error {
	spec := kinds[p.Kind]
	arg := p.Arg
	if arg == "" {
		arg = "C" // a rollback journal too damaged to name its chapter
	}
	return errs.New(errs.State, spec.zh(arg)+"尚未完成（"+p.File+"）", spec.en(arg)+" is unfinished ("+p.File+")").
		With("journal", p.File).With("transaction", string(p.Kind)).WithExit(errs.ExitFailed).
		Hint("先运行 "+spec.resume(arg)+" 完成它，再重新运行本命令", "run "+spec.resume(arg)+" first to finish it, then run this command again")
}

// rollbackTo is the chapter an unfinished rollback returns to, read from
// its journal ("" when unreadable).
func rollbackTo(root *project.Root) string {
	var j struct {
		To int `json:"to"`
	}
	data, err := root.ReadFile(layout.RollbackJournal)
	if err != nil || json.Unmarshal(data, &j) != nil || j.To <= 0 {
		return ""
	}
	return strconv.Itoa(j.To)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
