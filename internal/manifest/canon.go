package manifest

import "github.com/novelsuite/novel/internal/setupstep"

// typeCanonChanges is the DATA type of the canon changes a chapter must
// follow (SPEC §25).
const typeCanonChanges = "canon_changes"

// canonChanges puts into draft and judge packets the world rules and
// characters changed (novel-commit setup --replace) while the current
// volume was being written, before this chapter: the chapter's contract
// is older than them, so the writer follows the new canon and the judge
// checks it. Nothing when there are none.
func (b *builder) canonChanges() error {
	list, err := setupstep.CanonSince(b.root, b.vol, b.c)
	if err != nil || len(list) == 0 {
		return err
	}
	b.in.Set(typeCanonChanges, list)
	return nil
}
