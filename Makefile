# Developer tasks only; the novel pipeline itself is pipeline.mk.
SHELL := /bin/bash
GO    ?= go
BIN   := $(CURDIR)/bin
PREFIX ?= $(HOME)/.local

.PHONY: all build install test vet fmt-check clean
all: build

## build: compile every binary into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

## install: copy the binaries to $(PREFIX)/bin (default ~/.local/bin)
install: build
	@mkdir -p $(PREFIX)/bin
	cp $(BIN)/novel* $(PREFIX)/bin/

## test: formatting, vet, unit tests and every testscript suite
test: fmt-check vet
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf $(BIN)
