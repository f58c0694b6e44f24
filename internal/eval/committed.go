package eval

import (
	"encoding/json"
	"strconv"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
)

// Committed is what the suite reads back from a committed eval
// (evaluations/chapter-NNN-eval.json, SPEC §8.1): the primary eval's
// overall plus the metadata {gate, secondary, judges} the commit adds.
// It is the one reader of the chapter's final score: the report, the
// commit's quality brief and the volume-review digest all take it here.
type Committed struct {
	Overall float64
	// OverallFinal is the recorded final score (Final falls back to
	// Overall); nil when the metadata records none.
	OverallFinal *float64
	Secondary    *float64
	Decision     string
	Original     string
	Revisions    int
	ForcePassed  bool
	Polished     bool
}

// Final is the chapter's final score: the recorded overall_final (the
// lower of two judges), else the primary's overall.
func (c *Committed) Final() float64 {
	if c.OverallFinal != nil {
		return *c.OverallFinal
	}
	return c.Overall
}

// committedDoc is the part of a committed eval Committed reads. Everything
// else (scores, checks, the embedded gate file and secondary eval) is only
// scanned, never decoded into maps: a 2,000-chapter project has 2,000 of
// these files.
type committedDoc struct {
	Chapter       json.RawMessage `json:"chapter"`
	ChapterNumber json.RawMessage `json:"chapter_number"`
	Overall       json.RawMessage `json:"overall"`
	Metadata      *CommittedMeta  `json:"metadata"`
	EvalUsed      json.RawMessage `json:"eval_used"`
}

// CommittedMeta is a committed eval's metadata. Its fields are read
// leniently (a value of another type is ignored): they are bookkeeping
// the suite wrote itself.
type CommittedMeta struct {
	Gate      *committedGate `json:"gate"`
	Secondary *struct {
		Overall any `json:"overall"`
	} `json:"secondary"`
	Judges *struct {
		OverallFinal any `json:"overall_final"`
		Secondary    *struct {
			Overall any `json:"overall"`
		} `json:"secondary"`
	} `json:"judges"`
}

// committedGate holds the gate file fields the readers use.
type committedGate struct {
	Decision         any `json:"decision"`
	OriginalDecision any `json:"original_decision"`
	Polished         any `json:"polished"`
	ForcePassed      any `json:"force_passed"`
	RevisionCount    any `json:"revision_count"`
	Revisions        any `json:"revisions"`
	OverallFinal     any `json:"overall_final"`
}

// apply fills out from the metadata. The judges record is the commit's
// own summary: its overall_final wins over the gate file's.
func (md *CommittedMeta) apply(out *Committed) {
	if md == nil {
		return
	}
	if g := md.Gate; g != nil {
		out.Decision, _ = g.Decision.(string)
		out.Original, _ = g.OriginalDecision.(string)
		out.Polished, _ = g.Polished.(bool)
		out.ForcePassed, _ = g.ForcePassed.(bool)
		if n, ok := jsonio.Int(g.RevisionCount); ok && n > 0 {
			out.Revisions = n
		} else if n, ok := jsonio.Int(g.Revisions); ok && n > 0 {
			out.Revisions = n
		}
		if f, ok := jsonio.Float(g.OverallFinal); ok {
			out.OverallFinal = &f
		}
	}
	if j := md.Judges; j != nil {
		if f, ok := jsonio.Float(j.OverallFinal); ok {
			out.OverallFinal = &f
		}
		if j.Secondary != nil {
			if f, ok := jsonio.Float(j.Secondary.Overall); ok {
				out.Secondary = &f
			}
		}
	}
	if out.Secondary == nil && md.Secondary != nil {
		if f, ok := jsonio.Float(md.Secondary.Overall); ok {
			out.Secondary = &f
		}
	}
}

func committedSchemaErr(rel, zh, en string) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, rel).With("file", rel).
		Hint("修正该评估文件（格式见 SPEC §2、§8.1），或用 novel-commit rollback 回滚该章后重写",
			"fix the eval file (SPEC §2, §8.1), or roll the chapter back with novel-commit rollback and redo it")
}

// ParseCommitted reads the committed eval rel of chapter c: syntax errors
// are E_INVALID_JSON with line and column; chapter and overall must be
// valid as in a judge's eval (SPEC §3.2). The wrapped form
// {"eval_used":{…}} is handed to the judge's own parser.
func ParseCommitted(data []byte, rel string, c int) (*Committed, error) {
	var doc committedDoc
	if err := jsonio.Decode(data, rel, &doc); err != nil {
		if errs.Is(err, errs.Schema) {
			return nil, committedSchemaErr(rel, "必须是 JSON 对象，metadata 必须是 {gate, secondary, judges} 对象", "must be a JSON object whose metadata is an object {gate, secondary, judges}")
		}
		return nil, err
	}
	out := &Committed{}
	if len(doc.Overall) == 0 && len(doc.EvalUsed) > 0 {
		ev, err := Parse(data, rel, c)
		if err != nil {
			return nil, err
		}
		out.Overall = ev.Overall
		var inner committedDoc
		if json.Unmarshal(doc.EvalUsed, &inner) == nil && doc.Metadata == nil {
			doc.Metadata = inner.Metadata
		}
	} else {
		ch := doc.Chapter
		if len(ch) == 0 || string(ch) == "null" {
			ch = doc.ChapterNumber
		}
		n, ok := jsonio.RawInt(ch)
		if !ok || n != c {
			return nil, committedSchemaErr(rel, "chapter 必须是 "+strconv.Itoa(c), "chapter must be "+strconv.Itoa(c)).With("field", "chapter")
		}
		f, ok := jsonio.RawFloat(doc.Overall)
		if !ok || f < 0 || f > 5 {
			return nil, committedSchemaErr(rel, "overall 必须是 0 到 5 之间的数", "overall must be a number in [0,5]").With("field", "overall")
		}
		out.Overall = f
	}
	doc.Metadata.apply(out)
	return out, nil
}
