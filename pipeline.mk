# pipeline.mk — one chapter (or N chapters) through the novel pipeline (SPEC §10).
#
#   make -f pipeline.mk chapter [C=48] [PROJECT=dir] [AGENT="novel-agent --backend replay --fixtures DIR"]
#   make -f pipeline.mk continue N=5
#   make -f pipeline.mk volume V=2       # plan → validate → commit a new volume (VOL_PLANNING)
#   make -f pipeline.mk next | status | report
#   make -n -f pipeline.mk chapter        # the plan of the current round; runs nothing
#
# Design (docs/DESIGN.md, "Pipeline"): a run holds the project lock (novel-lock run) around an
# inner make. The inner driver (_chapter) asks `novel-agent pipeline next` whether the chapter
# still has work and re-invokes make on _round, the static DAG of the chapter's current revision
# round: one file target per stage, staging/.stamps/chapter-NNN-{stage}-r{K}, written only after
# the stage advanced, ending at the committed chapter chapters/chapter-NNN.md. A revise decision
# ends the round (its later stages do nothing) and the driver starts round K+1, so the loop is
# bounded by max_revisions through the gate. Each stage recipe is one `novel-agent pipeline`
# helper that does the awkward shell parts deterministically (packet + write-boundary snapshot,
# pre-stage copy, $(AGENT) PACKET, stdout output, validate, restore on failure, one retry, run log,
# advance). Requires GNU make >= 4.3 and bash; no jq or python.

ifeq ($(filter grouped-target,$(.FEATURES)),)
$(error pipeline.mk needs GNU make >= 4.3 (have $(MAKE_VERSION)); on macOS use gmake)
endif
SHELL         := bash
.SHELLFLAGS   := -euo pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS     += --no-builtin-rules --no-print-directory
.DEFAULT_GOAL := help

PIPELINE_MK := $(abspath $(lastword $(MAKEFILE_LIST)))
PROJECT     ?= .
P           := $(abspath $(PROJECT))
AGENT       ?= novel-agent --backend replay
C           ?=
N           ?= 1
V           ?=
MAX_ROUNDS  ?= 12
NOVEL_BIN   ?=

# Every tool finds the project through NOVEL_PROJECT; the executor command travels in the
# environment so any quoting inside it survives.
export NOVEL_PROJECT := $(P)
export AGENT
ifneq ($(strip $(NOVEL_BIN)),)
export PATH := $(abspath $(NOVEL_BIN)):$(PATH)
endif

# DRYRUN is non-empty under -n or -q: the outer targets then show the round's plan instead of
# taking the lock (recipes containing $(MAKE) would run even under -n).
MFLAGS1 := $(filter-out -%,$(firstword $(MAKEFLAGS)))
DRYRUN  := $(findstring n,$(MFLAGS1))$(findstring q,$(MFLAGS1))

PLAN_GOALS := chapter _chapter _round continue _continue
ifneq ($(filter $(PLAN_GOALS),$(MAKECMDGOALS)),)
ifeq ($(strip $(C)),)
C := $(shell novel-agent pipeline plan --project '$(P)' --jq .chapter 2>/dev/null)
endif
endif

ifneq ($(strip $(C)),)
NNN   := $(shell printf '%03d' '$(C)')
PLAN  := $(shell novel-agent pipeline plan --project '$(P)' --chapter '$(C)' --jq '"\(.round) \(.logic_review)"' 2>/dev/null)
K     := $(or $(word 1,$(PLAN)),0)
LR    := $(word 2,$(PLAN))
ST    := $(P)/staging/.stamps/chapter-$(NNN)
DRAFT     := $(ST)-draft-r$(K)
SUMMARIZE := $(ST)-summarize-r$(K)
REFINE    := $(ST)-refine-r$(K)
JUDGE     := $(ST)-judge-r$(K)
LOGIC     := $(ST)-logic-review-r$(K)
GATE      := $(ST)-gate-r$(K)
POLISH    := $(ST)-polish-r$(K)
COMMITTED := $(P)/chapters/chapter-$(NNN).md
STEP       = @novel-agent pipeline step chapter:$(NNN):$(1) --round $(K) --agent "$$AGENT" >/dev/null

# ---- one revision round of chapter C (stage targets; order-only so a rewritten chapter file
# never makes a finished stage look stale) ----
$(DRAFT):
	$(call STEP,draft)
$(SUMMARIZE): | $(DRAFT)
	$(call STEP,summarize)
$(REFINE): | $(SUMMARIZE)
	$(call STEP,refine)
# Key chapters: the judge stage runs the primary and the secondary packet.
$(JUDGE): | $(REFINE)
	$(call STEP,judge)
ifeq ($(LR),true)
$(LOGIC): | $(JUDGE)
	$(call STEP,logic-review)
$(GATE): | $(LOGIC)
else
$(GATE): | $(JUDGE)
endif
	@novel-agent pipeline gate --chapter $(C) --round $(K) >/dev/null
# Runs the polisher only when the gate decided polish; otherwise it just records the stage.
$(POLISH): | $(GATE)
	$(call STEP,polish)
# novel-commit is journaled and moves the chapter here itself: never let make delete it.
.PRECIOUS: $(COMMITTED)
ifneq ($(wildcard $(P)/staging/commit-$(NNN).journal.json),)
$(COMMITTED): FORCE
endif
$(COMMITTED): | $(POLISH)
	@novel-agent pipeline commit --chapter $(C) --summary "$${NOVEL_PIPELINE_SUMMARY:-}" >/dev/null
endif

.PHONY: help chapter continue next status report volume _chapter _round _continue _volume _locked FORCE
FORCE:

LOCKED_ONLY = @test -n "$${NOVEL_LOCK_TOKEN:-}" || { echo '{"error":{"code":"E_USAGE","message":"内部目标 $@ 只能在 novel-lock run 下运行","hint":"运行 make -f pipeline.mk chapter 或 continue","details":{"target":"$@"}}}' >&2; exit 2; }
# V as two digits (base 10, so V=08 works); empty when V is not a number.
VV := $(shell v='$(V)'; [[ $$v =~ ^[0-9]+$$ ]] && (( 10#$$v >= 1 )) && printf '%02d' "$$((10#$$v))")
NO_VOLUME   = { echo '{"error":{"code":"E_USAGE","message":"volume 目标需要 V=卷号（如 V=2），实际为 \"$(V)\"","hint":"make -f pipeline.mk volume V=2","details":{"V":"$(V)"}}}' >&2; exit 2; }
NO_CHAPTER  = { echo '{"error":{"code":"E_NO_PROJECT","message":"无法确定要写的章节（项目 $(P)）","hint":"用 PROJECT=dir 指定项目，或用 C=N 指定章节","details":{"project":"$(P)"}}}' >&2; exit 1; }

help:
	@echo 'make -f pipeline.mk chapter [C=N] [PROJECT=dir] [AGENT="cmd"] | continue N=5 | volume V=2 | next | status | report'

ifeq ($(DRYRUN),)
# ---- outer targets: hold the lock for the whole run ----
chapter:
	@[ -n '$(C)' ] || $(NO_CHAPTER)
	@sum=$$(mktemp); rc=0; \
	NOVEL_PIPELINE_SUMMARY=$$sum novel-lock run --chapter $(C) -- $(MAKE) -f $(PIPELINE_MK) _chapter C=$(C) || rc=$$?; \
	line=$$(novel-agent pipeline summary "$$sum" --text 2>/dev/null || true); rm -f "$$sum"; \
	if [ -n "$$line" ]; then echo "$$line"; fi; exit $$rc

continue:
	@sum=$$(mktemp); rc=0; \
	NOVEL_PIPELINE_SUMMARY=$$sum novel-lock run -- $(MAKE) -f $(PIPELINE_MK) _continue N=$(N) || rc=$$?; \
	line=$$(novel-agent pipeline summary "$$sum" --text 2>/dev/null || true); rm -f "$$sum"; \
	if [ -n "$$line" ]; then echo "$$line"; fi; exit $$rc

volume:
	@[ -n '$(VV)' ] || $(NO_VOLUME)
	@novel-lock run -- $(MAKE) -f $(PIPELINE_MK) _volume V=$(VV)

# ---- inner targets: refuse to run without the lock ----
_locked:
	$(LOCKED_ONLY)

_chapter: _locked
	@rm -f $(P)/staging/BLOCKED.json
	@prev=; for i in $$(seq 1 $(MAX_ROUNDS)); do \
	  out=$$(novel-agent pipeline next --chapter $(C) --prev "$$prev" --jq '"\(.status) \(.progress)"'); \
	  set -- $$out; if [ "$$1" != run ]; then exit 0; fi; prev=$$2; \
	  $(MAKE) -f $(PIPELINE_MK) _round C=$(C); \
	done; \
	echo '{"error":{"code":"E_STATE","message":"第 $(C) 章在 $(MAX_ROUNDS) 轮后仍未完成","hint":"用 novel-step status 查看原因","details":{"chapter":$(C)}}}' >&2; exit 1

_round: _locked $(COMMITTED)

_continue: _locked
	@rm -f $(P)/staging/BLOCKED.json
	@strict=--strict; for i in $$(seq 1 $(N)); do \
	  out=$$(novel-agent pipeline next $$strict --jq '"\(.status) \(.chapter)"'); set -- $$out; strict=; \
	  if [ "$$1" != run ]; then echo "第 $$2 章是本卷最后一章，进入卷末回顾（novel-step volume --next）" >&2; exit 0; fi; \
	  $(MAKE) -f $(PIPELINE_MK) _chapter C=$$2; \
	done
else
# ---- make -n / -q: show the current round's plan ----
chapter _chapter continue _continue: _round
volume: _volume
_round: $(COMMITTED)
endif

next:
	@novel-step next
status:
	@novel-step status
# The health report (SPEC §12): one self-contained HTML page in the project's logs/.
report:
	@novel-report --out '$(P)/logs/report.html' --jq '"report: \(.out)"'
# ---- volume planning (SPEC §6.1): one helper, like a chapter stage — packet (with the
# write-boundary snapshot) → $(AGENT) → validate (novel-commit volume --dry-run) → one retry →
# novel-commit volume. A staged plan that already validates is not planned again; an invalid one is
# replaced by a fresh planner run. A plan refused twice stays in staging/volumes/vol-VV/ for the
# author to fix (then run this target again, or novel-commit volume --volume VV).
ifeq ($(DRYRUN),)
_volume: _locked
	@[ -n '$(VV)' ] || $(NO_VOLUME)
	@rm -f $(P)/staging/BLOCKED.json
	@novel-agent pipeline volume --volume $(VV) --agent "$$AGENT" --text
else
# make -n: the helper prints the commands it would run (read-only).
_volume:
	+@novel-agent pipeline volume --volume $(VV) --plan --text
endif
