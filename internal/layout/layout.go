// Package layout names every file of a novel project (SPEC §2). All paths
// are project-relative with forward slashes; callers resolve them through
// project.Root so containment is always checked.
package layout

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Pad formats a chapter number as NNN (3 digits, more when ≥ 1000).
func Pad(c int) string { return fmt.Sprintf("%03d", c) }

// PadVol formats a volume number as VV.
func PadVol(v int) string { return fmt.Sprintf("%02d", v) }

const (
	Checkpoint       = ".checkpoint.json"
	Settings         = "settings.json"
	Brief            = "brief.md"
	StyleProfile     = "style-profile.json"
	AIBlacklist      = "ai-blacklist.json"
	PlatformProfile  = "platform-profile.json"
	StyleDrift       = "style-drift.json"
	WorldRules       = "world/rules.json"
	CharactersActive = "characters/active"
	StorylineSpec    = "storylines/storyline-spec.json"
	Storylines       = "storylines/storylines.json" // setup:world's storylines (SPEC §17)
	CharactersDir    = "characters"
	VolumesDir       = "volumes"
	StateBackups     = "state/backups" // every file a repair (rebuild) replaced
	CurrentState     = "state/current-state.json"
	Changelog        = "state/changelog.jsonl"
	Baseline         = "state/baseline.json"
	GlobalForeshadow = "foreshadowing/global.json"
	UnknownEntities  = "logs/unknown-entities.jsonl"
	Mentions         = "state/mentions.jsonl"
	ContinuityLatest = "logs/continuity/latest.json"
	ImportLog        = "logs/import.json"
	LockDir          = ".novel.lock"
	LockInfo         = ".novel.lock/info.json"
	LockFlock        = ".novel.lock.flock"
	Staging          = "staging"
	Blocked          = "staging/BLOCKED.json"
	ResearchDir      = "research"
	WorldDir         = "world"
	ChaptersDir      = "chapters"
	SummariesDir     = "summaries"
	EvaluationsDir   = "evaluations"
	LogsDir          = "logs"
	StorylinesDir    = "storylines"
	ReviewsDir       = "reviews"
)

// Managed are the files and folders the suite owns (SPEC §22.1): no
// output the user names with -o/--out may land on or under them.
var Managed = []string{Checkpoint, ChaptersDir, SummariesDir, "state", EvaluationsDir, VolumesDir, WorldDir,
	CharactersDir, StorylinesDir, "foreshadowing", Staging, Settings, Brief}

// Staged is where rel waits in staging before a commit moves it to rel.
func Staged(rel string) string { return Staging + "/" + rel }

// CharacterContract and CharacterProfile are an active character's files.
func CharacterContract(slug string) string { return CharactersActive + "/" + slug + ".json" }
func CharacterProfile(slug string) string  { return CharactersActive + "/" + slug + ".md" }

// RevisionUnderscore is the seed-era name of chapter c's revision file
// (read only).
func RevisionUnderscore(c int) string {
	return ChaptersDir + "/chapter_" + Pad(c) + "_revision.json"
}

// Audit outputs (SPEC §21): the continuity report of the window ending at
// chapter b and the inventories written every 10th chapter.
func ContinuityReport(b int) string {
	return "logs/continuity/continuity-report-" + Pad(b) + ".json"
}

const (
	ForeshadowInventory = "logs/foreshadowing/latest.json"
	RhythmInventory     = "logs/storylines/rhythm-latest.json"
	BridgesInventory    = "logs/storylines/broken-bridges-latest.json"
)

// VolumeDir is volumes/vol-VV.
func VolumeDir(v int) string { return "volumes/vol-" + PadVol(v) }

// The files of a volume plan, relative to its volume directory.
const (
	VolumeOutlineFile    = "outline.md"
	VolumeScheduleFile   = "storyline-schedule.json"
	VolumeForeshadowFile = "foreshadowing.json"
	VolumeContractsDir   = "chapter-contracts"
)

// Outline is the volume outline.
func Outline(v int) string { return VolumeDir(v) + "/" + VolumeOutlineFile }

// ContractFile is the file name of chapter c's contract in a contracts
// directory.
func ContractFile(c int) string { return "chapter-" + Pad(c) + ".json" }

// Contract is the L3 chapter contract of chapter c in volume v.
func Contract(v, c int) string {
	return VolumeDir(v) + "/" + VolumeContractsDir + "/" + ContractFile(c)
}

// ContractMarkdown is the plugin's Markdown contract, read when there is
// no JSON contract (SPEC §22).
func ContractMarkdown(v, c int) string {
	return VolumeDir(v) + "/" + VolumeContractsDir + "/chapter-" + Pad(c) + ".md"
}

// Schedule is the volume storyline schedule.
func Schedule(v int) string { return VolumeDir(v) + "/" + VolumeScheduleFile }

// PlanForeshadow is the volume foreshadowing plan.
func PlanForeshadow(v int) string { return VolumeDir(v) + "/" + VolumeForeshadowFile }

// Committed products.
func Chapter(c int) string     { return "chapters/chapter-" + Pad(c) + ".md" }
func Summary(c int) string     { return "summaries/chapter-" + Pad(c) + "-summary.md" }
func Eval(c int) string        { return "evaluations/chapter-" + Pad(c) + "-eval.json" }
func Crossref(c int) string    { return "state/chapter-" + Pad(c) + "-crossref.json" }
func LogicReview(c int) string { return "reviews/chapter-" + Pad(c) + "-logic-review.json" }
func Revision(c int) string    { return "chapters/chapter-" + Pad(c) + "-revision.json" }
func ChapterLog(c int) string  { return "logs/chapter-" + Pad(c) + "-log.json" }
func Memory(id string) string  { return "storylines/" + id + "/memory.md" }
func MemoryHistory(id string, c int) string {
	return "storylines/" + id + "/history/memory-" + Pad(c) + ".md"
}

// Staging products of chapter c.
func StagingChapter(c int) string       { return "staging/chapters/chapter-" + Pad(c) + ".md" }
func StagingSummary(c int) string       { return "staging/summaries/chapter-" + Pad(c) + "-summary.md" }
func StagingDelta(c int) string         { return "staging/state/chapter-" + Pad(c) + "-delta.json" }
func StagingCrossref(c int) string      { return "staging/state/chapter-" + Pad(c) + "-crossref.json" }
func StagingStoryline(id string) string { return "staging/storylines/" + id }
func StagingMemory(id string) string    { return StagingStoryline(id) + "/memory.md" }
func StagingEval(c int) string          { return "staging/evaluations/chapter-" + Pad(c) + "-eval.json" }
func StagingEvalSecondary(c int) string {
	return "staging/evaluations/chapter-" + Pad(c) + "-eval.secondary.json"
}
func StagingGate(c int) string { return "staging/evaluations/chapter-" + Pad(c) + "-gate.json" }
func StagingLogicReview(c int) string {
	return "staging/reviews/chapter-" + Pad(c) + "-logic-review.json"
}
func StagingPreCopy(c int, stage string) string {
	return "staging/chapters/chapter-" + Pad(c) + preCopyInfix + stage + ".md"
}

// preCopyInfix marks the chapter copies kept before a refine, polish or
// revision (StagingPreCopy).
const preCopyInfix = ".pre-"

// IsPreCopy reports whether rel is such a pre-stage copy.
func IsPreCopy(rel string) bool { return strings.Contains(path.Base(rel), preCopyInfix) }
func Packet(c int, stage string) string {
	return "staging/manifests/chapter-" + Pad(c) + "-" + stage + ".packet.json"
}
func RunLog(c int) string { return "staging/logs/chapter-" + Pad(c) + "-run.jsonl" }
func RevisionRound(c, k int) string {
	return "staging/revisions/chapter-" + Pad(c) + "/r" + strconv.Itoa(k)
}
func RevisionsDir(c int) string  { return StagingRevisions + "/chapter-" + Pad(c) }
func CommitJournal(c int) string { return "staging/commit-" + Pad(c) + ".journal.json" }
func Abandoned(c, n int) string {
	return "staging/abandoned/chapter-" + Pad(c) + "-" + strconv.Itoa(n)
}
func RolledBack(c int) string { return "staging/rolled-back/chapter-" + Pad(c) }

// RollbackJournal is the journal of `novel-commit rollback` (SPEC §8.4).
const RollbackJournal = "staging/rollback.journal.json"

// AmendJournal is the journal of `novel-commit amend --chapter C` (SPEC §23).
func AmendJournal(c int) string { return "staging/amend-" + Pad(c) + ".journal.json" }

// SetupJournal is the commit journal of a setup stage (SPEC §17).
func SetupJournal(stage string) string { return "staging/setup-" + stage + ".journal.json" }

// MigrateJournal is the journal of `novel migrate` (SPEC §22).
const MigrateJournal = "staging/migrate.journal.json"

// Volume-plan staging (SPEC §6.1).
func StagingVolumeDir(v int) string { return StagingVolumes + "/vol-" + PadVol(v) }

// Snapshot is the write-boundary snapshot recorded beside a packet
// (stage may carry a role suffix, e.g. "judge.secondary").
func Snapshot(c int, stage string) string {
	return "staging/manifests/chapter-" + Pad(c) + "-" + stage + ".snapshot"
}

// VolumePacket and VolumeSnapshot are the volume-plan packet files (SPEC §6.1).
func VolumePacket(v int) string   { return VolumeStepPacket(v, "plan") }
func VolumeSnapshot(v int) string { return VolumeStepSnapshot(v, "plan") }

// VolumeStepPacket and VolumeStepSnapshot are the packet and snapshot of a
// volume step (plan, contracts, review).
func VolumeStepPacket(v int, stage string) string {
	return "staging/manifests/volume-" + PadVol(v) + "-" + stage + ".packet.json"
}
func VolumeStepSnapshot(v int, stage string) string {
	return "staging/manifests/volume-" + PadVol(v) + "-" + stage + ".snapshot"
}

// VolumeReview is the author's-eye review of a finished volume (SPEC §23);
// StagingVolumeReview is where the planner writes it.
func VolumeReview(v int) string        { return VolumeDir(v) + "/review.md" }
func StagingVolumeReview(v int) string { return StagingVolumeDir(v) + "/review.md" }

// StagingManifests holds packets and snapshots; StagingStamps the pipeline's stamps.
const (
	StagingManifests = "staging/manifests"
	StagingLogs      = "staging/logs"
	StagingStamps    = "staging/.stamps"
	StagingRevisions = "staging/revisions"
	StagingVolumes   = "staging/volumes"
	// StagingSetup mirrors the final paths of the setup steps' outputs;
	// StagingReplaced keeps committed files a --replace or REDO set aside.
	StagingSetup    = "staging/setup"
	StagingReplaced = "staging/replaced"
)

// AgentAuditReport is the continuity auditor's stored review of the
// window ending at chapter b.
func AgentAuditReport(b int) string { return "logs/continuity/agent-report-" + Pad(b) + ".json" }

// AuditPacket is the packet of the continuity audit ending at chapter c.
func AuditPacket(c int) string { return StagingManifests + "/audit-" + Pad(c) + ".packet.json" }

// PacketStep reads the base name of a chapter or audit packet (Packet,
// AuditPacket) back into its step id and role ("" or "secondary"); ok is
// false for any other name.
func PacketStep(base string) (step, role string, ok bool) {
	name, found := strings.CutSuffix(base, ".packet.json")
	if !found {
		return "", "", false
	}
	if num, found := strings.CutPrefix(name, "audit-"); found {
		if !padded(num) {
			return "", "", false
		}
		return "audit:" + num, "", true
	}
	rest, found := strings.CutPrefix(name, "chapter-")
	num, stage, cut := strings.Cut(rest, "-")
	if !found || !cut || !padded(num) {
		return "", "", false
	}
	if s, found := strings.CutSuffix(stage, ".secondary"); found {
		stage, role = s, "secondary"
	}
	if stage == "" || strings.Trim(stage, "abcdefghijklmnopqrstuvwxyz-") != "" {
		return "", "", false
	}
	return "chapter:" + num + ":" + stage, role, true
}

// padded: a chapter number as Pad writes it (3 or more digits).
func padded(num string) bool {
	return len(num) >= 3 && strings.Trim(num, "0123456789") == ""
}

// StagingAuditReview is where the continuity reviewer writes the review of
// the audit window ending at chapter b.
func StagingAuditReview(b int) string { return "staging/continuity/audit-" + Pad(b) + ".json" }

// AmendWork holds an amend's recomputed files until its journal moves
// them; Amended keeps the replaced committed files of chapter c (the n-th
// amend of it gets -n).
func AmendWork(c int) string { return "staging/amend/chapter-" + Pad(c) }
func Amended(c, n int) string {
	if n <= 1 {
		return "staging/amended/chapter-" + Pad(c)
	}
	return "staging/amended/chapter-" + Pad(c) + "-" + strconv.Itoa(n)
}

// StagingChapterDirs hold the per-chapter staging files named chapter-NNN…
// (listing these few directories is cheaper than walking staging/).
var StagingChapterDirs = []string{
	"staging/chapters", "staging/summaries", "staging/state", "staging/evaluations",
	"staging/reviews", StagingManifests, StagingLogs, StagingStamps,
}

// StagingChapterFiles is how a plan names every per-chapter staging file
// of chapter c (in StagingChapterDirs) that its cleanup step removes.
func StagingChapterFiles(c int) string { return "staging/…/chapter-" + Pad(c) + "*" }

// Stamp is the pipeline's resume marker of a stage of one revision round,
// written only after the stage completed (SPEC §10).
func Stamp(c int, stage string, round int) string {
	return StagingStamps + "/chapter-" + Pad(c) + "-" + stage + "-r" + strconv.Itoa(round)
}

// RunPending marks an agent attempt in flight; RunUsage collects the
// executor's {"model","tokens"} records (NOVEL_RUN_LOG) for that attempt.
func RunPending(c int) string { return StagingLogs + "/chapter-" + Pad(c) + "-run.pending.json" }
func RunUsage(c int) string   { return StagingLogs + "/chapter-" + Pad(c) + "-run.usage.jsonl" }

// StepsRunLog is the run log of every agent run that is not a chapter
// stage (setup, volume plans, contracts and reviews, amend/backfill
// summaries, the continuity auditor): one runlog line per executor
// attempt, kept with the committed logs since no commit moves it (SPEC
// §18). StepsRunPending and StepsRunUsage are its attempt in flight and
// that attempt's executor usage records (NOVEL_RUN_LOG).
const (
	StepsRunLog     = "logs/steps-run.jsonl"
	StepsRunPending = StagingLogs + "/steps-run.pending.json"
	StepsRunUsage   = StagingLogs + "/steps-run.usage.jsonl"
)

// VolumeJournal is the journal of a volume-plan commit (SPEC §6.1, §8.4).
func VolumeJournal(v int) string { return "staging/volume-" + PadVol(v) + ".journal.json" }

// VolumeReviewJournal is the journal of a volume-review commit (SPEC §23).
func VolumeReviewJournal(v int) string {
	return "staging/volume-" + PadVol(v) + "-review.journal.json"
}

// VolumeReplaced keeps a volume directory that a committed plan replaced.
func VolumeReplaced(v, n int) string {
	return "staging/replaced/vol-" + PadVol(v) + "-" + strconv.Itoa(n)
}

// SetupPacket is the written packet of a setup step (setup:STAGE).
func SetupPacket(stage string) string { return "staging/manifests/setup-" + stage + ".packet.json" }

// SetupSnapshot is the write-boundary snapshot of a setup step.
func SetupSnapshot(stage string) string { return "staging/manifests/setup-" + stage + ".snapshot" }
