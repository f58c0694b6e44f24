// Package agent runs executors: it reads an instruction packet (SPEC §6),
// asks a backend for the agent's answer, parses and validates that answer
// per agent role, and writes the declared outputs (SPEC §10 executor
// contract, §11). Backends only produce answers; everything about packets,
// outputs and the run log is shared, so the replay, openai and command
// backends behave the same.
package agent

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/manifest"
	"github.com/novelsuite/novel/internal/project"
)

// Output delivery modes of an expected output (manifest's).
const (
	ViaFile   = manifest.ViaFile
	ViaStdout = manifest.ViaStdout
)

// Info is the packet's agent block.
type Info = manifest.Agent

// Expected is one declared output.
type Expected = manifest.Output

// Packet is an instruction packet as novel-manifest writes it — the one
// packet type, manifest.Packet — with what the executor adds on reading.
type Packet struct {
	manifest.Packet
	// Chapter is the packet's chapter as a number (0 for a volume
	// packet, whose "chapter" is null); it shadows the embedded pointer.
	Chapter int `json:"-"`
	// File is how the packet was named (for error messages).
	File string `json:"-"`
}

// LoadPacket reads a packet file (abs is its location, shown as name).
func LoadPacket(abs, name string) (*Packet, error) {
	data, err := jsonio.ReadFile(abs, name)
	if err != nil {
		if e := errs.As(err); e != nil && e.Code == errs.MissingFile {
			// A packet is made by novel instructions; name the exact
			// command when the file name says which step it is.
			cmd := "novel instructions STEP --write-manifest"
			if step, role, ok := layout.PacketStep(filepath.Base(name)); ok && role != "" {
				cmd = "novel instructions " + step + " --role " + role + " --write-manifest"
			} else if ok {
				cmd = "novel instructions " + step + " --write-manifest"
			}
			e.Hint("先生成指令包："+cmd+"（输出的 written_manifest_path 就是要交给 apply 的路径）",
				"make the packet first: "+cmd+" (its written_manifest_path is the path to apply)")
		}
		return nil, err
	}
	return ParsePacket(data, name)
}

// ParsePacket decodes and checks a packet: chapter ≥ 1, an agent step with
// a name and mode usable in file names, outputs that are project-relative
// paths inside staging/.
func ParsePacket(data []byte, name string) (*Packet, error) {
	var p Packet
	if err := jsonio.Decode(data, name, &p); err != nil {
		return nil, err
	}
	p.File = name
	if p.Packet.Chapter != nil {
		p.Chapter = *p.Packet.Chapter
	}
	if p.IsSetup() {
		// Setup packets (setup:X) carry "chapter": null and no volume.
	} else if p.IsVolume() {
		// Volume packets (volume:VV:plan) carry "chapter": null.
		if p.Volume < 1 {
			return nil, packetErr(name, "卷规划指令包的 volume 必须是 ≥ 1 的整数", "volume must be an integer ≥ 1 in a volume packet", "volume")
		}
	} else if p.Chapter < 1 {
		return nil, packetErr(name, "chapter 必须是 ≥ 1 的整数", "chapter must be an integer ≥ 1", "chapter")
	}
	if p.RevisionRound < 0 {
		return nil, packetErr(name, "revision_round 不能为负数", "revision_round must not be negative", "revision_round")
	}
	if p.Agent.Kind == manifest.KindDeterministic {
		return nil, errs.Newf(errs.Usage, "%s 是确定性步骤 %s 的指令包，不需要执行器", "%s is the packet of the deterministic step %s; it needs no executor", name, p.Step).
			With("file", name).Hint("确定性步骤请运行指令包里的 command", "run the packet's command instead")
	}
	if !project.IsSlug(p.Agent.Name) {
		return nil, packetErr(name, "agent.name 必须是 slug（如 chapter-writer）", "agent.name must be a slug such as chapter-writer", "agent.name")
	}
	if !project.IsSlug(p.Agent.Mode) {
		return nil, packetErr(name, "agent.mode 必须是 slug（如 draft）", "agent.mode must be a slug such as draft", "agent.mode")
	}
	if len(p.ExpectedOutputs) == 0 {
		return nil, packetErr(name, "expected_outputs 为空", "expected_outputs is empty", "expected_outputs")
	}
	for i := range p.ExpectedOutputs {
		o := &p.ExpectedOutputs[i]
		if o.Via == "" {
			o.Via = ViaFile
		}
		if o.Via != ViaFile && o.Via != ViaStdout {
			return nil, packetErr(name, "expected_outputs 的 via 只能是 file 或 stdout", "expected_outputs via must be file or stdout", "expected_outputs.via")
		}
		if err := CheckOutputPath(o.Path); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

func packetErr(file, zh, en, field string) error {
	return errs.New(errs.Schema, fmt.Sprintf("指令包 %s 无效：%s", file, zh), fmt.Sprintf("invalid packet %s: %s", file, en)).
		With("file", file).With("field", field).
		Hint("用 novel-manifest packet STEP --write-manifest 重新生成指令包", "regenerate it with novel-manifest packet STEP --write-manifest")
}

// IsSetup reports a setup packet (step setup:world|characters|book|style).
func (p *Packet) IsSetup() bool { return strings.HasPrefix(p.Step, "setup:") }

// IsVolume reports a volume-planning packet (step volume:VV:plan).
func (p *Packet) IsVolume() bool { return strings.HasPrefix(p.Step, "volume:") }

// CheckOutputPath refuses any output path that is not a clean
// project-relative path under staging/ (SPEC §15: E_PATH).
func CheckOutputPath(p string) error {
	clean := path.Clean(p)
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || clean != p ||
		!strings.HasPrefix(clean, layout.Staging+"/") {
		return errs.Newf(errs.Path, "输出路径 %q 不在 staging/ 之内", "output path %q is not inside staging/", p).
			With("path", p).
			Hint("执行器只能写 staging/ 下的项目相对路径；检查指令包的 expected_outputs", "executors may only write project-relative paths under staging/; check the packet's expected_outputs")
	}
	return nil
}

// Output returns the declared output with the given delivery, first one
// whose path satisfies match (nil match accepts any).
func (p *Packet) Output(via string, match func(string) bool) (Expected, bool) {
	for _, o := range p.ExpectedOutputs {
		if o.Via == via && (match == nil || match(o.Path)) {
			return o, true
		}
	}
	return Expected{}, false
}
