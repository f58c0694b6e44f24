# pipeline.mk — one chapter (or N chapters) through the novel pipeline (SPEC §10).
#
#   make -f pipeline.mk chapter [C=48] [PROJECT=dir] [AGENT="novel-agent --backend replay --fixtures DIR"]
#   make -f pipeline.mk continue N=5 [BUDGET=12.5 [BUDGET_CURRENCY=CNY]]
#   make -f pipeline.mk volume V=2 [DIRECTION="…"] [APPROVE=1]
#                                         # plan → validate → stop for the author (E_AWAITING_APPROVAL);
#                                         # APPROVE=1 (or volume_plan_approval "auto") commits it
#   make -f pipeline.mk start            # a new project (novel init): setup steps + volume 1 plan
#                                         # (volume, review, start: REDO=1 sets aside staged outputs
#                                         # that do not validate and asks the model again)
#   make -f pipeline.mk next | status | report
#   make -f pipeline.mk amend C=12        # re-summarize a committed chapter the author edited
#   make -f pipeline.mk backfill          # summarize + commit the chapters novel import wrote
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

# Any path works (SPEC §22.1): a checkout, project or NOVEL_BIN folder may hold spaces, quotes, `$`,
# `*` or CJK. Make splits file names at spaces and expands `$` in recursive variables, so: the
# user's variables are taken verbatim ($(value …)), every path in a recipe is one single-quoted shell
# word ($(call sq,…)), and the only file targets (a chapter's round) are relative names inside the
# project, made by a sub-make started there (-C). $(call sq,X) is X as one single-quoted shell word.
sq = '$(subst ','\'',$(1))'
VERBATIM := PROJECT AGENT DIRECTION BUDGET BUDGET_CURRENCY NOVEL_BIN APPROVE REDO
PROJECT     ?= .
AGENT       ?= novel-agent --backend replay
$(foreach v,$(VERBATIM),$(eval override $(v) := $$(value $(v))))
# $(call abs,PATH): PATH made absolute against the working directory, `.`/`..`/`//` folded like
# $(abspath) (which would split it at spaces); pure bash, so it works before any tool is found.
abs = $(shell p=$(call sq,$(1)); [[ $$p == /* ]] || p=$(call sq,$(CURDIR))/$$p; IFS=/ read -r -a parts <<<"$$p"; \
  out=(); for c in "$${parts[@]}"; do case $$c in (''|.) ;; (..) [ $${#out[@]} -eq 0 ] || out=("$${out[@]:0:$${#out[@]}-1}") ;; (*) out+=("$$c") ;; esac; done; \
  if [ $${#out[@]} -eq 0 ]; then echo /; else printf '/%s' "$${out[@]}"; fi)
# This file, found in MAKEFILE_LIST (names separated by spaces, so the longest trailing run of words
# that names a file is it) and made absolute for the sub-makes.
PIPELINE_MK := $(shell l=$(call sq,$(MAKEFILE_LIST)); l=$${l# }; while [ -n "$$l" ]; do \
  if [ -f "$$l" ]; then d=$$(dirname -- "$$l"); cd -- "$$d" && printf '%s/%s' "$$(pwd)" "$$(basename -- "$$l")"; break; fi; \
  case $$l in (*' '*) l=$${l#* } ;; (*) l= ;; esac; done)
P           := $(call abs,$(PROJECT))
C           ?=
N           ?= 1
V           ?=
APPROVE     ?=
# REDO=1: staged outputs that do not validate move to staging/replaced/redo-N/ and the model is asked
# again (volume, review, start); without it they stop the run and stay as the author left them.
REDO        ?=
REDO_FLAG    = $(if $(filter-out 0,$(REDO)),--redo)
DIRECTION   ?=
MAX_ROUNDS  ?= 12
# continue's cost cap for this run (SPEC §18): BUDGET=12.5 [BUDGET_CURRENCY=CNY].
BUDGET          ?=
BUDGET_CURRENCY ?=
NOVEL_BIN   ?=
# $(SUBMAKE) re-runs this file; $(ROUNDMAKE) re-runs it inside the project for a chapter's round.
SUBMAKE     = $(MAKE) -f $(call sq,$(PIPELINE_MK))
ROUNDMAKE   = $(MAKE) -C $(call sq,$(P)) -f $(call sq,$(PIPELINE_MK)) PROJECT=$(call sq,$(P)) NOVEL_BIN=

# Every tool finds the project through NOVEL_PROJECT; the executor command travels in the
# environment so any quoting inside it survives.
export NOVEL_PROJECT := $(P)
export AGENT
# The author's direction travels in the environment, like AGENT, so any quoting survives.
export NOVEL_VOLUME_DIRECTION := $(DIRECTION)
ifneq ($(strip $(NOVEL_BIN)),)
export PATH := $(call abs,$(NOVEL_BIN)):$(PATH)
endif

# Numbers on the command line are decimal 1..999999 (SPEC §1): C=013 is chapter 13, C=08 is 8.
# A C, N, V or MAX_ROUNDS given but not such a number stops make before anything runs (make -n
# too): the JSON error line of `novel-agent pipeline error`, then make's own "*** … Stop." line,
# exit 2 (E_USAGE).
decimal        = $(shell v=$(call sq,$(1)); [[ $$v =~ ^0*([1-9][0-9]{0,5})$$ ]] && echo "$${BASH_REMATCH[1]}")
PIPELINE_ERROR = novel-agent pipeline error
define check_number
ifneq ($$(strip $$($(1))),)
$(1)_DEC := $$(call decimal,$$($(1)))
ifeq ($$($(1)_DEC),)
$$(shell $$(PIPELINE_ERROR) bad-number --variable $(1) --value=$$(call sq,$$($(1))) >&2)
$$(error $(1) is not a decimal number 1..999999)
endif
override $(1) := $$($(1)_DEC)
endif
endef
$(foreach v,C N V MAX_ROUNDS,$(eval $(call check_number,$(v))))

# DRYRUN is non-empty under -n or -q: the outer targets then show the round's plan instead of
# taking the lock (recipes containing $(MAKE) would run even under -n).
MFLAGS1 := $(filter-out -%,$(firstword $(MAKEFLAGS)))
DRYRUN  := $(findstring n,$(MFLAGS1))$(findstring q,$(MFLAGS1))

PLAN_GOALS := chapter _chapter _round continue _continue
ifneq ($(filter $(PLAN_GOALS),$(MAKECMDGOALS)),)
ifeq ($(strip $(C)),)
C := $(shell novel-agent pipeline plan --project $(call sq,$(P)) --jq .chapter 2>/dev/null)
endif
endif

ifneq ($(strip $(C)),)
NNN   := $(shell printf '%03d' '$(C)')
PLAN  := $(shell novel-agent pipeline plan --project $(call sq,$(P)) --chapter '$(C)' --jq '"\(.round) \(.logic_review)"' 2>/dev/null)
K     := $(or $(word 1,$(PLAN)),0)
LR    := $(word 2,$(PLAN))
# Relative to the project: only the round's sub-make ($(ROUNDMAKE), run there) builds these.
ST    := staging/.stamps/chapter-$(NNN)
DRAFT     := $(ST)-draft-r$(K)
SUMMARIZE := $(ST)-summarize-r$(K)
REFINE    := $(ST)-refine-r$(K)
JUDGE     := $(ST)-judge-r$(K)
LOGIC     := $(ST)-logic-review-r$(K)
GATE      := $(ST)-gate-r$(K)
POLISH    := $(ST)-polish-r$(K)
COMMITTED := chapters/chapter-$(NNN).md
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
ifneq ($(wildcard staging/commit-$(NNN).journal.json),)
$(COMMITTED): FORCE
endif
$(COMMITTED): | $(POLISH)
	@novel-agent pipeline commit --chapter $(C) --summary "$${NOVEL_PIPELINE_SUMMARY:-}" --agent "$$AGENT" >/dev/null
endif

.PHONY: help chapter continue next status report volume review start _chapter _round _continue _volume _review _start _locked FORCE
FORCE:

# The pipeline's own refusals go through novel-agent pipeline error (valid JSON, localized).
LOCKED_ONLY = @test -n "$${NOVEL_LOCK_TOKEN:-}" || $(PIPELINE_ERROR) locked-only --target=$(call sq,$@)
# V as two digits (V is already a checked decimal); empty without V.
VV := $(if $(V),$(shell printf '%02d' $(V)))
NO_VOLUME   = $(PIPELINE_ERROR) no-volume
NO_CHAPTER  = $(PIPELINE_ERROR) no-chapter

help:
	@echo 'make -f pipeline.mk chapter [C=N] [PROJECT=dir] [AGENT="cmd"] | continue N=5 [BUDGET=12.5] | volume V=2 [APPROVE=1] [DIRECTION="…"] [REDO=1] | review [V=1] [REDO=1] | start [REDO=1] | next | status | report'

ifeq ($(DRYRUN),)
# ---- outer targets: hold the lock for the whole run ----
chapter:
	@[ -n '$(C)' ] || $(NO_CHAPTER)
	@sum=$$(mktemp); rc=0; \
	NOVEL_PIPELINE_SUMMARY=$$sum novel-lock run --chapter $(C) -- $(SUBMAKE) _chapter C=$(C) || rc=$$?; \
	line=$$(novel-agent pipeline summary "$$sum" --text 2>/dev/null || true); rm -f "$$sum"; \
	if [ -n "$$line" ]; then echo "$$line"; fi; exit $$rc

continue:
	@sum=$$(mktemp); rc=0; \
	NOVEL_PIPELINE_SUMMARY=$$sum novel-lock run -- $(SUBMAKE) _continue N=$(N) || rc=$$?; \
	line=$$(novel-agent pipeline summary "$$sum" --text 2>/dev/null || true); rm -f "$$sum"; \
	if [ -n "$$line" ]; then echo "$$line"; fi; exit $$rc

volume:
	@[ -n '$(VV)' ] || $(NO_VOLUME)
	@novel-lock run -- $(SUBMAKE) _volume V=$(VV)

# ---- inner targets: refuse to run without the lock ----
_locked:
	$(LOCKED_ONLY)

_chapter: _locked
	@rm -f -- $(call sq,$(P)/staging/BLOCKED.json)
	@prev=; for i in $$(seq 1 $(MAX_ROUNDS)); do \
	  out=$$(novel-agent pipeline next --chapter $(C) --prev "$$prev" --jq '"\(.status) \(.progress)"'); \
	  set -- $$out; if [ "$$1" != run ]; then exit 0; fi; prev=$$2; \
	  $(ROUNDMAKE) _round C=$(C); \
	done; \
	$(PIPELINE_ERROR) rounds --chapter $(C) --rounds $(MAX_ROUNDS)

_round: _locked $(COMMITTED)

_continue: _locked
	@rm -f -- $(call sq,$(P)/staging/BLOCKED.json)
	@strict=--strict; budget=(); \
	if [ -n $(call sq,$(BUDGET)) ]; then \
	  since=$$(novel-step status --jq .checkpoint.last_completed_chapter); \
	  budget=(--budget=$(call sq,$(BUDGET)) --budget-currency=$(call sq,$(BUDGET_CURRENCY)) --since "$$since"); \
	fi; \
	for i in $$(seq 1 $(N)); do \
	  out=$$(novel-agent pipeline next $$strict $${budget[@]+"$${budget[@]}"} --jq '"\(.status) \(.chapter) \(.message // "")"'); set -f; set -- $$out; set +f; strict=; \
	  if [ "$$1" != run ]; then shift 2; echo "$$*" >&2; exit 0; fi; \
	  $(SUBMAKE) _chapter C=$$2; \
	done
else
# ---- make -n / -q: show the current round's plan (the round's targets live in the project) ----
chapter _chapter continue _continue:
	+@$(if $(C),$(ROUNDMAKE) _round C=$(C),:)
volume: _volume
_round: $(COMMITTED)
endif

next:
	@novel-step next
status:
	@novel-step status
# The health report (SPEC §12): one self-contained HTML page in the project's logs/.
# --out never creates directories: a project's logs/ is made here (only in a project).
report:
	@if [ -f $(call sq,$(P)/.checkpoint.json) ]; then mkdir -p -- $(call sq,$(P)/logs); fi
	@novel-report --out $(call sq,$(P)/logs/report.html) --jq '"report: \(.out)"'
# ---- volume planning (SPEC §6.1): one helper, like a chapter stage — packet (with the
# write-boundary snapshot) → $(AGENT) → validate (novel-commit volume --dry-run) → one retry →
# novel-commit volume. A staged plan that already validates is not planned again; an invalid one (a
# plan refused twice, or one the author's edit broke) stops the run with its own error and stays in
# staging/volumes/vol-VV/ for the author to fix (then run this target again, or novel-commit volume
# --volume VV); REDO=1 moves it to staging/replaced/redo-N/ and plans again. Long volumes get
# their contracts in batches (volume:VV:contracts). Without APPROVE=1 the validated plan stays
# staged and the run stops with E_AWAITING_APPROVAL in staging/BLOCKED.json (SPEC §23).
ifeq ($(DRYRUN),)
_volume: _locked
	@[ -n '$(VV)' ] || $(NO_VOLUME)
	@rm -f -- $(call sq,$(P)/staging/BLOCKED.json)
	@novel-agent pipeline volume --volume $(VV) --agent "$$AGENT" --direction "$$NOVEL_VOLUME_DIRECTION" $(if $(filter-out 0,$(APPROVE)),--approve) $(REDO_FLAG) --text
else
# make -n: the helper prints the commands it would run (read-only).
_volume:
	+@novel-agent pipeline volume --volume $(VV) --plan --text
endif
# ---- the volume review (SPEC §23): in VOL_REVIEW, packet (volume:VV:review, with the snapshot) →
# $(AGENT) → novel-commit volume-review --dry-run → one retry → novel-commit volume-review, which
# keeps volumes/vol-VV/review.md and enters VOL_PLANNING for volume VV+1. A review already staged
# (written by hand, or by an interrupted run) is committed as it is; one that does not validate stops
# the run and stays (REDO=1 moves it to staging/replaced/redo-N/ and asks the model again).
ifeq ($(DRYRUN),)
review:
	@v='$(VV)'; [ -n "$$v" ] || v=$$(novel-step status --jq .checkpoint.current_volume); \
	[ -n "$$v" ] && [ "$$v" != 0 ] || $(NO_VOLUME); \
	novel-lock run -- $(SUBMAKE) _review V=$$v
_review: _locked
	@rm -f -- $(call sq,$(P)/staging/BLOCKED.json)
	@novel-agent pipeline review --volume $(VV) --agent "$$AGENT" $(REDO_FLAG) --text
else
review _review:
	novel-manifest packet volume:$(VV):review --write-manifest
	$$AGENT staging/manifests/volume-$(VV)-review.packet.json
	novel-commit volume-review --volume $(VV) --dry-run
	novel-commit volume-review --volume $(VV)
endif
# ---- starting a new project (SPEC §17): the setup steps whose products are missing, then the
# volume 1 plan, each like a stage (packet + snapshot → $(AGENT) → validate → one retry → journaled
# commit), under the lock; re-running after any interruption resumes. Ends in WRITING.
ifeq ($(DRYRUN),)
start:
	@novel-lock run -- $(SUBMAKE) _start
_start: _locked
	@rm -f -- $(call sq,$(P)/staging/BLOCKED.json)
	@novel-agent pipeline start --agent "$$AGENT" $(REDO_FLAG) --text
else
start _start:
	+@novel-agent pipeline start --plan --text
endif

# ---- committed text (SPEC §23): amend re-summarizes a committed chapter the author edited
# (packet mode amend, state as before it) and runs novel-commit amend; backfill summarizes and
# commits each imported chapter in order (packet mode backfill, novel-commit backfill). Each is
# one helper under the lock, like volume: packet → $(AGENT) → novel-commit … --dry-run → one
# retry → commit.
.PHONY: amend backfill _amend _backfill
ifeq ($(DRYRUN),)
amend:
	@[ -n '$(C)' ] || $(NO_CHAPTER)
	@novel-lock run --chapter $(C) -- $(SUBMAKE) _amend C=$(C)
backfill:
	@novel-lock run -- $(SUBMAKE) _backfill
_amend: _locked
	@novel-agent pipeline amend --chapter $(C) --agent "$$AGENT" --text
_backfill: _locked
	@novel-agent pipeline backfill --agent "$$AGENT" --text
else
# make -n: the commands the helper runs per chapter (printed, not run).
amend _amend:
	novel-manifest packet chapter:$(NNN):summarize --mode amend --write-manifest
	$$AGENT staging/manifests/chapter-$(NNN)-amend.packet.json
	novel-commit amend --chapter $(C) --dry-run
	novel-commit amend --chapter $(C)
backfill _backfill:
	novel-manifest packet chapter:NNN:summarize --mode backfill --write-manifest
	$$AGENT staging/manifests/chapter-NNN-backfill.packet.json
	novel-commit backfill --chapter NNN --dry-run
	novel-commit backfill --chapter NNN
endif
