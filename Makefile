# Atlas: the two commands of the README are `make demo` and `make test`.
GO ?= go

# The release version (main.Version) and the one time every archive entry carries
# (the last commit's, so the same commit gives the same archives).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
export SOURCE_DATE_EPOCH

# Studio runs on Windows and macOS, where no test runs: CI compiles and vets for them.
CROSS_TARGETS ?= windows/amd64 darwin/arm64 darwin/amd64

.PHONY: all build deps demo test test-go test-plugin vet cross release bench fuzz

all: build

deps:
	$(GO) mod download
	cd plugin && npm ci --no-audit --no-fund
	cd e2e && npm ci --no-audit --no-fund

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

test: deps vet test-go test-plugin

# The binary and every test binary compile for each target, and vet passes there
# (vet, build and test -c share the compiled packages).
cross:
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	for t in $(CROSS_TARGETS); do \
		echo "cross: $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./...; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -o "$$out/atlas-$${t%/*}-$${t#*/}" ./cmd/atlas; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) test -c -o "$$out/" ./... >/dev/null; \
		rm -rf "$$out"/*; \
	done

# Archives for every platform in dist/: binary, licences, README, the Studio plugin,
# and a checksums file (internal/release).
release:
	$(GO) run ./internal/release -version $(VERSION) -out dist

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./gitblob/ ./project/ ./plan/ ./bridge/ ./host/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzUnmarshal -fuzztime 20s ./dom/
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 20s ./project/
