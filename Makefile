# Atlas: the two commands of the README are `make demo` and `make test`.
GO ?= go

.PHONY: all build deps e2e-deps demo test test-go test-plugin vet bench fuzz

all: build

deps:
	$(GO) mod download
	cd plugin && npm ci --no-audit --no-fund

# The MCP clients of the end-to-end tests (the TypeScript SDK, the MCP Inspector)
# run on a Node 22 that e2e/node fetches from the npm registry, whatever Node the
# machine has; their npm ci runs on it too, so that their engines are met.
E2E_NODE_BIN = $(CURDIR)/e2e/node/node_modules/.bin
e2e-deps:
	cd e2e/node && npm ci --no-audit --no-fund
	cd e2e && PATH="$(E2E_NODE_BIN):$$PATH" npm ci --no-audit --no-fund

build:
	$(GO) build -o atlas ./cmd/atlas

# Runs Atlas's main job end to end: a real host, the real Luau plugin in the
# Studio emulator, a git repo, plan → token → apply.
demo: deps build
	./atlas demo

vet:
	$(GO) vet ./...

test-go:
	$(GO) test -count=1 ./...

test-plugin:
	cd plugin && npm test

test: deps e2e-deps vet test-go test-plugin

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./gitblob/ ./project/ ./plan/ ./bridge/ ./host/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzUnmarshal -fuzztime 20s ./dom/
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 20s ./project/
