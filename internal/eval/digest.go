package eval

import (
	"sort"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// digestReasonRunes bounds each reason a digest quotes: the volume review
// needs to know why a dimension was low, not the judge's whole paragraph.
const digestReasonRunes = 160

// DimensionNote is one of a digest's lowest dimensions.
type DimensionNote struct {
	Dimension string  `json:"dimension"`
	Score     float64 `json:"score"`
	Reason    string  `json:"reason,omitempty"`
}

// ViolationNote is one high-confidence violation of a digest.
type ViolationNote struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Detail string `json:"detail,omitempty"`
}

// Digest is a committed chapter eval cut to what a volume review reads
// (SPEC §25): the overall (the gate's overall_final when it recorded
// one), the gate decision and the revisions it took, the two lowest
// dimensions with their reasons and the high-confidence violations.
type Digest struct {
	Chapter    int             `json:"chapter"`
	Overall    float64         `json:"overall"`
	Decision   string          `json:"decision,omitempty"`
	Revisions  int             `json:"revisions"`
	Lowest     []DimensionNote `json:"lowest_dimensions"`
	Violations []ViolationNote `json:"high_confidence_violations"`
}

// LoadDigest reads the committed eval rel of chapter c as a Digest.
func LoadDigest(root *project.Root, rel string, c int) (*Digest, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	e, err := Parse(data, rel, c)
	if err != nil {
		return nil, err
	}
	d := &Digest{Chapter: c, Overall: e.Overall, Lowest: []DimensionNote{}, Violations: []ViolationNote{}}
	// The gate's record sits in metadata (the commit adds it).
	var doc struct {
		Metadata *CommittedMeta `json:"metadata"`
	}
	if err := jsonio.Decode(data, rel, &doc); err != nil && !errs.Is(err, errs.Schema) {
		return nil, err
	}
	var meta Committed
	doc.Metadata.apply(&meta)
	d.Decision, d.Revisions = meta.Decision, meta.Revisions
	if meta.OverallFinal != nil {
		d.Overall = *meta.OverallFinal
	}
	dims := append([]Dimension(nil), e.Dimensions...)
	sort.SliceStable(dims, func(i, j int) bool { return dims[i].Score < dims[j].Score })
	for _, dm := range dims[:min(2, len(dims))] {
		reason := dm.Feedback
		if reason == "" {
			reason = dm.Evidence
		}
		d.Lowest = append(d.Lowest, DimensionNote{Dimension: dm.Name, Score: dm.Score, Reason: textmeasure.Clip(reason, digestReasonRunes)})
	}
	high, _ := e.Violations()
	for _, c := range high {
		d.Violations = append(d.Violations, ViolationNote{ID: c.ID, Level: c.Level, Detail: textmeasure.Clip(c.Detail, digestReasonRunes)})
	}
	return d, nil
}
