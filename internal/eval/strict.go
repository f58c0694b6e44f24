package eval

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
)

// Evidence quote bounds (SPEC §24), in characters after whitespace is
// removed: shorter quotes match anywhere, longer ones are paraphrase.
const (
	QuoteMin = 4
	QuoteMax = 120
)

// Strict checks an eval judged from a suite packet (SPEC §24) against the
// packet's rubric (dimension → weight) and the judged chapter's text:
// every weighted dimension scored on the half-step scale 1, 1.5, …, 5 with
// a non-empty reason, no dimension outside the rubric, every quote found
// verbatim in the chapter, and at least one quote for a score ≤ 3. The
// first problem is an E_SCHEMA naming the dimension, so a re-ask can quote
// it. On success the eval is marked Strict, and Weighted then always
// computes the gate's overall from the scores.
//
// chapters are the texts the judge may have read; with none, quotes are
// checked for their length only (the judged text is gone, e.g. polished).
func (e *Eval) Strict(rubric map[string]float64, chapters ...string) error {
	rel := e.File
	dims := make(map[string]Dimension, len(e.Dimensions))
	for _, d := range e.Dimensions {
		dims[d.Name] = d
	}
	names := make([]string, 0, len(rubric))
	for n, w := range rubric {
		if w > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := dims[n]; !ok {
			return strictErr(rel, n, "缺少评分标准维度 %s（评分标准 %s 要求给每个有权重的维度打分）",
				"the rubric dimension %s is missing (rubric %s scores every weighted dimension)", n, rubricName(e))
		}
	}
	for _, d := range e.Dimensions {
		if _, ok := rubric[d.Name]; !ok {
			return strictErr(rel, d.Name, "%s 不是评分标准的维度（只能是 %s）", "%s is not a rubric dimension (use %s)",
				d.Name, strings.Join(sortedKeys(rubric), ", "))
		}
	}
	texts := NewQuoteTexts(chapters...)
	for _, d := range e.Dimensions {
		if d.Score < 1 || d.Score > 5 || d.Score*2 != float64(int(d.Score*2)) {
			return strictErr(rel, d.Name, "%s 的分数 %v 不在 1, 1.5, …, 5 的半分刻度上", "%s: the score %v is not on the half-step scale 1, 1.5, …, 5",
				d.Name, d.Score)
		}
		if strings.TrimSpace(d.Feedback) == "" {
			return strictErr(rel, d.Name, "%s 缺少 reason（打分理由）", "%s has no reason", d.Name)
		}
		if f, bad := firstQuoteFault(texts, d.Quotes); bad {
			return f.err(func(zh, en string, a ...any) *errs.Error { return strictErr(rel, d.Name, zh, en, a...) }, d.Name, d.Name)
		}
		if d.Score <= 3 && len(d.Quotes) == 0 {
			return strictErr(rel, d.Name, "%s 打了 %v 分（≤ 3），至少需要一条逐字摘录正文的 evidence",
				"%s scored %v (≤ 3) needs at least one evidence quote taken verbatim from the chapter", d.Name, d.Score)
		}
	}
	e.IsStrict = true
	return nil
}

// QuoteTexts are the texts evidence quotes must come from (SPEC §24),
// whitespace removed once so each quote is checked by one search per text.
// With no texts, quotes are checked for their length only.
type QuoteTexts struct{ norms []string }

// NewQuoteTexts prepares texts for Check.
func NewQuoteTexts(texts ...string) QuoteTexts {
	norms := make([]string, len(texts))
	for i, t := range texts {
		norms[i] = squeeze(t)
	}
	return QuoteTexts{norms: norms}
}

// Check measures quote q and looks it up: n is its length in characters
// once whitespace (and, when the bare quote is not found, one pair of
// quotation marks around it) is removed; found is whether it occurs
// verbatim in one of the texts (always true with no texts). A valid quote
// has QuoteMin ≤ n ≤ QuoteMax and found. The judge's evidence and the
// summarizer's foreshadow evidence are both checked here.
func (t QuoteTexts) Check(q string) (n int, found bool) {
	sq := squeeze(q)
	if !t.has(sq) {
		sq = squeeze(unquote(q))
	}
	return utf8.RuneCountInString(sq), len(t.norms) == 0 || t.has(sq)
}

func (t QuoteTexts) has(q string) bool {
	for _, n := range t.norms {
		if strings.Contains(n, q) {
			return true
		}
	}
	return false
}

// strictErr is Strict's E_SCHEMA, naming the file and the dimension; the
// dimension is the first argument of both texts.
func strictErr(rel, dim, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Schema, "%s："+zh, "%s: "+en, append([]any{rel}, args...)...).
		With("file", rel).With("field", "scores."+dim).With("dimension", dim).
		Hint("给评分标准的每个维度打分（1–5，半分刻度），写出 reason；≤ 3 分的维度摘录正文原句作 evidence；然后重新运行 judge 步骤",
			"score every rubric dimension (1–5 in half steps) with a reason, quote the chapter verbatim as evidence for any score ≤ 3, then run the judge step again")
}

func rubricName(e *Eval) string {
	if e.RubricVersion != "" {
		return e.RubricVersion
	}
	return RubricVersion
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// squeeze removes all whitespace, so a quote that spans a line break or
// was re-spaced by the model still matches (SPEC §24: whitespace-normalised).
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// unquote drops one pair of quotation marks a judge put around its quote.
func unquote(q string) string {
	q = strings.TrimSpace(q)
	for _, p := range [][2]string{{"「", "」"}, {"“", "”"}, {"\"", "\""}, {"『", "』"}} {
		if strings.HasPrefix(q, p[0]) && strings.HasSuffix(q, p[1]) && len(q) > len(p[0])+len(p[1]) {
			return q[len(p[0]) : len(q)-len(p[1])]
		}
	}
	return q
}

// Clip shortens s to its first 30 characters for an error message.
func Clip(s string) string { return clip(s) }

func clip(s string) string {
	if utf8.RuneCountInString(s) <= 30 {
		return s
	}
	r := []rune(s)
	return string(r[:30]) + "…"
}

// quoteFault is the first evidence quote that is not a verbatim passage of
// the judged text within the quote bounds (SPEC §24).
type quoteFault struct {
	quote   string
	n       int
	missing bool
}

func firstQuoteFault(texts QuoteTexts, quotes []string) (quoteFault, bool) {
	for _, q := range quotes {
		n, ok := texts.Check(q)
		if n < QuoteMin || n > QuoteMax {
			return quoteFault{quote: q, n: n}, true
		}
		if !ok {
			return quoteFault{quote: q, n: n, missing: true}, true
		}
	}
	return quoteFault{}, false
}

// err words the fault after its subject, told apart per language (a
// dimension, 规则 W-002 / rule W-002, a check), through mk: one of the
// E_SCHEMA builders that put the file first, so the formats index from 2.
func (f quoteFault) err(mk func(zh, en string, a ...any) *errs.Error, zh, en string) *errs.Error {
	if f.missing {
		return mk("%[2]s 的 evidence「%[4]s」在章节正文中找不到（必须逐字摘录原文）",
			"%[3]s: the evidence 「%[4]s」 is not in the chapter (quote the text verbatim)", zh, en, clip(f.quote))
	}
	return mk("%[2]s 的 evidence「%[4]s」长度为 %[5]d 字，应为 %[6]d–%[7]d 字的原文摘录",
		"%[3]s: the evidence 「%[4]s」 is %[5]d characters long; quote %[6]d–%[7]d characters of the chapter",
		zh, en, clip(f.quote), f.n, QuoteMin, QuoteMax)
}
