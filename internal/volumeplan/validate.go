// Package volumeplan validates a staged volume plan (SPEC §6.1) and
// commits it: outline, storyline schedule, foreshadowing plan and chapter
// contracts move from staging/volumes/vol-VV/ into volumes/vol-VV/ under
// a journal, and the checkpoint enters WRITING for the new volume. The
// same checks serve a plan already in volumes/vol-VV/ that novel migrate
// adopts (CheckInPlace).
package volumeplan

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/novelsuite/novel/internal/bookplan"
	"github.com/novelsuite/novel/internal/boundary"
	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/foreshadow"
	"github.com/novelsuite/novel/internal/journal"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/lazyre"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/outline"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/settings"
	"github.com/novelsuite/novel/internal/stepid"
	"github.com/novelsuite/novel/internal/volume"
)

// The files of a plan, relative to the volume directory.
const (
	outlineFile    = layout.VolumeOutlineFile
	scheduleFile   = layout.VolumeScheduleFile
	foreshadowFile = layout.VolumeForeshadowFile
	contractsDir   = layout.VolumeContractsDir
)

// Step is the planning step of volume v (volume:VV:plan).
func Step(v int) stepid.Step {
	return stepid.Step{Volume: true, Number: v, Stage: stepid.Plan}
}

// staged is the staging path of a plan file.
func staged(v int, name string) string { return layout.StagingVolumeDir(v) + "/" + name }

// target is where a plan file lives once committed.
func target(v int, name string) string { return layout.VolumeDir(v) + "/" + name }

// Plan is a validated staged plan and what committing it moves.
type Plan struct {
	Volume           int
	Start, End       int
	Chapters         []int
	Moves            []journal.Move
	MissingContracts []int
	// Replace sets aside an existing, non-empty volumes/vol-VV (nil: none).
	Replace  *journal.Move
	Warnings []string

	contracts []int      // chapters whose contract (.json or .md) moves with a staged plan
	proposed  []proposal // the staged plan's new characters
}

// source is where a plan's files are read: staging/volumes/vol-VV/ (a
// volume commit) or volumes/vol-VV/ itself (a plan migrate adopts). One
// set of checks serves both.
type source struct {
	root   *project.Root
	v      int
	staged bool
}

// path is the plan file name of the source.
func (s source) path(name string) string {
	if s.staged {
		return staged(s.v, name)
	}
	return target(s.v, name)
}

// contractRoot is the root under which the plan's contracts sit at
// volumes/vol-VV/chapter-contracts/, where the packets' contract rules
// look for them.
func (s source) contractRoot() (*project.Root, error) {
	if s.staged {
		return stagingRoot(s.root)
	}
	return s.root, nil
}

// fix names the source's files in an error from contractRoot.
func (s source) fix(err error) error {
	if s.staged {
		return restage(err, s.v)
	}
	return err
}

func planCmd(v int) string { return "novel instructions volume:" + layout.PadVol(v) + ":plan" }

// checkState refuses a volume commit outside VOL_PLANNING for the current
// volume or QUICK_START for volume 1 (E_STATE, exit 3).
func checkState(cp *checkpoint.Checkpoint, v int) error {
	if (cp.State == checkpoint.VolPlanning && v == cp.CurrentVolume) || (cp.State == checkpoint.QuickStart && v == 1) {
		return nil
	}
	e := errs.Newf(errs.State, "只能在 VOL_PLANNING（当前卷 %d）或 QUICK_START（第 1 卷）时提交卷规划，当前为 %s，要提交的是第 %d 卷",
		"a volume plan can be committed only in VOL_PLANNING for the current volume (%d) or QUICK_START for volume 1; the project is in %s and the plan is for volume %d",
		cp.CurrentVolume, cp.State, v).
		With("orchestrator_state", cp.State).With("current_volume", cp.CurrentVolume).With("volume", v)
	switch cp.State {
	case checkpoint.VolReview:
		rv := layout.PadVol(cp.CurrentVolume)
		e.Hint("先回顾第 "+strconv.Itoa(cp.CurrentVolume)+" 卷（novel instructions volume:"+rv+":review，再 novel-commit volume-review --volume "+rv+"），或运行 novel-step volume --next 跳过回顾",
			"review volume "+strconv.Itoa(cp.CurrentVolume)+" first (novel instructions volume:"+rv+":review, then novel-commit volume-review --volume "+rv+"), or run novel-step volume --next to skip the review")
	case checkpoint.VolPlanning, checkpoint.QuickStart:
		cur := max(cp.CurrentVolume, 1)
		e.Hint("提交当前卷的规划：novel-commit volume --volume "+layout.PadVol(cur), "commit the current volume's plan: novel-commit volume --volume "+layout.PadVol(cur))
	default:
		e.Hint("本卷仍在写作中；卷末章节提交后（VOL_REVIEW）再规划下一卷", "the volume is still being written; plan the next one after its last chapter is committed (VOL_REVIEW)")
	}
	return e
}

// Validate checks the staged plan of volume v against the checkpoint
// without writing anything.
func Validate(root *project.Root, cp *checkpoint.Checkpoint, v int) (*Plan, error) {
	if err := checkState(cp, v); err != nil {
		return nil, err
	}
	start := cp.LastCompleted + 1
	if err := revision.Check(root, start); err != nil {
		return nil, err
	}
	s := source{root: root, v: v, staged: true}
	p, err := s.check(start)
	if err != nil {
		return nil, err
	}
	if err := checkCoverage(root, v, start, p); err != nil {
		return nil, err
	}

	// The planner may write only under staging/ (SPEC §3.2, §10).
	warns, err := boundary.Check(root, Step(v), "")
	if err != nil {
		return nil, err
	}
	p.Warnings = append(p.Warnings, warns...)

	for _, name := range []string{outlineFile, scheduleFile, foreshadowFile} {
		p.Moves = append(p.Moves, journal.Move{From: staged(v, name), To: target(v, name)})
	}
	for _, c := range p.contracts {
		// A plugin Markdown contract moves as it is, like a JSON one.
		name := contractsDir + "/" + s.contractName(c)
		p.Moves = append(p.Moves, journal.Move{From: staged(v, name), To: target(v, name)})
	}
	for _, pr := range p.proposed {
		for _, ext := range []string{".json", ".md"} {
			p.Moves = append(p.Moves, journal.Move{From: staged(v, charactersDir+"/"+pr.slug+ext), To: layout.CharactersActive + "/" + pr.slug + ext})
		}
	}
	if err := p.replacement(root); err != nil {
		return nil, err
	}
	return p, nil
}

// CheckInPlace checks a plan that already sits in volumes/vol-VV/ (the
// plugin's quick start moves its plan there) with the checks of a volume
// commit, its first chapter being start; nothing is written. What chapter
// packets do without is a warning instead: a missing storyline schedule
// or foreshadowing plan (optional inputs, SPEC §1) and a contract naming
// a character characters/active/ lacks (a packet warning, SPEC §6).
func CheckInPlace(root *project.Root, v, start int) (*Plan, error) {
	return source{root: root, v: v}.check(start)
}

// check runs the checks a plan's files must pass wherever they sit.
func (s source) check(start int) (*Plan, error) {
	root, v := s.root, s.v
	p := &Plan{Volume: v, Warnings: []string{}, MissingContracts: []int{}}
	have, err := s.present(p)
	if err != nil {
		return nil, err
	}
	o, err := checkOutline(root, s.path(outlineFile), v, start)
	if err != nil {
		return nil, err
	}
	p.Chapters = o.Chapters
	p.Start, p.End = o.Chapters[0], o.Chapters[len(o.Chapters)-1]
	if err := checkEarlierVolumes(root, s.path(outlineFile), v, p.Start, p.End); err != nil {
		return nil, err
	}
	storylines := map[int]string{}
	for _, c := range p.Chapters {
		blk, err := o.Block(c)
		if err != nil {
			return nil, err
		}
		storylines[c] = blk.StorylineID
	}

	// Contracts: each must agree with its outline block; a contract for a
	// chapter the outline does not head is refused.
	if p.contracts, err = checkContracts(s, p, storylines); err != nil {
		return nil, err
	}
	if have[scheduleFile] {
		if err := checkSchedule(root, s.path(scheduleFile), p, storylines); err != nil {
			return nil, err
		}
	}
	if have[foreshadowFile] {
		fsRel := s.path(foreshadowFile)
		data, err := root.ReadFile(fsRel)
		if err != nil {
			return nil, err
		}
		if _, err := foreshadow.Parse(data, fsRel); err != nil {
			return nil, err
		}
	}
	if p.proposed, err = checkCharacters(s, p, storylines); err != nil {
		return nil, err
	}
	return p, nil
}

// present names the plan files that exist. A missing outline is an
// error, and so is a staged plan's missing schedule or foreshadowing plan
// (the planner's expected outputs, SPEC §6.1); in place those two are
// optional inputs (SPEC §1) and their absence a warning.
func (s source) present(p *Plan) (map[string]bool, error) {
	have := map[string]bool{}
	for _, name := range []string{outlineFile, scheduleFile, foreshadowFile} {
		rel := s.path(name)
		if s.root.IsFile(rel) {
			have[name] = true
			continue
		}
		if _, err := s.root.Abs(rel); err != nil {
			return nil, err
		}
		switch {
		case s.staged || name == outlineFile:
			return nil, errs.Newf(errs.MissingFile, "卷规划缺少 %s", "the volume plan lacks %s", rel).
				With("file", rel).With("volume", s.v).
				Hint("运行规划代理生成它："+planCmd(s.v)+"（或 make -f pipeline.mk volume V="+strconv.Itoa(s.v)+"）",
					"run the planner to produce it: "+planCmd(s.v)+" (or make -f pipeline.mk volume V="+strconv.Itoa(s.v)+")")
		case name == scheduleFile:
			p.Warnings = append(p.Warnings, rel+" 不存在：本卷没有休眠线和交汇事件 / "+rel+" is missing: the volume has no dormant lines and no convergence events")
		default:
			p.Warnings = append(p.Warnings, rel+" 不存在：本卷没有伏笔计划 / "+rel+" is missing: the volume has no foreshadowing plan")
		}
	}
	return have, nil
}

// checkCoverage refuses an outline that does not cover exactly the
// chapters the volume is planned to have (SPEC §25): the book plan's
// range for the volume when book-plan.json has one, else target_chapters
// chapters from its first (nothing is enforced when neither is known).
// The error names the missing or extra chapters.
func checkCoverage(root *project.Root, v, start int, p *Plan) error {
	set, err := settings.Load(root, nil)
	if err != nil {
		return err
	}
	t, err := manifest.VolumeTarget(root, set, v, start)
	if err != nil || t.N == 0 {
		return err
	}
	want, source := [2]int{start, start + t.N - 1}, "target_chapters"
	if t.FromBook {
		want, source = t.Range, bookplan.File
	}
	if p.Start == want[0] && p.End == want[1] {
		return nil
	}
	var missing, extra []int
	for c := want[0]; c <= want[1] && len(missing) < 50; c++ {
		if c < p.Start || c > p.End {
			missing = append(missing, c)
		}
	}
	for _, c := range p.Chapters {
		if (c < want[0] || c > want[1]) && len(extra) < 50 {
			extra = append(extra, c)
		}
	}
	rel := staged(v, outlineFile)
	zhWhy, enWhy := "", ""
	if len(missing) > 0 {
		zhWhy += "缺少第 " + ints(missing) + " 章"
		enWhy += "chapters " + ints(missing) + " are missing"
	}
	if len(extra) > 0 {
		if zhWhy != "" {
			zhWhy, enWhy = zhWhy+"，", enWhy+"; "
		}
		zhWhy += "多出第 " + ints(extra) + " 章"
		enWhy += "chapters " + ints(extra) + " are extra"
	}
	e := errs.New(errs.Outline,
		fmt.Sprintf("卷大纲 %s 规划了第 %d–%d 章，但本卷应覆盖第 %d–%d 章（%s）：%s", rel, p.Start, p.End, want[0], want[1], source, zhWhy),
		fmt.Sprintf("the volume outline %s plans chapters %d–%d but the volume must cover chapters %d–%d (%s): %s", rel, p.Start, p.End, want[0], want[1], source, enWhy))
	e.With("file", rel).With("volume", v).With("expected_range", []int{want[0], want[1]}).With("source", source)
	if len(missing) > 0 {
		e.With("missing_chapters", missing)
	}
	if len(extra) > 0 {
		e.With("extra_chapters", extra)
	}
	if t.FromBook {
		return e.Hint("按全书规划补齐或删去这些章节后重试，或重新规划："+planCmd(v)+"；要改变本卷的章数，先在卷末回顾中更新 "+bookplan.File,
			"outline exactly the book plan's chapters and retry, or re-plan: "+planCmd(v)+"; to change the volume's length, update "+bookplan.File+" in a volume review first")
	}
	return e.Hint("按目标章数补齐或删去这些章节后重试，或重新规划："+planCmd(v)+"；要改变每卷章数，修改 settings.json 的 chapters_per_volume",
		"outline exactly target_chapters chapters and retry, or re-plan: "+planCmd(v)+"; to change the volume length, set chapters_per_volume in settings.json")
}

// checkSchedule parses the storyline schedule and warns about convergence
// events outside the volume and chapters on a dormant line.
func checkSchedule(root *project.Root, schedRel string, p *Plan, storylines map[int]string) error {
	data, err := root.ReadFile(schedRel)
	if err != nil {
		return err
	}
	sched, err := volume.ParseSchedule(data, schedRel)
	if err != nil {
		return err
	}
	for _, ev := range sched.Events {
		if ev.Start < p.Start || ev.End > p.End {
			p.Warnings = append(p.Warnings, "交汇事件的章节范围 ["+strconv.Itoa(ev.Start)+","+strconv.Itoa(ev.End)+"] 超出本卷 ["+
				strconv.Itoa(p.Start)+","+strconv.Itoa(p.End)+"]（"+schedRel+"） / a convergence event range ["+strconv.Itoa(ev.Start)+","+
				strconv.Itoa(ev.End)+"] lies outside the volume ["+strconv.Itoa(p.Start)+","+strconv.Itoa(p.End)+"] ("+schedRel+")")
		}
	}
	for _, c := range p.Chapters {
		if sched.IsDormant(storylines[c]) {
			p.Warnings = append(p.Warnings, "第 "+strconv.Itoa(c)+" 章的故事线 "+storylines[c]+" 在本卷排期中是休眠线（"+schedRel+
				"） / chapter "+strconv.Itoa(c)+" is on "+storylines[c]+", a dormant line in "+schedRel)
		}
	}
	return nil
}

// checkOutline parses the plan's outline rel with the one recogniser and
// checks its chapter numbers: first == start, then +1 each, in file order.
func checkOutline(root *project.Root, rel string, v, start int) (*outline.Outline, error) {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	o, err := outline.Parse(data, rel, v)
	if err != nil {
		return nil, err
	}
	if err := checkHeadings(string(data), rel, start); err != nil {
		return nil, err
	}
	if len(o.Chapters) == 0 {
		return nil, errs.Newf(errs.Outline, "卷大纲 %s 中没有任何章节标题（应从第 %d 章开始，格式 ### 第 %d 章: 章名）",
			"the volume outline %s heads no chapter (it should start at chapter %d, headed like ### 第 %d 章: 章名)", rel, start, start).
			With("file", rel).With("chapter", start).With("expected_start", start).
			Hint("补写章节大纲后重试，或重新规划："+planCmd(v), "outline the chapters and retry, or re-plan: "+planCmd(v))
	}
	seen := map[int]bool{}
	for i, c := range o.Chapters {
		want := start + i
		switch {
		case seen[c]:
			// Headed twice: outline.Block names both lines.
			_, err := o.Block(c)
			return nil, overlapped(err, c)
		case i == 0 && c != start:
			return nil, seqErr(rel, v, c, "卷大纲 %s 从第 %d 章开始，但上一章是第 %d 章，应从第 %d 章开始（章号必须接续，不能重叠或留空）",
				"the volume outline %s starts at chapter %d but the last completed chapter is %d; it must start at chapter %d (no overlap, no gap)",
				rel, c, start-1, start).With("expected_start", start).With("last_completed_chapter", start-1)
		case c < want:
			return nil, seqErr(rel, v, c, "卷大纲 %s 中第 %d 章出现在第 %d 章之后：章号必须按顺序逐一递增",
				"the volume outline %s heads chapter %d after chapter %d: chapter numbers must run in order, one by one",
				rel, c, o.Chapters[i-1]).With("after_chapter", o.Chapters[i-1])
		case c > want:
			missing := make([]int, 0, c-want)
			for m := want; m < c && len(missing) < 50; m++ {
				missing = append(missing, m)
			}
			return nil, seqErr(rel, v, want, "卷大纲 %s 缺少第 %d 章：第 %d 章之后直接是第 %d 章（章号不能留空）",
				"the volume outline %s lacks chapter %d: chapter %d is followed by chapter %d (no gaps allowed)",
				rel, want, want-1, c).With("missing_chapters", missing).With("next_headed", c)
		}
		seen[c] = true
	}
	return o, nil
}

func seqErr(rel string, v, c int, zh, en string, args ...any) *errs.Error {
	return errs.Newf(errs.Outline, zh, en, args...).With("file", rel).With("chapter", c).
		Hint("修正卷大纲的章节编号后重试，或重新规划："+planCmd(v), "fix the chapter numbers of the outline and retry, or re-plan: "+planCmd(v))
}

func overlapped(err error, c int) error {
	if e := errs.As(err); e != nil {
		return e.With("chapter", c)
	}
	return err
}

// chapterish spots a heading meant as a chapter heading that the
// recogniser does not accept (第8章节, Chapter 8, a wrong level, an
// indented heading); other headings (acts, notes) are left alone.
var chapterish = lazyre.New(`(?i)章|^\s*chapter\s*\d`)

// checkHeadings refuses chapter-looking headings that do not parse, so a
// typo is reported as such rather than as a gap.
func checkHeadings(text, rel string, start int) error {
	prev := start - 1
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeft(line, " \t\u3000")
		if !strings.HasPrefix(trimmed, "#") {
			continue
		}
		if c, _, ok := outline.ParseHeading(line); ok {
			prev = c
			continue
		}
		n := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		rest := trimmed[n:]
		_, _, asChapter := outline.ParseHeading("###" + rest)
		if !asChapter && !(n == 3 && chapterish().MatchString(rest)) {
			continue
		}
		why, whyEn := "无法识别", "does not parse"
		switch {
		case asChapter && trimmed != line:
			why, whyEn = "前面不能有空白", "must start at the beginning of the line"
		case asChapter:
			why, whyEn = "必须是三级标题（###）", "must be a level-3 heading (###)"
		}
		return errs.New(errs.Outline,
			fmt.Sprintf("卷大纲 %s 第 %d 行的章节标题“%s”%s（第 %d 章之后；格式 ### 第 %d 章: 章名）", rel, i+1, line, why, prev, prev+1),
			fmt.Sprintf("the volume outline %s line %d: chapter heading %q %s (after chapter %d; expected ### 第 %d 章: 章名)", rel, i+1, line, whyEn, prev, prev+1)).
			With("file", rel).With("line", i+1).With("chapter", prev+1).With("heading", line).
			Hint("把标题改为 ### 第 "+strconv.Itoa(prev+1)+" 章: 章名", "rewrite the heading as ### 第 "+strconv.Itoa(prev+1)+" 章: 章名")
	}
	return nil
}

// checkEarlierVolumes refuses a plan (outline rel) whose chapters an
// earlier volume's outline already heads.
func checkEarlierVolumes(root *project.Root, rel string, v, start, end int) error {
	for k := v - 1; k >= 1; k-- {
		earlier := layout.Outline(k)
		if !root.IsFile(earlier) {
			continue
		}
		o, err := outline.Load(root, k)
		if err != nil {
			return err
		}
		for _, c := range o.Chapters {
			if c >= start && c <= end {
				return errs.Newf(errs.Outline, "卷规划的第 %d 章与第 %d 卷大纲 %s 重叠", "chapter %d of the volume plan overlaps the outline of volume %d (%s)", c, k, earlier).
					With("file", rel).With("chapter", c).With("overlaps", earlier).With("volume", v).
					Hint("新卷的章号必须接在已有各卷之后；修正卷大纲或重新规划："+planCmd(v),
						"a new volume's chapters must follow the earlier volumes'; fix the outline or re-plan: "+planCmd(v))
			}
		}
	}
	return nil
}

var contractName = lazyre.New(`^chapter-(\d+)\.(json|md)$`)

// checkContracts validates the plan's contracts and returns the chapters
// that have one.
func checkContracts(s source, p *Plan, storylines map[int]string) ([]int, error) {
	root, v := s.root, s.v
	dirRel := s.path(contractsDir)
	abs, err := root.Abs(dirRel)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	if ents, err := os.ReadDir(abs); err == nil {
		for _, e := range ents {
			m := contractName().FindStringSubmatch(e.Name())
			n, _ := strconv.Atoi(m2(m))
			if m == nil || e.IsDir() || "chapter-"+layout.Pad(n)+"."+m[2] != e.Name() {
				p.Warnings = append(p.Warnings, "忽略 "+dirRel+"/"+e.Name()+"（不是 chapter-NNN.json） / ignored "+dirRel+"/"+e.Name()+" (not chapter-NNN.json)")
				continue
			}
			if m[2] == "json" && storylines[n] == "" {
				rel := dirRel + "/" + e.Name()
				return nil, errs.Newf(errs.Contract, "章节契约 %s 属于第 %d 章，但卷大纲没有这一章", "the chapter contract %s is for chapter %d, which the volume outline does not head", rel, n).
					With("file", rel).With("chapter", n).With("chapters", p.Chapters).
					Hint("删除该契约，或在卷大纲中补上第 "+strconv.Itoa(n)+" 章", "remove the contract, or outline chapter "+strconv.Itoa(n))
			}
			names[e.Name()] = true
		}
	} else if !os.IsNotExist(err) {
		return nil, errs.Newf(errs.IO, "无法读取目录 %s：%v", "cannot read directory %s: %v", dirRel, err).With("file", dirRel)
	}
	croot, err := s.contractRoot()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, c := range p.Chapters {
		if !names[layout.ContractFile(c)] && !names["chapter-"+layout.Pad(c)+".md"] {
			p.MissingContracts = append(p.MissingContracts, c)
			continue
		}
		ok, err := manifest.CheckContract(croot, v, c, storylines[c])
		if err != nil {
			return nil, s.fix(err)
		}
		if ok {
			out = append(out, c)
		}
	}
	if len(p.MissingContracts) > 0 {
		p.Warnings = append(p.Warnings, "以下章节没有章节契约，写作时将只按大纲："+ints(p.MissingContracts)+
			" / these chapters have no chapter contract and will be written from the outline alone: "+ints(p.MissingContracts))
	}
	return out, nil
}

func m2(m []string) string {
	if m == nil {
		return ""
	}
	return m[1]
}

// stagingRoot is staging/ seen as a project root, so the contract rules
// written for volumes/vol-VV/ apply unchanged to the staged copy.
func stagingRoot(root *project.Root) (*project.Root, error) {
	abs, err := root.Abs(layout.Staging)
	if err != nil {
		return nil, err
	}
	return project.New(abs)
}

// restage rewrites the volumes/vol-VV/ paths in an error from the staging
// root into the staging/volumes/vol-VV/ paths the user sees.
func restage(err error, v int) error {
	e := errs.As(err)
	if e == nil {
		return err
	}
	fix := func(s string) string {
		vd := layout.VolumeDir(v) + "/"
		s = strings.ReplaceAll(s, layout.Staged(vd), "\x00")
		s = strings.ReplaceAll(s, vd, layout.Staged(vd))
		return strings.ReplaceAll(s, "\x00", layout.Staged(vd))
	}
	e.Zh, e.En, e.HintZh, e.HintEn = fix(e.Zh), fix(e.En), fix(e.HintZh), fix(e.HintEn)
	for k, val := range e.Details {
		if s, ok := val.(string); ok {
			e.Details[k] = fix(s)
		}
	}
	return e
}

// replacement sets aside an existing, non-empty volumes/vol-VV so the
// committed plan never mixes with an older one (nothing is deleted).
func (p *Plan) replacement(root *project.Root) error {
	dir := layout.VolumeDir(p.Volume)
	abs, err := root.Abs(dir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(abs)
	if err != nil || len(ents) == 0 {
		return nil
	}
	for n := 1; ; n++ {
		to := layout.VolumeReplaced(p.Volume, n)
		if _, err := root.Abs(to); err != nil {
			return err
		}
		if !root.Exists(to) {
			p.Replace = &journal.Move{From: dir, To: to}
			p.Warnings = append(p.Warnings, dir+" 已存在，原内容移到 "+to+" / "+dir+" already exists; its files move to "+to)
			return nil
		}
	}
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
