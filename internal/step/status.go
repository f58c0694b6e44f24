package step

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/novelsuite/novel/internal/checkpoint"
	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/lock"
	"github.com/novelsuite/novel/internal/products"
	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/revision"
	"github.com/novelsuite/novel/internal/settings"
)

// Blocked is the refusal next would give, as data (the error envelope's body).
type Blocked = errs.Body

// PendingView is one pending revision in the status.
type PendingView struct {
	Chapter     int    `json:"chapter"`
	File        string `json:"file"`
	TriggeredBy string `json:"triggered_by"`
	Notes       string `json:"revision_notes"`
	CreatedAt   string `json:"created_at"`
}

// Counts are cheap project counters.
type Counts struct {
	CommittedChapters int `json:"committed_chapters"`
	StagingFiles      int `json:"staging_files"`
}

// StatusView is the output of `novel-step status`.
type StatusView struct {
	Checkpoint       checkpoint.Summary    `json:"checkpoint"`
	Lock             *lock.Status          `json:"lock"`
	Next             *Next                 `json:"next"`
	Blocked          *Blocked              `json:"blocked"`
	PendingRevisions []PendingView         `json:"pending_revisions"`
	LastError        *checkpoint.LastError `json:"last_error"`
	Counts           Counts                `json:"counts"`
	// DamagedFiles: a state or foreshadowing file that does not parse.
	DamagedFiles []DamagedFile `json:"damaged_files,omitempty"`
	// Integrity is the E_INTEGRITY refusal of a project whose committed
	// chapters are incomplete (null when they are not).
	Integrity *Blocked `json:"integrity"`

	lang string
}

// Status gathers the dashboard. Problems that next would report become
// the blocked entry instead of failing the status itself. executor is as
// for ComputeNext.
func Status(root *project.Root, cp *checkpoint.Checkpoint, s settings.Settings, executor string) (*StatusView, error) {
	v := &StatusView{Checkpoint: cp.Summarize(), LastError: cp.LastError, PendingRevisions: []PendingView{}, lang: s.Language}
	ls, err := lock.Inspect(root, lock.Options{StaleMinutes: s.LockStaleMinutes})
	if err != nil {
		return nil, err
	}
	v.Lock = ls
	if n, err := ComputeNext(root, cp, s, executor); err != nil {
		v.Blocked = errs.Coerce(err).Body(s.Language)
	} else {
		v.Next = n
	}
	v.Integrity = integrityView(root, cp, s.Language)
	if pend, err := revision.Pending(root); err == nil {
		for _, p := range pend {
			v.PendingRevisions = append(v.PendingRevisions, PendingView{Chapter: p.ChapterNumber, File: p.File,
				TriggeredBy: p.TriggeredBy, Notes: p.RevisionNotes, CreatedAt: p.CreatedAt})
		}
	}
	if v.Counts.CommittedChapters, _, err = checkpoint.CommittedChapters(root); err != nil {
		return nil, err
	}
	c := cp.NextChapter()
	if !cp.Idle() {
		c = cp.Inflight
	}
	files, err := products.StagingFiles(root, c)
	if err != nil {
		return nil, err
	}
	v.Counts.StagingFiles = len(files)
	v.DamagedFiles = damagedFiles(root, s.Language)
	return v, nil
}

// Text is the compact terminal dashboard.
func (v *StatusView) Text() string {
	lang := v.lang
	var b strings.Builder
	cp := v.Checkpoint
	inflight := "—"
	if cp.Inflight != nil {
		stage := "null"
		if cp.Stage != nil {
			stage = *cp.Stage
		}
		inflight = fmt.Sprintf(errs.Text(lang, "%d（%s）", "%d (%s)"), *cp.Inflight, stage)
	}
	fmt.Fprintf(&b, errs.Text(lang, "第 %d 卷 · %s · 已完成 %d 章 · 在制：%s · 修订 %d 次\n", "volume %d · %s · %d chapters done · in flight: %s · revisions %d\n"),
		cp.CurrentVolume, cp.State, cp.LastCompleted, inflight, cp.RevisionCount)
	switch {
	case v.Next != nil:
		fmt.Fprintf(&b, errs.Text(lang, "下一步：%s（%s）\n", "next: %s (%s)\n"), v.Next.Step, v.Next.Reason)
	case v.Blocked != nil && !v.blockedByIntegrity():
		fmt.Fprintf(&b, errs.Text(lang, "受阻：%s %s\n", "blocked: %s %s\n"), v.Blocked.Code, v.Blocked.Message)
		if v.Blocked.Hint != "" {
			fmt.Fprintf(&b, errs.Text(lang, "  → %s\n", "  → %s\n"), v.Blocked.Hint)
		}
	}
	v.integrityText(&b, lang)
	if v.Lock != nil && v.Lock.Exists {
		stale := ""
		if v.Lock.Stale {
			stale = errs.Text(lang, "（已过期）", " (stale)")
		}
		// Who holds it, as the lock's own refusals say it ("ok", the info
		// file's state, told the dogfood nothing).
		held := errs.Text(lang, "被占用", "held")
		if d := v.Lock.Describe(lang); d != "" {
			held += errs.Text(lang, "（"+d+"）", " ("+d+")")
		}
		fmt.Fprintf(&b, errs.Text(lang, "锁：%s%s\n", "lock: %s%s\n"), held, stale)
	} else {
		b.WriteString(errs.Text(lang, "锁：空闲\n", "lock: free\n"))
	}
	for _, d := range v.DamagedFiles {
		fmt.Fprintf(&b, errs.Text(lang, "文件损坏：%s（%s）→ %s\n", "damaged file: %s (%s) → %s\n"), d.File, d.Code, d.Fix)
	}
	for _, p := range v.PendingRevisions {
		fmt.Fprintf(&b, errs.Text(lang, "待处理修订：第 %d 章（%s）%s\n", "pending revision: chapter %d (%s) %s\n"), p.Chapter, p.TriggeredBy, p.File)
	}
	if le := v.LastError; le != nil {
		what := le.Message
		if le.Code != "" {
			what = le.Code + " " + what
		}
		var d struct {
			ServerMessage string `json:"server_message"`
		}
		if json.Unmarshal(le.Details, &d) == nil && d.ServerMessage != "" {
			what += errs.Text(lang, "（服务端：", " (server: ") + d.ServerMessage + errs.Text(lang, "）", ")")
		}
		fmt.Fprintf(&b, errs.Text(lang, "上次错误：%s %s\n", "last error: %s %s\n"), le.Step, what)
	}
	fmt.Fprintf(&b, errs.Text(lang, "已提交章节 %d · 暂存文件 %d\n", "committed chapters %d · staging files %d\n"),
		v.Counts.CommittedChapters, v.Counts.StagingFiles)
	return b.String()
}
