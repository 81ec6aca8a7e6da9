package plugin_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plugin"
)

// cacheEnv is a getenv with only the cache override set.
func cacheEnv(dir string) func(string) string {
	return func(k string) string {
		if k == plugin.CacheDirEnv {
			return dir
		}
		return ""
	}
}

// TestNPMCopiesMatchLock proves that the npm tarballs the binary carries (npm/) are the
// packages package-lock.json pins, byte for byte, each with its licence.
func TestNPMCopiesMatchLock(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Version      string            `json:"version"`
			Integrity    string            `json:"integrity"`
			Dependencies map[string]string `json:"dependencies"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	locked := map[string]string{} // package → version
	for key, p := range lock.Packages {
		if name, ok := strings.CutPrefix(key, "node_modules/"); ok {
			locked[name] = p.Version
		}
	}
	// package.json pins exact versions, equal to the lock's.
	for name, want := range lock.Packages[""].Dependencies {
		if locked[name] != want {
			t.Errorf("package.json wants %s %s, the lock has %q", name, want, locked[name])
		}
	}

	tarballs := map[string]string{}
	licences := map[string][]string{}
	names, err := filepath.Glob(filepath.Join("npm", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range names {
		base := filepath.Base(f)
		if base == "README.md" {
			continue
		}
		pkg, version, kind, ok := plugin.NPMFile(base)
		if !ok {
			t.Errorf("npm/%s: not NAME-VERSION.tgz or NAME-VERSION.LICENSE*", base)
			continue
		}
		if locked[pkg] != version {
			t.Errorf("npm/%s: the lock pins %s %q", base, pkg, locked[pkg])
		}
		if kind != "tgz" {
			licences[pkg] = append(licences[pkg], kind)
			continue
		}
		tarballs[pkg] = version
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(data)
		want := lock.Packages["node_modules/"+pkg].Integrity
		if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("npm/%s: integrity %s, the lock has %s", base, got, want)
		}
		manifest, files := readTarball(t, data)
		if manifest.Name != pkg || manifest.Version != version {
			t.Errorf("npm/%s holds %s %s", base, manifest.Name, manifest.Version)
		}
		if slices.Contains(files, "LICENSE") {
			licences[pkg] = append(licences[pkg], "LICENSE")
		}
	}
	for pkg := range locked {
		if _, ok := tarballs[pkg]; !ok {
			t.Errorf("the lock pins %s, npm/ has no tarball of it", pkg)
		}
		if !slices.Contains(licences[pkg], "LICENSE") {
			t.Errorf("%s has no LICENSE (in its tarball or as npm/%s-%s.LICENSE)", pkg, pkg, locked[pkg])
		}
	}
	for pkg := range licences {
		if _, ok := tarballs[pkg]; !ok {
			t.Errorf("npm/ has a licence of %s but not its tarball", pkg)
		}
	}

	// node_modules, when 'npm ci' installed it, holds the same versions.
	for pkg, version := range locked {
		b, err := os.ReadFile(filepath.Join("node_modules", pkg, "package.json"))
		if err != nil {
			continue
		}
		var m struct{ Version string }
		if err := json.Unmarshal(b, &m); err != nil || m.Version != version {
			t.Errorf("node_modules/%s is %q, the lock pins %s", pkg, m.Version, version)
		}
	}
}

type npmManifest struct{ Name, Version string }

// readTarball returns an npm tarball's package.json and its file names.
func readTarball(t *testing.T, tgz []byte) (npmManifest, []string) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var m npmManifest
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m, names
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(h.Name, "package/")
		names = append(names, name)
		if name == "package.json" {
			b, _ := io.ReadAll(tr)
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEmulatorDirUnpacks unpacks into an empty cache: the layout `npm ci` makes in
// plugin/, the same files as the checkout, licences included; a second call reuses it.
func TestEmulatorDirUnpacks(t *testing.T) {
	cache := t.TempDir()
	dir, err := plugin.EmulatorDir(cacheEnv(cache))
	if err != nil {
		t.Fatal(err)
	}
	key, err := plugin.EmulatorKey()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, key); dir != want {
		t.Fatalf("dir = %s, want %s", dir, want)
	}
	same := []string{"emulator/run.mjs", "emulator/runtime.mjs", "emulator/mock/Boot.luau", "emulator/mock/Classes.luau", "src/Main.server.luau", "src/Apply.luau"}
	for _, rel := range same {
		want, err := os.ReadFile(filepath.FromSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: unpacked copy differs from the checkout (%v)", rel, err)
		}
	}
	for _, rel := range []string{
		"node_modules/luau-web/package.json", "node_modules/luau-web/src/index.js",
		"node_modules/luau-web/src/lib/Luau.Web.Asyncify.js", "node_modules/luau-web/src/lib/Luau.Web.JSPI.js",
		"node_modules/luau-web/LICENSE", "node_modules/luau-web/LICENSE.luau",
		"node_modules/ws/package.json", "node_modules/ws/index.js", "node_modules/ws/wrapper.mjs", "node_modules/ws/LICENSE",
	} {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s missing or empty: %v", rel, err)
		}
	}
	for _, rel := range []string{"emulator/bench.mjs", "tests", "node_modules/.package-lock.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			t.Errorf("%s should not be carried", rel)
		}
	}

	// A second call uses the folder as it is: a file added to it survives.
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := plugin.EmulatorDir(cacheEnv(cache))
	if err != nil || again != dir {
		t.Fatalf("second call: %s, %v", again, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the second call unpacked again: %v", err)
	}
}

// TestEmulatorDirRepairs replaces a folder that lost a file, and removes what a crashed
// unpack left an hour ago (but not what one is unpacking now).
func TestEmulatorDirRepairs(t *testing.T) {
	cache := t.TempDir()
	dir, err := plugin.EmulatorDir(cacheEnv(cache))
	if err != nil {
		t.Fatal(err)
	}
	lost := filepath.Join(dir, "node_modules", "ws", "lib", "websocket.js")
	if err := os.Remove(lost); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(cache, ".tmp-emulator-crashed")
	fresh := filepath.Join(cache, ".tmp-emulator-running")
	for _, d := range []string{old, fresh} {
		if err := os.MkdirAll(filepath.Join(d, "emulator"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}

	again, err := plugin.EmulatorDir(cacheEnv(cache))
	if err != nil || again != dir {
		t.Fatalf("EmulatorDir: %s, %v", again, err)
	}
	if _, err := os.Stat(lost); err != nil {
		t.Errorf("the lost file is still missing: %v", err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Errorf("a crashed unpack's folder was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a running unpack's folder was removed: %v", err)
	}
	entries, _ := os.ReadDir(cache)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".tmp-emulator-running", filepath.Base(dir)}; !slices.Equal(names, want) {
		t.Errorf("cache holds %v, want %v", names, want)
	}
}

// TestEmulatorDirConcurrent races unpacks into one empty cache, from goroutines and
// from processes: every one gets the same complete folder, and nothing else is left.
func TestEmulatorDirConcurrent(t *testing.T) {
	if os.Getenv("ATLAS_TEST_UNPACK") != "" {
		return // a child process of this test: see below
	}
	cache := t.TempDir()
	const n = 6
	dirs := make([]string, 2*n)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = plugin.EmulatorDir(cacheEnv(cache))
		}()
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestEmulatorDirChild$")
			cmd.Env = append(os.Environ(), "ATLAS_TEST_UNPACK="+cache)
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[n+i] = fmt.Errorf("%v: %s", err, out)
				return
			}
			_, after, ok := strings.Cut(string(out), "dir=")
			dirs[n+i], _, _ = strings.Cut(after, "\n")
			if !ok {
				errs[n+i] = fmt.Errorf("no dir in %s", out)
			}
		}()
	}
	wg.Wait()
	key, _ := plugin.EmulatorKey()
	for i := range dirs {
		if errs[i] != nil || dirs[i] != filepath.Join(cache, key) {
			t.Errorf("unpack %d: %q, %v", i, dirs[i], errs[i])
		}
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || entries[0].Name() != key {
		t.Errorf("cache holds %d entries, want only %s", len(entries), key)
	}
	if _, err := os.Stat(filepath.Join(cache, key, "node_modules", "luau-web", "src", "lib", "Luau.Web.Asyncify.js")); err != nil {
		t.Error(err)
	}
}

// TestEmulatorDirChild is TestEmulatorDirConcurrent's child process.
func TestEmulatorDirChild(t *testing.T) {
	cache := os.Getenv("ATLAS_TEST_UNPACK")
	if cache == "" {
		return // only runs as a child of TestEmulatorDirConcurrent
	}
	dir, err := plugin.EmulatorDir(cacheEnv(cache))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("dir=%s\n", dir)
}

// TestEmulatorRunsFromCache starts the unpacked emulator under node: its imports (ws,
// luau-web and its wasm) resolve from the unpacked node_modules.
func TestEmulatorRunsFromCache(t *testing.T) {
	node, err := plugin.Node(context.Background())
	if err != nil {
		t.Fatalf("the emulator tests need Node.js: %v", err)
	}
	dir, err := plugin.EmulatorDir(cacheEnv(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	// Loads the runtime and boots the mock DataModel with the plugin's sources.
	script := `import { createRuntime, readSources, srcDir } from './emulator/runtime.mjs';
import { WebSocket } from 'ws';
const rt = await createRuntime({ virtualTime: true });
await rt.call('installPlugin', JSON.stringify(readSources(srcDir)), '{}');
rt.stop();
console.log('booted', typeof WebSocket);`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "booted function") {
		t.Fatalf("node: %v\n%s", err, out)
	}
}

func TestCacheDir(t *testing.T) {
	tmp := os.TempDir()
	private := "atlas-cache"
	if uid := os.Getuid(); uid >= 0 {
		private += fmt.Sprintf("-%d", uid)
	}
	home := filepath.FromSlash("/h/me")
	userCache := filepath.Join(home, ".cache", "atlas")
	switch runtime.GOOS {
	case "darwin":
		userCache = filepath.Join(home, "Library", "Caches", "atlas")
	case "windows":
		userCache = filepath.Join(tmp, private) // Windows reads LocalAppData, not HOME
	}
	tests := []struct {
		name        string
		env         map[string]string
		want        string
		wantPrivate bool
	}{
		{"override", map[string]string{"ATLAS_CACHE_DIR": "c", "HOME": home}, "c", false},
		{"home", map[string]string{"HOME": home}, userCache, runtime.GOOS == "windows"},
		{"nothing", map[string]string{}, filepath.Join(tmp, private), true},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct {
			name        string
			env         map[string]string
			want        string
			wantPrivate bool
		}{"xdg", map[string]string{"HOME": home, "XDG_CACHE_HOME": filepath.Join(home, "xdg")}, filepath.Join(home, "xdg", "atlas"), false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, priv := plugin.CacheDir(func(k string) string { return tt.env[k] })
			if got != tt.want || priv != tt.wantPrivate {
				t.Errorf("CacheDir = %s, %v; want %s, %v", got, priv, tt.want, tt.wantPrivate)
			}
		})
	}
}

// TestEmulatorDirWithoutHome unpacks into a private folder of the temp folder when
// there is no cache folder, and refuses one that others can write.
func TestEmulatorDirWithoutHome(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TEMP", tmp)
	t.Setenv("TMP", tmp)
	none := func(string) string { return "" }
	root, private := plugin.CacheDir(none)
	if !private || filepath.Dir(root) != tmp {
		t.Fatalf("CacheDir = %s, %v; want a private folder in %s", root, private, tmp)
	}
	dir, err := plugin.EmulatorDir(none)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != root {
		t.Fatalf("dir = %s, want one in %s", dir, root)
	}
	if runtime.GOOS == "windows" {
		return // the temp folder is per user there
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v, mode %v; want 0700", root, err, fi.Mode().Perm())
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	_, err = plugin.EmulatorDir(none)
	if ce := errcode.As(err); err == nil || ce.Code != errcode.Internal || ce.Details["reasonCode"] != "no_cache" {
		t.Fatalf("a world-writable cache folder: %v, want E_INTERNAL no_cache", err)
	}
}

func TestNodeMajor(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"v20.20.2\n", 20, true},
		{"v22.19.0", 22, true},
		{"v18.19.1", 18, true},
		{"v100.0.0", 100, true},
		{"20.1.0", 0, false},
		{"", 0, false},
		{"node: bad option", 0, false},
	}
	for _, tt := range tests {
		got, ok := plugin.NodeMajor(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NodeMajor(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestNode finds node on PATH, and answers E_NODE_MISSING when it is missing, too old or
// broken, each with how to install it.
func TestNode(t *testing.T) {
	if _, err := plugin.Node(context.Background()); err != nil {
		t.Fatalf("the node on PATH: %v", err)
	}
	fake := func(script string) string {
		dir := t.TempDir()
		name, body := "node", "#!/bin/sh\n"+script+"\n"
		if runtime.GOOS == "windows" {
			name, body = "node.bat", "@"+script+"\r\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name, path, reason string
	}{
		{"missing", t.TempDir(), "no_node"},
		{"too old", fake("echo v18.19.1"), "node_too_old"},
		{"garbage", fake("echo hello"), "node_too_old"},
		{"broken", fake("exit 3"), "node_broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			_, err := plugin.Node(context.Background())
			ce := errcode.As(err)
			if err == nil || ce.Code != errcode.NodeMissing || ce.Details["reasonCode"] != tt.reason {
				t.Fatalf("Node() = %v (%v), want E_NODE_MISSING %s", err, ce.Details, tt.reason)
			}
			if next := ce.NextActions(); len(next) != 1 || next[0] != errcode.NextInstallNode {
				t.Errorf("nextActions = %v, want [install_node]", next)
			}
		})
	}
}

// BenchmarkEmulatorDirFirstUse is the first use on a machine: hash, unpack, rename.
// (EmulatorKey's hash is computed once per process, so it counts in the first run only.)
func BenchmarkEmulatorDirFirstUse(b *testing.B) {
	for b.Loop() {
		if _, err := plugin.EmulatorDir(cacheEnv(b.TempDir())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmulatorDirReuse is every later use: check the stamp and the files' sizes.
func BenchmarkEmulatorDirReuse(b *testing.B) {
	env := cacheEnv(b.TempDir())
	if _, err := plugin.EmulatorDir(env); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := plugin.EmulatorDir(env); err != nil {
			b.Fatal(err)
		}
	}
}
