package lint

import (
	"strings"

	"github.com/novelsuite/novel/internal/errs"
)

// Refusal is the E_LINT error for a report with error-severity checks that
// fired (nil when there are none). step names the step to rerun.
func (r *Report) Refusal(step string) error {
	fired := r.Fired(Error)
	if len(fired) == 0 {
		return nil
	}
	ids := make([]string, len(fired))
	for i, c := range fired {
		ids[i] = c.ID + "（" + c.Detail + "）"
	}
	idsEn := make([]string, len(fired))
	for i, c := range fired {
		idsEn[i] = c.ID + " (" + c.Detail + ")"
	}
	// Validation lints the staging chapter, novel-lint's default file.
	cmd := "novel-lint --chapter " + itoa(r.Chapter) + " --stage " + r.Stage
	return errs.New(errs.Lint, r.File+" 未通过 lint："+strings.Join(ids, "；"), r.File+" fails the lint checks: "+strings.Join(idsEn, "; ")).
		With("file", r.File).With("stage", r.Stage).With("word_count", r.WordCount).With("checks", fired).
		Hint("按证据行修正正文后重新运行 "+step+"（"+cmd+" 查看完整报告）",
			"fix the text at the evidence lines and rerun "+step+" ("+cmd+" shows the whole report)")
}

// Fixes turns the fired checks among ids into required fixes for the
// writer: the check id as target, what is wrong and what to do.
func (r *Report) Fixes(lang string, ids ...string) [][2]string {
	var out [][2]string
	for _, c := range r.Fired(Error, ids...) {
		out = append(out, r.fix(c, lang))
	}
	return out
}

// WarningFixes are the fixes for the warning-severity findings that feed a
// polish or revision round (SPEC §24): AI patterns, dashes, blacklist
// words and quote marks, in report order.
func (r *Report) WarningFixes(lang string) [][2]string {
	var out [][2]string
	for _, c := range r.Fired(Warning, AIPatterns, Dashes, blacklistCheck, Quotes) {
		out = append(out, r.fix(c, lang))
	}
	return out
}

// fix is one fired check as a required fix: what fired and where.
func (r *Report) fix(c Check, lang string) [2]string {
	ins := c.Detail
	switch c.ID {
	case Length:
		p := r.Platform
		if r.WordCount > p.WordsMax {
			ins += errs.Text(lang, "。把正文删减到 "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+" 字：收紧本章自己的场景，不要删掉必需的情节",
				". Trim the chapter to "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+" words by tightening its own scenes, keeping the required events")
			break
		}
		ins += errs.Text(lang, "。把正文扩写到 "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+" 字：补足场景与冲突，而不是注水",
			". Expand the chapter to "+itoa(p.WordsTarget[0])+"–"+itoa(p.WordsTarget[1])+" words with scenes and conflict, not padding")
	case ModelArtifacts:
		ins += errs.Text(lang, "。删除这些模型残留：", ". Delete these model leftovers: ") + excerpts(c)
	default:
		ins += errs.Text(lang, "。位置：", ". At: ") + excerpts(c)
	}
	return [2]string{"lint:" + c.ID, ins}
}

func excerpts(c Check) string {
	var parts []string
	for _, e := range c.Evidence {
		parts = append(parts, "L"+itoa(e.Line)+" "+e.Excerpt)
	}
	return strings.Join(parts, " | ")
}
