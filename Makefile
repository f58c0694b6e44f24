# Developer tasks only; the novel pipeline itself is pipeline.mk.
SHELL := /bin/bash
GO    ?= go
# Any checkout folder works (SPEC §22.1): its name may hold spaces, quotes, `$`, `*` or CJK. Every
# path in a recipe is one single-quoted shell word ($(call sq,…)), and the path variables a user may
# set are taken verbatim ($(value …)), so nothing outside the checkout is ever removed or created
# (an unquoted `rm -rf $(BIN)` in …/novel copy removed the sibling …/novel).
sq    = '$(subst ','\'',$(1))'
BIN   := $(CURDIR)/bin
PREFIX ?= $(HOME)/.local
override PREFIX := $(value PREFIX)

.PHONY: all build install test test-full vet staticcheck fmt-check clean demo bench fuzz fuzz-seeds test-long
all: build

## build: compile every binary into ./bin
# Statically linked (CGO_ENABLED=0): a binary that links libc spends ~0.7 ms of every process start
# in the dynamic loader, and SPEC §14 times whole processes of a few ms. Nothing in the suite needs
# cgo (kong's os/user and net fall back to their pure-Go code).
build:
	@mkdir -p -- $(call sq,$(BIN))
	CGO_ENABLED=0 $(GO) build -o $(call sq,$(BIN)/) ./cmd/...

## install: copy the binaries to $(PREFIX)/bin (default ~/.local/bin)
install: build
	@mkdir -p -- $(call sq,$(PREFIX)/bin)
	cp -- $(call sq,$(BIN))/novel* $(call sq,$(PREFIX)/bin/)

## demo: build, start the demo novel from an empty $(DEMO_DIR) (novel init with fixed flags, make start,
##       three chapters through continue), all with the replay executor (no network, no API key).
##       An old DEMO_DIR is removed first only when it is inside the checkout or an earlier demo made
##       it (its .novel-demo marker); any other folder is left alone and novel init refuses a project.
ifeq ($(origin DEMO_DIR),undefined)
DEMO_DIR := $(CURDIR)/demo-out
else
override DEMO_DIR := $(value DEMO_DIR)
endif
# AGENT is a shell command itself: the fixtures path is quoted inside it, and the whole command once
# more on make's command line.
DEMO_AGENT = novel-agent --backend replay --fixtures $(call sq,$(CURDIR)/examples/demo/replay)
DEMO_PATH  = PATH=$(call sq,$(BIN)):"$$PATH"
DEMO_MAKE  = $(DEMO_PATH) $(MAKE) -f $(call sq,$(CURDIR)/pipeline.mk)
demo: build
	@d=$(call sq,$(DEMO_DIR)); if [ -d "$$d" ]; then d=$$(cd -- "$$d" && pwd -P); c=$$(pwd -P); \
	  case $$d/ in ("$$c"/?*) rm -rf -- "$$d" ;; (*) if [ -e "$$d/.novel-demo" ]; then rm -rf -- "$$d"; fi ;; esac; fi
	$(DEMO_PATH) NOVEL_NOW=$${NOVEL_NOW:-2026-11-01T08:00:00Z} novel init $(call sq,$(DEMO_DIR)) --title 守灯人 \
	  --genre '东方玄幻 / 宗门成长，轻悬疑' --platform fanqie --chapters-per-volume 6 --target-chapters 24 --words-per-chapter 2500 \
	  --premise '经脉淤塞的外门弟子陆照在长明殿守了三年魂灯，某夜，三年前已熄灭的第七盏灯重新亮了起来。' \
	  --protagonist '陆照，长明殿守灯人，经脉淤塞，停在炼气三层' --conflict '第七盏灯为何复燃，周伯是否还活着' --text
	@touch -- $(call sq,$(DEMO_DIR)/.novel-demo)
	$(DEMO_MAKE) start PROJECT=$(call sq,$(DEMO_DIR)) AGENT=$(call sq,$(DEMO_AGENT))
	$(DEMO_MAKE) continue N=3 PROJECT=$(call sq,$(DEMO_DIR)) AGENT=$(call sq,$(DEMO_AGENT))
	@$(DEMO_MAKE) --no-print-directory report PROJECT=$(call sq,$(DEMO_DIR))
	@echo $(call sq,demo project: $(DEMO_DIR) (world/, characters/, chapters/, summaries/, evaluations/, logs/, state/))
	@echo $(call sq,open the report: $(DEMO_DIR)/logs/report.html)

## bench: time every binary as a process on the generated 2,000-chapter project (SPEC §14);
##        projects are cached under .bench/ (BENCH_FLAGS e.g. "-runs 30" or "-only commit")
BENCH_FLAGS ?=
bench: build
	$(GO) build -o $(call sq,$(BIN)/bench) ./tools/bench
	$(call sq,$(BIN)/bench) -bin $(call sq,$(BIN)) -dir $(call sq,$(CURDIR)/.bench) -pipeline $(call sq,$(CURDIR)/pipeline.mk) $(BENCH_FLAGS)

## test: formatting, vet, staticcheck, unit tests and every testscript suite, with -short: the
##       long campaigns, epubcheck (Java), most provider personalities, the agent's real
##       one-second timeout tests and the demo pipelines that only repeat what a shorter script
##       proves wait for make test-long (< 90 s here)
# Its temporary projects live on tmpfs where there is one (/dev/shm): the suite fsyncs every write,
# which on a disk costs a quarter of the run; make test-full and CI use the ordinary TMPDIR.
test: fmt-check vet staticcheck
	@d=$$(mktemp -d /dev/shm/novel-test.XXXXXX 2>/dev/null || mktemp -d) && \
	trap 'rm -rf -- "$$d"' EXIT && \
	echo "TMPDIR=$$d $(GO) test -count=1 -short -vet=off ./..." && \
	TMPDIR="$$d" $(GO) test -count=1 -short -vet=off ./...

vet:
	$(GO) vet ./...

# staticcheck is pinned (go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION));
# .ci/run installs it on a fresh machine.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || echo $$($(GO) env GOPATH)/bin/staticcheck)
staticcheck:
	@test -x $(call sq,$(STATICCHECK)) || { echo "staticcheck missing: go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)"; exit 1; }
	$(call sq,$(STATICCHECK)) ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf -- $(call sq,$(BIN))

## fuzz: run every fuzz target (func Fuzz… in internal/) for FUZZTIME each (default 30s); a crasher
##       is left in that package's testdata/fuzz/<Target>/ — commit it as a regression test
FUZZTIME ?= 30s
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' internal | sort); do \
	  pkg=./$$(dirname $$f); \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME); \
	  done; \
	done

## fuzz-seeds: regenerate the seed corpora from the demo novel and the bad-input shapes
fuzz-seeds:
	$(GO) run ./tools/fuzzseeds

## test-full: every test without -short (every testscript, epubcheck, every provider personality,
##            the whole bad-input matrix) but not the long campaigns; CI runs it after make test
test-full:
	$(GO) test -count=1 -timeout 60m ./...

## test-long: everything without -short (every testscript, epubcheck, every provider personality)
##            and the long reliability variants (≥ 50 SIGKILL trials of the pipeline, kills inside
##            lock acquisition and during repairs, imports, exports and volume commits, group SIGKILLs
##            of a slow pipeline, more concurrent runs and lock loops, the whole bad-input matrix);
##            see docs/RELIABILITY.md
test-long: build
	NOVEL_LONG_TESTS=1 $(GO) test -count=1 -timeout 90m ./...
