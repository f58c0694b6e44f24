package outline

import (
	"strconv"

	"github.com/novelsuite/novel/internal/project"
)

// VolumeOf finds the volume whose outline range holds chapter c, looking
// from the current volume down; without one it keeps the current volume.
func VolumeOf(root *project.Root, c, current int) (int, string) {
	for v := max(current, 1); v >= 1; v-- {
		o, err := Load(root, v)
		if err != nil {
			continue
		}
		if start, end, ok := o.Range(); ok && start <= c && c <= end {
			return v, ""
		}
	}
	v := max(current, 1)
	return v, "没有卷大纲包含第 " + strconv.Itoa(c) + " 章，current_volume 保持为 " + strconv.Itoa(v) +
		" / no volume outline holds chapter " + strconv.Itoa(c) + "; current_volume stays " + strconv.Itoa(v)
}
