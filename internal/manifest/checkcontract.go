package manifest

import "github.com/novelsuite/novel/internal/project"

// CheckContract validates chapter c's contract of volume v under root
// with the packets' own rules (SPEC §6): chapter ==, storyline_id ==
// the outline's Storyline, ≥ 1 required objective (a plugin Markdown
// contract is read when there is no .json). No contract file → false, nil.
// novel-commit volume
// uses it on a staged plan (root = the staging directory).
func CheckContract(root *project.Root, volume, chapter int, storyline string) (bool, error) {
	ct, err := loadContract(root, volume, chapter, storyline)
	return ct != nil, err
}
