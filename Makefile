# Atlas: the two commands of the README are `make demo` and `make test`.
GO ?= go

# The release version (main.Version) and the one time every archive entry carries
# (the last commit's, so the same commit gives the same archives).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
export SOURCE_DATE_EPOCH

# Studio runs on Windows and macOS, where no test runs: CI compiles and vets for them.
CROSS_TARGETS ?= windows/amd64 darwin/arm64 darwin/amd64 linux/386

.PHONY: all build deps deps-go deps-plugin e2e-deps demo test test-go test-plugin vet cross release bench bench-e2e fuzz faults

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

# Static, as the release archives are (CGO_ENABLED=0): a binary linked against libc
# starts about 1 ms slower, a tenth of a small command's time.
build:
	@echo "==> go build -o atlas ./cmd/atlas (the first build downloads and compiles the dependencies: a minute or two)"
	CGO_ENABLED=0 $(GO) build -o atlas ./cmd/atlas

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

# The fault suite's long form (internal/faults): every race 50 times, with real
# processes killed by SIGKILL; each test logs its count line ("N rounds, 0 lost").
# `make test` runs its short form. ATLAS_FAULT_ROUNDS=N for another count.
ATLAS_FAULT_ROUNDS ?= 50
faults: deps-plugin
	@echo "==> the fault suite, $(ATLAS_FAULT_ROUNDS) rounds of each race (several minutes)"
	ATLAS_FAULT_ROUNDS=$(ATLAS_FAULT_ROUNDS) $(GO) test -count=1 -v -timeout 60m -run '^TestFault' ./internal/faults/

# The binary and every test binary compile and link for each target, and vet passes
# there. `go test -exec true` links each package's test binary and "runs" it with
# true(1), which ignores it: two test packages may share a name, which test -c -o
# into one folder refuses.
cross:
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	for t in $(CROSS_TARGETS); do \
		echo "cross: $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./...; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -o "$$out/atlas-$${t%/*}-$${t#*/}" ./cmd/atlas; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) test -count=1 -exec true ./... >/dev/null; \
		rm -rf "$$out"/*; \
	done

# Archives for every platform in dist/: binary, licences, README, the Studio plugin,
# and a checksums file (internal/release).
release:
	$(GO) run ./internal/release -version $(VERSION) -out dist

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./gitblob/ ./project/ ./plan/ ./bridge/ ./host/ ./plugin/

# End to end through the CLI against `atlas serve --emulate`, beside git status and
# git hash-object on the same generated projects (minutes; not part of `make test`).
SIZES ?= 1k,10k
bench-e2e: deps
	$(GO) run ./internal/benche2e -sizes $(SIZES)

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzUnmarshal -fuzztime 20s ./dom/
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 20s ./project/
