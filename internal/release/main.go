package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/plugin"
)

// Target is one platform a release is built for.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Targets are the platforms of a release: Studio runs on Windows and macOS; Linux is
// for CI and agents.
var Targets = []Target{
	{"windows", "amd64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"linux", "amd64"}, {"linux", "arm64"},
}

// Options says what to build.
type Options struct {
	Version string
	Root    string // the module's root folder
	Out     string // where the archives go (emptied first)
	Targets []Target
	// Date is the time every archive entry carries.
	Date time.Time
	// Go is the go command.
	Go  string
	Log io.Writer
}

// extraFiles are copied into every archive from the module root, under these names.
var extraFiles = []struct{ src, name string }{
	{"LICENSE", "LICENSE"},
	{"dom/reflection/LICENSE-rbx-dom.txt", "LICENSE-rbx-dom.txt"},
	{"README.md", "README.md"},
}

// entry is one file of an archive.
type entry struct {
	name string
	mode int64
	data []byte
}

// Build builds every target's archive, the plugin on its own, and the checksums
// file, and returns the names of the files it wrote to opts.Out.
func Build(ctx context.Context, opts Options) ([]string, error) {
	if opts.Version == "" {
		return nil, fmt.Errorf("no version")
	}
	if err := os.RemoveAll(opts.Out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	var pluginBuf bytes.Buffer
	if err := plugin.Build(&pluginBuf); err != nil {
		return nil, fmt.Errorf("build the plugin: %w", err)
	}
	common := []entry{{name: plugin.FileName, mode: 0o644, data: pluginBuf.Bytes()}}
	for _, f := range extraFiles {
		data, err := os.ReadFile(filepath.Join(opts.Root, filepath.FromSlash(f.src)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.src, err)
		}
		common = append(common, entry{name: f.name, mode: 0o644, data: data})
	}

	written := []string{plugin.FileName}
	if err := os.WriteFile(filepath.Join(opts.Out, plugin.FileName), pluginBuf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	for _, t := range opts.Targets {
		bin, err := buildBinary(ctx, opts, t)
		if err != nil {
			return nil, err
		}
		binName := "atlas"
		if t.OS == "windows" {
			binName += ".exe"
		}
		base := fmt.Sprintf("atlas_%s_%s_%s", opts.Version, t.OS, t.Arch)
		entries := append([]entry{{name: binName, mode: 0o755, data: bin}}, common...)
		sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
		var archive []byte
		name := base + ".tar.gz"
		if t.OS == "windows" {
			name = base + ".zip"
			archive, err = zipArchive(base, entries, opts.Date)
		} else {
			archive, err = tarGzArchive(base, entries, opts.Date)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(opts.Out, name), archive, 0o644); err != nil {
			return nil, err
		}
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "%s (%d bytes)\n", name, len(archive))
		}
		written = append(written, name)
	}
	sort.Strings(written)
	sums := checksumsName(opts.Version)
	var b strings.Builder
	for _, name := range written {
		data, err := os.ReadFile(filepath.Join(opts.Out, name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(filepath.Join(opts.Out, sums), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return append(written, sums), nil
}

func checksumsName(version string) string { return "atlas_" + version + "_checksums.txt" }

// buildBinary cross-compiles cmd/atlas for t: no cgo, no local paths and no VCS
// stamp in the binary, so it depends on the sources and the Go version only.
func buildBinary(ctx context.Context, opts Options, t Target) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "atlas-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "atlas")
	cmd := exec.CommandContext(ctx, opts.Go, "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.Version="+opts.Version, "-o", out, "./cmd/atlas")
	cmd.Dir = opts.Root
	cmd.Env = append(os.Environ(), "GOOS="+t.OS, "GOARCH="+t.Arch, "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build for %s: %w\n%s", t, err, msg)
	}
	return os.ReadFile(out)
}

func tarGzArchive(dir string, entries []entry, date time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: date, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + e.name, Mode: e.mode, Size: int64(len(e.data)), ModTime: date, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(dir string, entries []entry, date time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: dir + "/" + e.name, Method: zip.Deflate, Modified: date}
		h.SetMode(os.FileMode(e.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseTargets reads "os/arch,os/arch"; "" is every target.
func parseTargets(s string) ([]Target, error) {
	if s == "" {
		return Targets, nil
	}
	var ts []Target
	for _, part := range strings.Split(s, ",") {
		goos, arch, ok := strings.Cut(strings.TrimSpace(part), "/")
		if !ok || goos == "" || arch == "" {
			return nil, fmt.Errorf("target %q is not os/arch", part)
		}
		ts = append(ts, Target{goos, arch})
	}
	return ts, nil
}

// releaseDate is SOURCE_DATE_EPOCH (the reproducible-builds convention), else a
// fixed date; zip cannot hold times before 1980.
func releaseDate(epoch string) (time.Time, error) {
	if epoch == "" {
		return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), nil
	}
	n, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", epoch, err)
	}
	t := time.Unix(n, 0).UTC()
	if min := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(min) {
		t = min
	}
	return t, nil
}

func main() {
	version := flag.String("version", "", "the version to stamp (main.Version) and name the archives with")
	out := flag.String("out", "dist", "output folder (emptied first)")
	targets := flag.String("targets", "", "comma-separated os/arch list (default: every release target)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *version, *out, *targets); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, version, out, targets string) error {
	ts, err := parseTargets(targets)
	if err != nil {
		return err
	}
	date, err := releaseDate(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	files, err := Build(ctx, Options{Version: strings.TrimPrefix(version, "v"), Root: root, Out: out, Targets: ts, Date: date, Go: goCmd, Log: os.Stdout})
	if err != nil {
		return err
	}
	fmt.Printf("wrote %d files to %s\n", len(files), out)
	return nil
}
