package maintenance

import (
	"fmt"
	"math"

	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/textmeasure"
)

// Drift thresholds (relative deviation from the style profile).
const (
	driftWindow        = 5
	sentenceDriftAbove = 0.20
	dialogueDriftAbove = 0.15
	staleAfterChapters = 15
)

// Metrics are the measured style figures of a window of chapters.
type Metrics struct {
	AvgSentenceLength float64 `json:"avg_sentence_length"`
	DialogueRatio     float64 `json:"dialogue_ratio"`
}

// DriftReport says what the drift check did.
type DriftReport struct {
	Checked bool     `json:"checked"`
	Status  string   `json:"status"` // none | pending | detected | still_active | recovered | stale_timeout | skipped
	Window  []int    `json:"window,omitempty"`
	Metrics *Metrics `json:"metrics,omitempty"`
}

// windowMetrics measures the committed chapters lo..hi (missing ones are
// skipped). ok is false when no text was found.
func windowMetrics(root *project.Root, lo, hi int) (Metrics, []int, bool, error) {
	var chars, sentences, dialogue int
	var window []int
	for c := lo; c <= hi; c++ {
		if c < 1 || !root.IsFile(layout.Chapter(c)) {
			continue
		}
		data, err := root.ReadFile(layout.Chapter(c))
		if err != nil {
			return Metrics{}, nil, false, err
		}
		// The same measures as the lint and the word count (SPEC §16, §20).
		st := textmeasure.Measure(string(data))
		chars, sentences, dialogue = chars+st.Words, sentences+st.Sentences, dialogue+st.Dialogue
		window = append(window, c)
	}
	if chars == 0 || sentences == 0 {
		return Metrics{}, window, false, nil
	}
	return Metrics{AvgSentenceLength: round2(float64(chars) / float64(sentences)), DialogueRatio: round4(float64(dialogue) / float64(chars))}, window, true, nil
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

func deviation(cur, base float64) (float64, bool) {
	if base == 0 {
		return 0, false
	}
	return math.Abs(cur-base) / base, true
}

// checkDrift runs after committing chapter c: the stale timeout on every
// commit, the measurement every 5th chapter. Directives converge (SPEC
// §24): a measure gets one only when it is outside the style profile's
// band (the drift thresholds around the profile's value) on the same side
// at this check and the one before, the directive names the profile's
// value as the target, and it is dropped as soon as the measure is back
// inside the band or has swung to the other side (a swing is not a trend:
// turning the directive round at once is what made it oscillate).
func checkDrift(root *project.Root, c int, now string) (DriftReport, error) {
	rep := DriftReport{Status: "skipped"}
	var cur map[string]any
	if root.IsFile(layout.StyleDrift) {
		if err := root.ReadJSON(layout.StyleDrift, &cur); err != nil {
			return rep, err
		}
	}
	active := cur != nil && cur["active"] == true
	detected, _ := jsonio.Int(cur["detected_chapter"])
	if active && c-detected > staleAfterChapters {
		cur["active"] = false
		cur["cleared_reason"] = "stale_timeout"
		cur["cleared_at"] = now
		cur["cleared_chapter"] = c
		rep.Status = "stale_timeout"
		return rep, root.WriteJSON(layout.StyleDrift, cur)
	}
	if c%driftWindow != 0 {
		return rep, nil
	}
	if ok, err := root.Optional(layout.StyleProfile); !ok || err != nil {
		return rep, err
	}
	var profile map[string]any
	if err := root.ReadJSON(layout.StyleProfile, &profile); err != nil {
		return rep, err
	}
	m, window, ok, err := windowMetrics(root, c-driftWindow+1, c)
	if err != nil || !ok {
		return rep, err
	}
	rep.Checked, rep.Window, rep.Metrics = true, window, &m
	baseSent, _ := jsonio.Float(profile["avg_sentence_length"])
	baseDia, _ := jsonio.Float(profile["dialogue_ratio"])
	sentDev, _ := deviation(m.AvgSentenceLength, baseSent)
	diaDev, _ := deviation(m.DialogueRatio, baseDia)

	// Where each measure stands against its band now, and at the check
	// before this one (a re-run for the same chapter reads the same one).
	nowSide := map[string]string{
		"avg_sentence_length": side(m.AvgSentenceLength, baseSent, sentenceDriftAbove),
		"dialogue_ratio":      side(m.DialogueRatio, baseDia, dialogueDriftAbove),
	}
	checks := priorChecks(cur, c)
	before := previousSides(checks, c)
	outside := map[string]any{}
	for k, v := range nowSide {
		if v != "" {
			outside[k] = v
		}
	}
	checks = append(checks, map[string]any{"chapter": c, "outside": outside})
	if len(checks) > 2 {
		checks = checks[len(checks)-2:]
	}

	var drifts []any
	if s := nowSide["avg_sentence_length"]; s != "" && s == before["avg_sentence_length"] {
		drifts = append(drifts, sentenceDirective(m.AvgSentenceLength, baseSent))
	}
	if s := nowSide["dialogue_ratio"]; s != "" && s == before["dialogue_ratio"] {
		drifts = append(drifts, dialogueDirective(m.DialogueRatio, baseDia))
	}
	metrics := map[string]any{"avg_sentence_length": m.AvgSentenceLength, "dialogue_ratio": m.DialogueRatio,
		"sentence_deviation": round4(sentDev), "dialogue_deviation": round4(diaDev)}
	baseline := map[string]any{"avg_sentence_length": profile["avg_sentence_length"], "dialogue_ratio": profile["dialogue_ratio"]}
	switch {
	case len(drifts) > 0:
		next := map[string]any{"active": true, "detected_chapter": c, "window": []int{window[0], window[len(window)-1]},
			"last_checked_chapter": c, "metrics": metrics, "baseline": baseline, "drifts": drifts, "checks": checks,
			"created_at": now, "cleared_at": nil, "cleared_reason": nil}
		rep.Status = "detected"
		if active && detected > 0 && detected != c {
			// Still drifting: keep the original detection so the 15-chapter
			// timeout can end directives that do not help.
			next["detected_chapter"] = detected
			next["created_at"] = cur["created_at"]
			rep.Status = "still_active"
		}
		return rep, root.WriteJSON(layout.StyleDrift, next)
	case active:
		cur["active"] = false
		cur["cleared_reason"] = "metrics_recovered"
		cur["cleared_at"] = now
		cur["cleared_chapter"] = c
		cur["metrics"] = metrics
		cur["checks"] = checks
		rep.Status = "recovered"
		return rep, root.WriteJSON(layout.StyleDrift, cur)
	case len(outside) > 0:
		// Outside once: remembered for the next check, no directive yet.
		next := cur
		if next == nil {
			next = map[string]any{"active": false, "drifts": []any{}}
		}
		next["last_checked_chapter"] = c
		next["metrics"] = metrics
		next["baseline"] = baseline
		next["checks"] = checks
		rep.Status = "pending"
		return rep, root.WriteJSON(layout.StyleDrift, next)
	case cur != nil && cur["checks"] != nil:
		cur["last_checked_chapter"] = c
		cur["metrics"] = metrics
		cur["checks"] = checks
		rep.Status = "none"
		return rep, root.WriteJSON(layout.StyleDrift, cur)
	}
	rep.Status = "none"
	return rep, nil
}

// previousSides is where each measure stood at the check just before
// chapter c's (the last of checks, when it was DriftWindow chapters ago):
// measure → "high" | "low"; empty when there was no such check.
func previousSides(checks []any, c int) map[string]string {
	before := map[string]string{}
	if n := len(checks); n > 0 {
		last, _ := checks[n-1].(map[string]any)
		if ch, _ := jsonio.Int(last["chapter"]); last != nil && ch == c-driftWindow {
			o, _ := last["outside"].(map[string]any)
			for k, v := range o {
				before[k], _ = v.(string)
			}
		}
	}
	return before
}

// side is "high" or "low" when cur is outside base ± limit (relative),
// "" inside the band or when the profile has no value for it.
func side(cur, base, limit float64) string {
	dev, ok := deviation(cur, base)
	if !ok || dev <= limit {
		return ""
	}
	if cur > base {
		return "high"
	}
	return "low"
}

// priorChecks are the recorded checks before chapter c (a re-run for the
// same chapter drops its own earlier record).
func priorChecks(cur map[string]any, c int) []any {
	list, _ := cur["checks"].([]any)
	var out []any
	for _, x := range list {
		m, _ := x.(map[string]any)
		if ch, ok := jsonio.Int(m["chapter"]); ok && ch < c {
			out = append(out, m)
		}
	}
	return out
}

// The directives name the profile's value and its band and ask only to
// come back to it, by means that add nothing the profile does not ask for.
func sentenceDirective(cur, base float64) map[string]any {
	lo, hi := base*(1-sentenceDriftAbove), base*(1+sentenceDriftAbove)
	d := fmt.Sprintf("平均句长 %.1f 字，长于文风档案的 %.1f 字（允许 %.1f–%.1f）：把句长拉回 %.0f 字左右——拆开长句，一句只做一件事。", cur, base, lo, hi, base)
	if cur < base {
		d = fmt.Sprintf("平均句长 %.1f 字，短于文风档案的 %.1f 字（允许 %.1f–%.1f）：把句长拉回 %.0f 字左右——把连续的碎句并成完整的动作。", cur, base, lo, hi, base)
	}
	return map[string]any{"metric": "avg_sentence_length", "baseline": base, "current": cur, "target": base, "directive": d}
}

func dialogueDirective(cur, base float64) map[string]any {
	lo, hi := base*(1-dialogueDriftAbove), base*(1+dialogueDriftAbove)
	d := fmt.Sprintf("对话占比 %.0f%%，高于文风档案的 %.0f%%（允许 %.0f%%–%.0f%%）：把对话拉回 %.0f%% 左右——删去来回确认、只重复信息的对白，交代改由动作带出。", cur*100, base*100, lo*100, hi*100, base*100)
	if cur < base {
		d = fmt.Sprintf("对话占比 %.0f%%，低于文风档案的 %.0f%%（允许 %.0f%%–%.0f%%）：把对话拉回 %.0f%% 左右——让人物当面交锋，把概述的交代改成对话场面。", cur*100, base*100, lo*100, hi*100, base*100)
	}
	return map[string]any{"metric": "dialogue_ratio", "baseline": base, "current": cur, "target": base, "directive": d}
}
