package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
)

// Replay answers from recordings: DIR/chapter-NNN/{agent}.{mode}.r{K}.{md|json}
// (SPEC §11); volume packets read DIR/volume-VV/plot-architect.{mode}.r0.json
// (plan, review), a batch of contracts plot-architect.contracts-AAA-BBB.r0.json;
// setup packets DIR/setup/{agent}.setup.r0.json.
// A retry of the same step reads the same file.
type Replay struct {
	Dir string
}

// Name implements Backend.
func (Replay) Name() string { return "replay" }

// Reasks implements Backend: a recording never changes, so asking again
// is pointless.
func (Replay) Reasks() int { return 0 }

// RecordingPath is the recording a packet is answered from.
func (r Replay) RecordingPath(p *Packet) string {
	mode := p.Agent.Mode
	if a, b, ok := p.Batch(); ok {
		// Each batch of contracts has its own recording.
		mode += "-" + layout.Pad(a) + "-" + layout.Pad(b)
	}
	name := p.Agent.Name + "." + mode + ".r" + strconv.Itoa(p.RevisionRound) + "." + p.Format()
	if p.IsSetup() {
		return filepath.Join(r.Dir, "setup", name)
	}
	if p.IsVolume() {
		return filepath.Join(r.Dir, "volume-"+layout.PadVol(p.Volume), name)
	}
	return filepath.Join(r.Dir, "chapter-"+layout.Pad(p.Chapter), name)
}

// Ask implements Backend.
func (r Replay) Ask(p *Packet, _ error) (*Reply, error) {
	file := r.RecordingPath(p)
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() {
		return nil, errs.Newf(errs.Agent, "回放目录中没有 %s 的录制输出：%s", "no replay recording for %s: %s", p.Step, file).
			With("file", file).With("step", p.Step).With("agent", p.Agent.Name).With("mode", p.Agent.Mode).
			With("round", p.RevisionRound).
			Hint("在回放目录中放入该文件（命名为 chapter-NNN/{agent}.{mode}.r{K}.{md|json}，卷规划为 volume-VV/plot-architect.plan.r0.json，设定步骤为 setup/{agent}.setup.r0.json），或换用真实执行器",
				"add that recording (named chapter-NNN/{agent}.{mode}.r{K}.{md|json}, volume-VV/plot-architect.plan.r0.json for volume planning, setup/{agent}.setup.r0.json for setup steps) or use a real executor")
	}
	data, err := jsonio.ReadFile(file, file)
	if err != nil {
		return nil, err
	}
	// Replays report a deterministic size-based usage so run logs and
	// reports have something to show.
	return &Reply{Text: data, Source: file, Model: "replay",
		Tokens: Tokens{Prompt: 0, Completion: utf8.RuneCount(data)}}, nil
}
