# Atlas: the two commands of the README are `make demo` and `make test`.
GO ?= go

.PHONY: all build deps deps-go deps-plugin e2e-deps demo test test-go test-plugin vet bench fuzz

all: build

# The demo needs only the binary (it carries the plugin and the Studio emulator) and
# Node.js on PATH; the tests also need the npm packages of plugin/ and e2e/.
deps: deps-go deps-plugin

deps-go:
	@echo "==> go mod download (Go modules, once)"
	$(GO) mod download

deps-plugin:
	@echo "==> npm ci in plugin/ (luau-web and ws, for the plugin's tests)"
	cd plugin && npm ci --no-audit --no-fund

# The MCP clients of the end-to-end tests (the TypeScript SDK, the MCP Inspector)
# run on a Node 22 that e2e/node fetches from the npm registry, whatever Node the
# machine has; their npm ci runs on it too, so that their engines are met.
E2E_NODE_BIN = $(CURDIR)/e2e/node/node_modules/.bin
e2e-deps:
	@echo "==> npm ci in e2e/node, then in e2e/ on that Node 22 (the MCP clients of the end-to-end tests)"
	cd e2e/node && npm ci --no-audit --no-fund
	cd e2e && PATH="$(E2E_NODE_BIN):$$PATH" npm ci --no-audit --no-fund

build:
	@echo "==> go build -o atlas ./cmd/atlas (the first build downloads and compiles the dependencies: a minute or two)"
	$(GO) build -o atlas ./cmd/atlas

# Runs Atlas's main job end to end: a real host, the real Luau plugin in the
# Studio emulator, a git repo, plan → token → apply.
demo: build
	@echo "==> ./atlas demo"
	./atlas demo

vet:
	@echo "==> go vet"
	$(GO) vet ./...

test-go:
	@echo "==> go test (a few minutes: real git repos, hosts, the emulator, MCP clients)"
	$(GO) test -count=1 ./...

test-plugin:
	@echo "==> npm test in plugin/ (the Luau specs in luau-web)"
	cd plugin && npm test

test: deps e2e-deps vet test-go test-plugin

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./gitblob/ ./project/ ./plan/ ./bridge/ ./host/ ./plugin/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzUnmarshal -fuzztime 20s ./dom/
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 20s ./project/
