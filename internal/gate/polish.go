package gate

import (
	"sort"

	"github.com/novelsuite/novel/internal/eval"
)

// maxFixes caps the required fixes a polish round gets, and the lint
// warnings a revise round adds to its own (SPEC §24).
const maxFixes = 8

// polishFixes are a polish round's required fixes (SPEC §24): both judges'
// fixes on a key chapter (primary first, an instruction given twice kept
// once), the primary's otherwise; without any, §7.1's fallback (the
// feedback of the two lowest dimensions); then the lint warnings; at most
// MaxFixes.
func polishFixes(in Input, used *eval.Eval, high []Violation, lintWarnings []eval.Fix) []eval.Fix {
	out := []eval.Fix{}
	seen := map[string]bool{}
	add := func(fs []eval.Fix) {
		for _, f := range fs {
			if !seen[f.Instruction] && len(out) < maxFixes {
				seen[f.Instruction] = true
				out = append(out, f)
			}
		}
	}
	add(in.Primary.RequiredFixes)
	if in.KeyChapter && in.Secondary != nil {
		add(in.Secondary.RequiredFixes)
	}
	if len(out) == 0 {
		add(requiredFixes(used, high))
	}
	add(lintWarnings)
	return out
}

// withWarnings adds lint warnings to a revise round's fixes while fewer
// than MaxFixes are listed; the judges' own fixes are never cut.
func withWarnings(fixes, lintWarnings []eval.Fix) []eval.Fix {
	for _, f := range lintWarnings {
		if len(fixes) >= maxFixes {
			break
		}
		fixes = append(fixes, f)
	}
	return fixes
}

// lowest are the n lowest-scored dimensions (ties by name): what a polish
// works on when no dimension is below FailedDimensionBelow.
func lowest(dims []eval.Dimension, n int) []eval.Dimension {
	ds := append([]eval.Dimension(nil), dims...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Score != ds[j].Score {
			return ds[i].Score < ds[j].Score
		}
		return ds[i].Name < ds[j].Name
	})
	if len(ds) > n {
		ds = ds[:n]
	}
	return ds
}

// warningFixes turns the staging lint's warnings into fixes.
func warningFixes(in Input, lang string) []eval.Fix {
	out := []eval.Fix{}
	rep := in.Warnings
	if rep == nil {
		rep = in.Lint
	}
	if rep == nil {
		return out
	}
	for _, f := range rep.WarningFixes(lang) {
		out = append(out, eval.Fix{Target: f[0], Instruction: f[1]})
	}
	return out
}
