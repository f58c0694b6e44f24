package manifest

import "github.com/novelsuite/novel/internal/project"

// ContractCharacters are the display names chapter c's contract names in
// preconditions.character_states (file order; nil without any). The
// volume commit checks each against the cast and the plan's proposals.
func ContractCharacters(root *project.Root, volume, chapter int, storyline string) ([]string, error) {
	ct, err := loadContract(root, volume, chapter, storyline)
	if err != nil || ct == nil {
		return nil, err
	}
	return ct.CharacterNames, nil
}
