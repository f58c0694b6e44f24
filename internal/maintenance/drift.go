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
	DriftWindow        = 5
	SentenceDriftAbove = 0.20
	DialogueDriftAbove = 0.15
	RecoveredBelow     = 0.10
	StaleAfterChapters = 15
)

// Metrics are the measured style figures of a window of chapters.
type Metrics struct {
	AvgSentenceLength float64 `json:"avg_sentence_length"`
	DialogueRatio     float64 `json:"dialogue_ratio"`
}

// DriftReport says what the drift check did.
type DriftReport struct {
	Checked bool     `json:"checked"`
	Status  string   `json:"status"` // none | detected | still_active | recovered | stale_timeout | unchanged | skipped
	Window  []int    `json:"window,omitempty"`
	Metrics *Metrics `json:"metrics,omitempty"`
}

// WindowMetrics measures the committed chapters lo..hi (missing ones are
// skipped). ok is false when no text was found.
func WindowMetrics(root *project.Root, lo, hi int) (Metrics, []int, bool, error) {
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

// CheckDrift runs after committing chapter c: the stale timeout on every
// commit, the measurement every 5th chapter.
func CheckDrift(root *project.Root, c int, now string) (DriftReport, error) {
	rep := DriftReport{Status: "skipped"}
	var cur map[string]any
	if root.IsFile(layout.StyleDrift) {
		if err := root.ReadJSON(layout.StyleDrift, &cur); err != nil {
			return rep, err
		}
	}
	active := cur != nil && cur["active"] == true
	detected, _ := jsonio.Int(cur["detected_chapter"])
	if active && c-detected > StaleAfterChapters {
		cur["active"] = false
		cur["cleared_reason"] = "stale_timeout"
		cur["cleared_at"] = now
		cur["cleared_chapter"] = c
		rep.Status = "stale_timeout"
		return rep, root.WriteJSON(layout.StyleDrift, cur)
	}
	if c%DriftWindow != 0 {
		return rep, nil
	}
	if ok, err := root.Optional(layout.StyleProfile); !ok || err != nil {
		return rep, err
	}
	var profile map[string]any
	if err := root.ReadJSON(layout.StyleProfile, &profile); err != nil {
		return rep, err
	}
	m, window, ok, err := WindowMetrics(root, c-DriftWindow+1, c)
	if err != nil || !ok {
		return rep, err
	}
	rep.Checked, rep.Window, rep.Metrics = true, window, &m
	baseSent, _ := jsonio.Float(profile["avg_sentence_length"])
	baseDia, _ := jsonio.Float(profile["dialogue_ratio"])
	sentDev, sentOK := deviation(m.AvgSentenceLength, baseSent)
	diaDev, diaOK := deviation(m.DialogueRatio, baseDia)

	var drifts []any
	if sentOK && sentDev > SentenceDriftAbove {
		drifts = append(drifts, sentenceDirective(m.AvgSentenceLength, baseSent))
	}
	if diaOK && diaDev > DialogueDriftAbove {
		drifts = append(drifts, dialogueDirective(m.DialogueRatio, baseDia))
	}
	metrics := map[string]any{"avg_sentence_length": m.AvgSentenceLength, "dialogue_ratio": m.DialogueRatio,
		"sentence_deviation": round4(sentDev), "dialogue_deviation": round4(diaDev)}
	baseline := map[string]any{"avg_sentence_length": profile["avg_sentence_length"], "dialogue_ratio": profile["dialogue_ratio"]}
	switch {
	case len(drifts) > 0:
		next := map[string]any{"active": true, "detected_chapter": c, "window": []int{window[0], window[len(window)-1]},
			"last_checked_chapter": c, "metrics": metrics, "baseline": baseline, "drifts": drifts,
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
	case active && (!sentOK || sentDev < RecoveredBelow) && (!diaOK || diaDev < RecoveredBelow):
		cur["active"] = false
		cur["cleared_reason"] = "metrics_recovered"
		cur["cleared_at"] = now
		cur["cleared_chapter"] = c
		cur["metrics"] = metrics
		rep.Status = "recovered"
		return rep, root.WriteJSON(layout.StyleDrift, cur)
	case active:
		rep.Status = "unchanged"
	default:
		rep.Status = "none"
	}
	return rep, nil
}

func sentenceDirective(cur, base float64) map[string]any {
	d := fmt.Sprintf("句子偏长（近 5 章平均 %.1f 字/句，基线 %.1f）：多用短句，拆开长句，用动作和对话推进节奏。", cur, base)
	if cur < base {
		d = fmt.Sprintf("句子偏短（近 5 章平均 %.1f 字/句，基线 %.1f）：适当合并碎句，补足细节与过渡，避免电报式叙述。", cur, base)
	}
	return map[string]any{"metric": "avg_sentence_length", "baseline": base, "current": cur, "directive": d}
}

func dialogueDirective(cur, base float64) map[string]any {
	d := fmt.Sprintf("对话占比偏高（近 5 章 %.0f%%，基线 %.0f%%）：增加叙述、环境与心理描写，减少连续对白。", cur*100, base*100)
	if cur < base {
		d = fmt.Sprintf("对话占比偏低（近 5 章 %.0f%%，基线 %.0f%%）：让人物用对话推动情节，减少大段叙述。", cur*100, base*100)
	}
	return map[string]any{"metric": "dialogue_ratio", "baseline": base, "current": cur, "directive": d}
}
