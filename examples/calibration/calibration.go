// Package calibration is the suite's built-in judge calibration set (SPEC
// §24): eight clean/flawed chapter pairs from the demo novel 《守灯人》, each
// flaw one known defect labelled with the rubric dimension or contract
// check that must catch it, and the demo project as committed before each
// judged chapter. It is embedded so an installed novel-agent calibrate
// needs no checkout; set.json is the index (format: internal/calibrate).
package calibration

import "embed"

// FS holds set.json, base/ (all: the projects' .checkpoint.json is a dot
// file), chapters/ and pairs/.
//
//go:embed set.json all:base chapters pairs
var FS embed.FS
