package eval

import (
	"math"
	"sort"
)

// RubricVersion names the suite's judge rubric (SPEC §18): the nine
// dimensions below, their 1–5 anchors in prompts/quality-judge.md, and
// {score, reason, evidence} per dimension. The judge packet carries it
// inline and the executor stamps it into the eval; only evals carrying
// it get their overall recomputed by the gate, so plugin-era evals and
// other executors keep being gated on their own overall.
const RubricVersion = "2026-11.1"

// RubricDimension is one scored dimension of the suite's rubric.
type RubricDimension struct {
	Name   string
	Weight float64
}

// Rubric lists the dimensions with their default weights, in the order
// the judge prompt presents them. The weights sum to 1. An array, so
// settings can hold weights in a comparable [len(Rubric)]float64.
var Rubric = [...]RubricDimension{
	{"plot_logic", 0.16},
	{"character", 0.16},
	{"immersion", 0.13},
	{"foreshadowing", 0.09},
	{"pacing", 0.08},
	{"style_naturalness", 0.12},
	{"emotional_impact", 0.08},
	{"storyline_coherence", 0.08},
	{"tonal_variance", 0.10},
}

// Weighted returns the gate's overall for the eval: Σwᵢsᵢ/Σwᵢ over the
// dimensions with a positive weight, rounded to 2 decimals, when the eval
// carries the suite's rubric_version and scores every such dimension.
// Otherwise it returns the eval's own overall and false.
func (e *Eval) Weighted(weights map[string]float64) (float64, bool) {
	if e.RubricVersion != RubricVersion && !e.IsStrict {
		return e.Overall, false
	}
	scores := make(map[string]float64, len(e.Dimensions))
	for _, d := range e.Dimensions {
		scores[d.Name] = d.Score
	}
	names := make([]string, 0, len(weights))
	for n, w := range weights {
		if w > 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return e.Overall, false
	}
	sort.Strings(names) // a fixed summation order keeps the result byte-stable
	var sum, wsum float64
	for _, n := range names {
		s, ok := scores[n]
		if !ok {
			return e.Overall, false
		}
		sum += weights[n] * s
		wsum += weights[n]
	}
	return Round2(sum / wsum), true
}

// Round2 rounds half away from zero to 2 decimals; the tiny offset absorbs
// binary representation error (4.125 stored as 4.12499… still rounds up).
func Round2(x float64) float64 {
	return math.Round(x*100+1e-9) / 100
}
