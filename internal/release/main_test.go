package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom/rbxmx"
)

type archived struct {
	mode    os.FileMode
	modTime time.Time
	data    []byte
}

func readTarGz(t *testing.T, data []byte) (names []string, files map[string]archived) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files = map[string]archived{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		files[h.Name] = archived{mode: os.FileMode(h.Mode).Perm(), modTime: h.ModTime.UTC(), data: b}
	}
}

func readZip(t *testing.T, data []byte) (names []string, files map[string]archived) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]archived{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		files[f.Name] = archived{mode: f.Mode().Perm(), modTime: f.Modified.UTC(), data: b}
	}
	return names, files
}

// TestBuild builds a release for this machine's platform and for one other (zip for
// Windows, tar.gz elsewhere) and checks what `make release` promises: the entries of
// each archive, their fixed time and modes, the checksums, a binary that reports the
// injected version, and the same bytes when built again.
func TestBuild(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	host := Target{runtime.GOOS, runtime.GOARCH}
	other := Target{"windows", "amd64"}
	if host.OS == "windows" {
		other = Target{"darwin", "arm64"}
	}
	date := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	opts := Options{Version: "1.2.3-test", Root: root, Out: filepath.Join(t.TempDir(), "dist"), Targets: []Target{host, other}, Date: date, Go: goCommand()}
	written, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}

	archiveName := func(tg Target) string {
		ext := ".tar.gz"
		if tg.OS == "windows" {
			ext = ".zip"
		}
		return "atlas_1.2.3-test_" + tg.OS + "_" + tg.Arch + ext
	}
	wantWritten := []string{"Atlas.rbxmx", archiveName(host), archiveName(other), "atlas_1.2.3-test_checksums.txt"}
	if diff := cmp.Diff(sortedCopy(wantWritten), sortedCopy(written)); diff != "" {
		t.Errorf("Build wrote (-want +got):\n%s", diff)
	}

	var hostBinary []byte
	for _, tg := range []Target{host, other} {
		name := archiveName(tg)
		data, err := os.ReadFile(filepath.Join(opts.Out, name))
		if err != nil {
			t.Fatal(err)
		}
		dir := "atlas_1.2.3-test_" + tg.OS + "_" + tg.Arch + "/"
		bin := "atlas"
		var names []string
		var files map[string]archived
		if tg.OS == "windows" {
			bin = "atlas.exe"
			names, files = readZip(t, data)
		} else {
			names, files = readTarGz(t, data)
			if names[0] != dir {
				t.Errorf("%s: first entry %q, want the folder %q", name, names[0], dir)
			}
			names = names[1:]
		}
		want := []string{dir + "Atlas.rbxmx", dir + "LICENSE", dir + "LICENSE-rbx-dom.txt", dir + "README.md", dir + bin}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("%s entries (-want +got):\n%s", name, diff)
		}
		for n, f := range files {
			if !f.modTime.Equal(date) {
				t.Errorf("%s: %s has time %v, want %v", name, n, f.modTime, date)
			}
		}
		if m := files[dir+bin].mode; m != 0o755 {
			t.Errorf("%s: %s has mode %v, want 0755", name, bin, m)
		}
		if m := files[dir+"LICENSE"].mode; m != 0o644 {
			t.Errorf("%s: LICENSE has mode %v, want 0644", name, m)
		}
		if !strings.Contains(string(files[dir+"LICENSE"].data), "MIT License") {
			t.Errorf("%s: LICENSE is not the project's MIT licence", name)
		}
		roots, err := rbxmx.Decode(bytes.NewReader(files[dir+"Atlas.rbxmx"].data))
		if err != nil || len(roots) != 1 || roots[0].Name != "Atlas" || roots[0].ClassName != "Script" {
			t.Errorf("%s: Atlas.rbxmx = %v, %v; want the plugin Script", name, roots, err)
		}
		if tg == host {
			hostBinary = files[dir+bin].data
		}
	}

	// The checksums cover every other file, with their real SHA-256.
	sums, err := os.ReadFile(filepath.Join(opts.Out, "atlas_1.2.3-test_checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n")
	if len(lines) != len(written)-1 {
		t.Errorf("checksums has %d lines, want %d:\n%s", len(lines), len(written)-1, sums)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums line %q is not 'SUM  NAME'", line)
		}
		data, err := os.ReadFile(filepath.Join(opts.Out, name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
			t.Errorf("checksum of %s = %s, want %x", name, sum, h)
		}
	}

	// The binary reports the injected version.
	exe := filepath.Join(t.TempDir(), "atlas")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if err := os.WriteFile(exe, hostBinary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("the released binary does not run: %v", err)
	}
	var env struct {
		Data struct{ Version string } `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Data.Version != "1.2.3-test" {
		t.Errorf("atlas version --json = %s (%v), want version 1.2.3-test", out, err)
	}

	// Built again, from the build cache, the release has the same bytes.
	again := opts
	again.Out = filepath.Join(t.TempDir(), "dist")
	if _, err := Build(context.Background(), again); err != nil {
		t.Fatal(err)
	}
	sums2, err := os.ReadFile(filepath.Join(again.Out, "atlas_1.2.3-test_checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(sums), string(sums2)); diff != "" {
		t.Errorf("a second build differs (-first +second):\n%s", diff)
	}
}

func TestParseTargets(t *testing.T) {
	tests := []struct {
		in      string
		want    []Target
		wantErr bool
	}{
		{"", Targets, false},
		{"linux/amd64", []Target{{"linux", "amd64"}}, false},
		{"windows/amd64, darwin/arm64", []Target{{"windows", "amd64"}, {"darwin", "arm64"}}, false},
		{"linux", nil, true},
		{"/amd64", nil, true},
	}
	for _, tt := range tests {
		got, err := parseTargets(tt.in)
		if (err != nil) != tt.wantErr || !cmp.Equal(got, tt.want) {
			t.Errorf("parseTargets(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReleaseDate(t *testing.T) {
	tests := []struct {
		epoch string
		want  time.Time
	}{
		{"", time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"1795465399", time.Unix(1795465399, 0).UTC()},
		{"0", time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}, // zip starts in 1980
	}
	for _, tt := range tests {
		got, err := releaseDate(tt.epoch)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("releaseDate(%q) = %v, %v; want %v", tt.epoch, got, err, tt.want)
		}
	}
	if _, err := releaseDate("yesterday"); err == nil {
		t.Error("releaseDate(\"yesterday\") succeeded, want an error")
	}
}

func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
