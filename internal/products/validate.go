package products

import (
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/eval"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/setupstep"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volume"
)

// Validate checks the products of step st itself (SPEC §3.2), without the
// write-boundary walk (that belongs to the boundary package). The first
// failing product's own error is returned (E_MISSING_FILE, E_INVALID_JSON,
// E_SCHEMA, E_PATH, E_IO), with a hint naming the step to rerun.
func Validate(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings) error {
	return ValidateRole(root, cp, st, s, "")
}

// ValidateRole is Validate for one judge role: role "" checks the primary
// eval and, on a key chapter, the secondary one too; role "primary" or
// "secondary" checks only that judge's eval (the pipeline validates each
// judge's output as soon as it is written).
func ValidateRole(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings, role string) error {
	return validate(root, cp, st, s, role, true)
}

// ValidateBeforeCommit is Validate as the commit's precondition: the
// delta's ops are not judged there, since the commit itself checks the
// state version and drops invalid ops with a reason (SPEC §8.2); the
// summarize step refuses them before (CheckDeltaForCommit).
func ValidateBeforeCommit(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings) error {
	return validate(root, cp, st, s, "", false)
}

// ValidatePrior is Validate for an earlier stage's products when a later
// stage advances: the summarizer's evidence quotes are checked for their
// length only, since the refine or polish being advanced has rewritten
// the text they were quoted from (they were checked verbatim when the
// summarize step itself was validated).
func ValidatePrior(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings) error {
	if !st.Volume && !st.Setup && st.Stage == stepid.Summarize {
		return rerun(checkSummarize(root, cp, st.Chapter, true, false), st)
	}
	return Validate(root, cp, st, s)
}

func validate(root *project.Root, cp *checkpoint.Checkpoint, st stepid.Step, s settings.Settings, role string, deltaOps bool) error {
	if role != "" && role != stepid.RoleSecondary && role != stepid.RolePrimary {
		return errs.Newf(errs.Usage, "未知角色 %q（只能是 primary 或 secondary）", "unknown role %q (primary or secondary)", role).With("role", role).
			Hint("关键章的第二评审用 --role secondary；校验整个 judge 步骤时去掉 --role",
				"use --role secondary for a key chapter's second judge; drop --role to validate the whole judge step")
	}
	if role != "" && (st.Volume || st.Setup || st.Stage != stepid.Judge) {
		return errs.Newf(errs.Usage, "--role %s 只适用于 judge 步骤，不适用于 %s", "--role %s applies to the judge step only, not %s", role, st.String()).
			With("step", st.String()).Hint("去掉 --role", "drop --role")
	}
	if st.Setup {
		_, err := setupstep.Validate(root, st.Stage)
		return err
	}
	if st.Volume {
		// The review has its own commit (SPEC §23); plan and contracts are the volume plan's.
		cmd := "novel-commit volume"
		if st.Stage == stepid.Review {
			cmd = "novel-commit volume-review"
		}
		return errs.Newf(errs.Usage, "%s 的产物由 %s 校验", "the products of %s are validated by %s", st.String(), cmd).
			With("step", st.String()).Hint("运行 "+cmd+" --volume "+layout.PadVol(st.Number)+" --dry-run",
			"run "+cmd+" --volume "+layout.PadVol(st.Number)+" --dry-run")
	}
	c := st.Chapter
	var err error
	switch st.Stage {
	case stepid.Draft, stepid.Refine, stepid.Polish:
		err = CheckChapterLinted(root, s, cp, c, st.Stage)
	case stepid.Summarize:
		err = checkSummarize(root, cp, c, deltaOps, true)
	case stepid.Judge:
		err = checkJudge(root, cp, c, role, s)
	case stepid.LogicReview:
		_, err = LogicReviewReport(root, c)
	case stepid.Gate, stepid.Commit:
		return errs.Newf(errs.Usage, "%s 是确定性步骤，没有代理产物可校验", "%s is a deterministic step with no agent products to validate", st.String()).
			With("step", st.String()).Hint("gate 由 novel-gate decide 执行，commit 由 novel-commit --dry-run 检查",
			"gate is run by novel-gate decide; commit is checked by novel-commit --dry-run")
	default:
		return errs.Newf(errs.Usage, "暂不支持校验 %s", "cannot validate %s", st.String()).With("step", st.String())
	}
	if err != nil {
		return rerun(err, st)
	}
	return nil
}

// Lenient reports whether chapter c's stage was read from a plugin-era
// value, in which case a missing crossref reads as {}.
func Lenient(cp *checkpoint.Checkpoint, c int) bool {
	return cp != nil && cp.PluginStage != "" && cp.Inflight == c
}

func checkSummarize(root *project.Root, cp *checkpoint.Checkpoint, c int, deltaOps, verbatim bool) error {
	if err := CheckSummary(root, c); err != nil {
		return err
	}
	d, err := ReadDelta(root, c)
	if err != nil {
		return err
	}
	if err := CheckDeltaStoryline(root, cp, d); err != nil {
		return err
	}
	if deltaOps {
		vol := 1
		if cp != nil && cp.CurrentVolume > 0 {
			vol = cp.CurrentVolume
		}
		if err := checkDelta(root, vol, d, -1, verbatim); err != nil {
			return err
		}
	}
	if _, err := ReadCrossref(root, c, Lenient(cp, c)); err != nil {
		return err
	}
	return CheckMemory(root, d.StorylineID)
}

func checkJudge(root *project.Root, cp *checkpoint.Checkpoint, c int, role string, s settings.Settings) error {
	if role != "" {
		_, err := Eval(root, c, role == stepid.RoleSecondary, s.Weights())
		return err
	}
	if _, err := Eval(root, c, false, s.Weights()); err != nil {
		return err
	}
	key, err := KeyChapter(root, cp, c)
	if err != nil {
		return err
	}
	if key {
		if _, err := Eval(root, c, true, s.Weights()); err != nil {
			if e := errs.As(err); e != nil && e.Code == errs.MissingFile {
				e.Zh = "关键章需要第二评审：" + e.Zh
				e.En = "a key chapter needs the secondary judge: " + e.En
				id := stepid.Chapter(c, stepid.Judge).String()
				packet := "novel instructions " + id + " --role secondary --write-manifest"
				e.With("key_chapter", true).With("next_command", packet).
					Hint("运行 "+packet+" 取得第二评审的指令包，评审后用 novel-agent apply 指令包 答案文件 交上评审（它写到 "+layout.StagingEvalSecondary(c)+"），再运行 novel validate "+id,
						"run "+packet+" for the second judge's packet, hand its eval to novel-agent apply PACKET ANSWER (it writes "+layout.StagingEvalSecondary(c)+"), then run novel validate "+id)
			}
			return err
		}
	}
	return nil
}

// Eval reads and validates the staging eval of chapter c (the secondary
// judge's when secondary): overall in [0,5], chapter == c, the wrapped
// {"eval_used":{…}} form accepted. An eval judged from a suite packet (it
// carries rubric_version, or the judge packet of c exists) is also checked
// strictly against the rubric weights and the staging chapter (SPEC §24),
// so the gate never falls back to the model's own overall for it.
func Eval(root *project.Root, c int, secondary bool, weights map[string]float64) (*eval.Eval, error) {
	rel := layout.StagingEval(c)
	stage := stepid.Judge
	if secondary {
		rel = layout.StagingEvalSecondary(c)
		stage += "." + stepid.RoleSecondary
	}
	e, err := eval.Load(root, rel, c)
	if err != nil {
		return nil, err
	}
	suite, inPlay := judgePacket(root, layout.Packet(c, stage))
	if e.RubricVersion == "" && !suite {
		return e, nil
	}
	texts, err := judgedTexts(root, c)
	if err != nil {
		return nil, err
	}
	if err := e.Strict(weights, texts...); err != nil {
		return nil, err
	}
	// Every rule the packet put in play is checked one by one (SPEC §25).
	if err := e.CheckRules(inPlay, texts...); err != nil {
		return nil, err
	}
	return e, nil
}

// judgedTexts are the texts an eval's quotes must come from: the staging
// chapter, until the gate has decided on the eval. The gate checked the
// quotes against the judged text before deciding; a polish then changes
// that text (it is meant to), so later reads check the eval's shape only.
func judgedTexts(root *project.Root, c int) ([]string, error) {
	if root.IsFile(layout.StagingGate(c)) {
		return nil, nil
	}
	text, err := ChapterText(root, layout.StagingChapter(c))
	if err != nil {
		return nil, err
	}
	return []string{text}, nil
}

// ModelOverallWarnings are validate's warnings (both languages, as the
// write-boundary ones) for chapter c's staging evals — the role's, or both
// judges' for role "" — that will be gated on the model's own overall: a
// hand-made eval with neither rubric_version nor a judge packet (SPEC §24).
func ModelOverallWarnings(root *project.Root, c int, role string) []string {
	var out []string
	for _, secondary := range []bool{false, true} {
		if (role == stepid.RolePrimary && secondary) || (role == stepid.RoleSecondary && !secondary) {
			continue
		}
		rel, stage := layout.StagingEval(c), stepid.Judge
		if secondary {
			rel, stage = layout.StagingEvalSecondary(c), stepid.Judge+"."+stepid.RoleSecondary
		}
		if suite, _ := judgePacket(root, layout.Packet(c, stage)); !root.IsFile(rel) || suite {
			continue
		}
		if e, err := eval.Load(root, rel, c); err == nil && e.RubricVersion == "" {
			out = append(out, rel+" 既没有 rubric_version，也没有对应的评审指令包：门控将按它自己的 overall 判定（scoring: model_overall），不按评分标准重算"+
				" / "+rel+" has neither rubric_version nor a judge packet: the gate will decide on its own overall (scoring: model_overall), not on the rubric")
		}
	}
	return out
}

// judgePacket reports whether rel is a judge packet that promised the
// suite's rubric (inline rubric_version), and the W-ids of its
// rules_in_play. A placeholder or a packet of an older suite that did not
// carry the rubric leaves the eval lenient.
func judgePacket(root *project.Root, rel string) (suite bool, inPlay []string) {
	if !root.IsFile(rel) {
		return false, nil
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return false, nil
	}
	var p struct {
		Manifest struct {
			Inline struct {
				RubricVersion string `json:"rubric_version"`
				RulesInPlay   []struct {
					ID string `json:"id"`
				} `json:"rules_in_play"`
			} `json:"inline"`
		} `json:"manifest"`
	}
	if jsonio.Decode(data, rel, &p) != nil {
		return false, nil
	}
	for _, r := range p.Manifest.Inline.RulesInPlay {
		inPlay = append(inPlay, r.ID)
	}
	return p.Manifest.Inline.RubricVersion != "", inPlay
}

// LogicReviewReport reads and validates the staging logic review report.
func LogicReviewReport(root *project.Root, c int) (*eval.LogicReview, error) {
	return eval.LoadLogicReview(root, layout.StagingLogicReview(c), c)
}

// KeyChapter reports whether c is a key chapter of the checkpoint's
// current volume (judged twice, SPEC §6).
func KeyChapter(root *project.Root, cp *checkpoint.Checkpoint, c int) (bool, error) {
	v := 1
	if cp != nil && cp.CurrentVolume > 0 {
		v = cp.CurrentVolume
	}
	return volume.KeyChapter(root, v, c)
}
