package products

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// StagingFiles lists every existing staging file of chapter c
// (project-relative, sorted): the products, packets and write-boundary
// snapshots, pre-stage copies, stamps, the run log, archived revision
// rounds, and the storyline memory named by the delta. The commit journal
// is not included: the commit owns it and deletes it last.
func StagingFiles(root *project.Root, c int) ([]string, error) {
	prefix := "chapter-" + layout.Pad(c)
	var out []string
	for _, dir := range layout.StagingChapterDirs {
		abs, err := root.Abs(dir)
		if err != nil {
			return nil, err
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			return nil, errs.ReadFailed(dir, err)
		}
		for _, e := range ents {
			name := e.Name()
			own := ownName(name, prefix)
			if target, stale := jsonio.StaleTemp(name); stale {
				// A temp file left by a writer killed mid-write (kill -9)
				// belongs to the chapter of the file it was for.
				own = ownName(target, prefix)
			}
			if !own || e.IsDir() {
				continue
			}
			out = append(out, dir+"/"+name)
		}
	}
	revs := layout.RevisionsDir(c)
	if abs, err := root.Abs(revs); err != nil {
		return nil, err
	} else if st, err := os.Lstat(abs); err == nil && st.IsDir() {
		err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				out = append(out, root.Rel(p))
			}
			return nil
		})
		if err != nil {
			return nil, errs.ReadFailed(revs, err)
		}
	}
	// The memory belongs to the chapter through its delta; a delta too
	// broken to name a slug storyline leaves the memory where it is.
	if d, err := ReadDelta(root, c); err == nil {
		rel := layout.StagingMemory(d.StorylineID)
		if root.IsFile(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out, nil
}

// AfterDraft lists the staged products chapter c's round makes from its
// draft, whether or not they exist: the summary, crossref, evals, logic
// review and gate file, the memory the delta names (when the delta can be
// read), and the delta last, since it names the memory. novel-gate
// resolve --rejudge removes them; a redraft sets them aside.
func AfterDraft(root *project.Root, c int) []string {
	rels := []string{layout.StagingSummary(c), layout.StagingCrossref(c), layout.StagingEval(c),
		layout.StagingEvalSecondary(c), layout.StagingLogicReview(c), layout.StagingGate(c)}
	if d, err := ReadDelta(root, c); err == nil {
		rels = append(rels, layout.StagingMemory(d.StorylineID))
	}
	return append(rels, layout.StagingDelta(c))
}

// ownName reports whether name belongs to the chapter with this prefix:
// chapter-048 owns chapter-048.md and chapter-048-eval.json but not
// chapter-0481.md.
func ownName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := name[len(prefix):]
	return rest == "" || rest[0] < '0' || rest[0] > '9'
}
