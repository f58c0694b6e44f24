package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

// PrefixShare is how much of chapter Second's draft request (the messages
// exactly as novel-agent's openai backend would send them) is a
// byte-identical prefix of chapter First's: what DeepSeek-style context
// caching bills at a tenth of the price (SPEC §14: ≥ 50 % for
// same-storyline chapters).
type PrefixShare struct {
	Project     string  `json:"project"`
	First       int     `json:"first"`
	Second      int     `json:"second"`
	PrefixChars int     `json:"prefix_chars"`
	Chars       int     `json:"chars"`
	Share       float64 `json:"share"`
	OK          bool    `json:"ok"`
}

const minPrefixShare = 0.5

// prefixShares measures the demo (chapter 3 after 2, both main-arc,
// after chapter 1) and the generated project (its idle variant's next
// chapter and the one after, on one storyline), each with the whole
// previous chapter in the second request.
func (c *config) prefixShares(o largeproject.Options, idle, replay string) ([]PrefixShare, error) {
	var out []PrefixShare
	if c.demo != "" {
		s, err := c.prefixShare("demo", filepath.Join(c.demo, "project"), filepath.Join(c.demo, "replay"), []int{1}, 2, 3)
		if err != nil {
			return nil, fmt.Errorf("prefix share on the demo: %w", err)
		}
		out = append(out, s)
	}
	first := o.Inflight()
	if largeproject.StorylineOf(first) != largeproject.StorylineOf(first+1) {
		return out, nil // the recordings cover one chapter only
	}
	s, err := c.prefixShare(fmt.Sprintf("generated (%s)", profileName(o)), idle, replay, nil, first, first+1)
	if err != nil {
		return nil, fmt.Errorf("prefix share on the generated project: %w", err)
	}
	return append(out, s), nil
}

// prefixShare copies project (an idle project whose next chapter is first)
// to a scratch directory, renders first's draft request, runs first
// through pipeline.mk with the replay executor, renders second's draft
// request and compares the two. first and second must be consecutive
// chapters on one storyline with replay recordings for first in replay.
// Chapters in before are run through the pipeline first.
func (c *config) prefixShare(name, project, replay string, before []int, first, second int) (PrefixShare, error) {
	dir := filepath.Join(c.dir, "prefix-run")
	if err := os.RemoveAll(dir); err != nil {
		return PrefixShare{}, err
	}
	defer os.RemoveAll(dir)
	if err := copyTree(project, dir); err != nil {
		return PrefixShare{}, err
	}
	for _, ch := range before {
		if err := c.replayChapter(dir, replay, ch); err != nil {
			return PrefixShare{}, err
		}
	}
	a, err := c.draftRequest(dir, first)
	if err != nil {
		return PrefixShare{}, err
	}
	if err := c.replayChapter(dir, replay, first); err != nil {
		return PrefixShare{}, err
	}
	b, err := c.draftRequest(dir, second)
	if err != nil {
		return PrefixShare{}, err
	}
	n := commonPrefix(a, b)
	s := PrefixShare{Project: name, First: first, Second: second, PrefixChars: utf8.RuneCountInString(b[:n]), Chars: utf8.RuneCountInString(b)}
	if s.Chars > 0 {
		s.Share = float64(s.PrefixChars) / float64(s.Chars)
	}
	s.OK = s.Share >= minPrefixShare
	return s, nil
}

func (c *config) replayChapter(dir, replay string, ch int) error {
	_, err := c.tool(dir, "make", "-s", "-f", c.pipeline, "chapter", "C="+strconv.Itoa(ch), "PROJECT="+dir,
		"AGENT=novel-agent --backend replay --fixtures "+replay)
	return err
}

// draftRequest renders chapter ch's draft request as the provider sees
// it: each message's role and content in order.
func (c *config) draftRequest(dir string, ch int) (string, error) {
	pkt, err := c.tool(dir, "novel-manifest", "packet", "chapter:"+pad(ch)+":draft")
	if err != nil {
		return "", err
	}
	file := filepath.Join(c.dir, "prefix-packet.json")
	if err := os.WriteFile(file, []byte(pkt), 0o644); err != nil {
		return "", err
	}
	defer os.Remove(file)
	// The model name is all a dry run needs; it is not part of the messages.
	out, err := c.toolEnv(dir, []string{"NOVEL_LLM_MODEL=deepseek-chat"}, "novel-agent", "--dry-run", file, "--jq", ".messages")
	if err != nil {
		return "", err
	}
	var msgs []struct{ Role, Content string }
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		return "", fmt.Errorf("novel-agent --dry-run: %v", err)
	}
	var s string
	for _, m := range msgs {
		s += m.Role + "\n" + m.Content + "\n"
	}
	return s, nil
}

// commonPrefix is the byte length of the longest common prefix of a and
// b, backed off to a rune boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}
