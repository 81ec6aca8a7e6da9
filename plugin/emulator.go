package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
)

// The emulator runs as `node emulator/run.mjs` in a folder laid out like plugin/ after
// `npm ci`: src/, emulator/ and node_modules/. A binary carries those files (files, in
// plugin.go) and unpacks them once per content into the user's cache folder, so that
// `atlas demo` and `--emulate` need nothing but Node.js.

// CacheDirEnv names the variable that overrides Atlas's cache folder.
const CacheDirEnv = "ATLAS_CACHE_DIR"

const (
	// layout is hashed with the files: a change to how they are unpacked gets a new folder.
	layout = "atlas-emulator 1"
	// stampName is the file, written last, that lists what a complete folder holds.
	stampName = ".atlas-emulator"
	// tmpPrefix starts the names of folders being unpacked (and of broken ones being removed).
	tmpPrefix = ".tmp-"
	// staleAfter is when a tmpPrefix folder is a crashed process's leftover.
	staleAfter = time.Hour
)

var (
	keyOnce sync.Once
	key     string
	keyErr  error
)

// EmulatorKey names the folder the emulator is unpacked into: "emulator-" and 16 hex
// digits of a SHA-256 of every embedded file, so binaries with different files never
// share a folder and binaries with the same files do.
func EmulatorKey() (string, error) {
	keyOnce.Do(func() {
		h := sha256.New()
		io.WriteString(h, layout+"\n")
		keyErr = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(files, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
			h.Write(b)
			return nil
		})
		key = "emulator-" + hex.EncodeToString(h.Sum(nil))[:16]
	})
	return key, keyErr
}

// CacheDir is where Atlas keeps files it can always recreate: $ATLAS_CACHE_DIR, else
// "atlas" in the OS's per-user cache folder, else (no HOME: MCP clients may start
// servers with a bare environment) a folder of this user in the temp folder, which
// private reports.
func CacheDir(getenv func(string) string) (dir string, private bool) {
	if d := getenv(CacheDirEnv); d != "" {
		return d, false
	}
	if d := userCacheDir(getenv); d != "" {
		return filepath.Join(d, "atlas"), false
	}
	return filepath.Join(os.TempDir(), privateName(cacheFallback)), true
}

// cacheFallback names CacheDir's folder in the temp folder.
const cacheFallback = "atlas-cache"

// privateName is name with this user's id: the temp folder is shared on Unix.
func privateName(name string) string {
	if uid := os.Getuid(); uid >= 0 {
		name += "-" + strconv.Itoa(uid)
	}
	return name
}

// PrivateTempDir returns a folder of this user in the temp folder (name and the user's
// id), created with mode 0700 if missing. It refuses one that another user owns or can
// write, where someone could plant the files that Atlas runs or read what it keeps.
func PrivateTempDir(name string) (string, error) {
	dir := filepath.Join(os.TempDir(), privateName(name))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := checkPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// userCacheDir is os.UserCacheDir read through getenv, or "" when there is none.
func userCacheDir(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows":
		return getenv("LocalAppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Caches")
		}
	default:
		if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
			return d
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".cache")
		}
	}
	return ""
}

// EmulatorDir returns a folder from which `node emulator/run.mjs` runs the embedded
// emulator: CacheDir/emulator-<hash>, unpacked on first use. Unpacking goes to a temp
// folder that is renamed into place, so a folder under that name is always complete,
// and processes racing to unpack all end up using the one that won.
func EmulatorDir(getenv func(string) string) (string, error) {
	k, err := EmulatorKey()
	if err != nil {
		return "", errcode.Wrap(errcode.Internal, err, "read the embedded emulator")
	}
	root, private := CacheDir(getenv)
	final := filepath.Join(root, k)
	if verify(final, k) == nil {
		return final, nil
	}
	fail := func(err error) (string, error) {
		return "", errcode.Wrap(errcode.Internal, err, "unpack the Studio emulator into "+root).
			Reason(errcode.ReasonNoCache, errcode.NextSetCacheDir)
	}
	if private {
		_, err = PrivateTempDir(cacheFallback)
	} else {
		err = os.MkdirAll(root, 0o755)
	}
	if err != nil {
		return fail(err)
	}
	removeStale(root)
	tmp, err := os.MkdirTemp(root, tmpPrefix+k+"-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp) // nothing is left there once the rename has happened
	if err := unpack(tmp, k); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process got there first (fine: its folder is complete), or a broken
		// folder is in the way (moved aside, then this one takes its place).
		if verify(final, k) == nil {
			return final, nil
		}
		aside := tmp + "-old"
		if err := os.Rename(final, aside); err == nil {
			defer os.RemoveAll(aside)
		}
		if err := os.Rename(tmp, final); err != nil && verify(final, k) != nil {
			return fail(err)
		}
	}
	if err := verify(final, k); err != nil {
		return fail(err)
	}
	return final, nil
}

// npmFile matches the npm/ files: a package's tarball, or a licence to put beside it.
// Compiled on first use: every command of the binary starts through this package.
var npmFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+)-(\d+\.\d+\.\d+)\.(tgz|LICENSE.*)$`)
})

// NPMFile splits a file name of npm/ into its package, version and kind ("tgz" or a
// licence file's name).
func NPMFile(name string) (pkg, version, kind string, ok bool) {
	m := npmFile().FindStringSubmatch(name)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// unpack writes every embedded file into dir as the emulator expects it, then the stamp.
func unpack(dir, k string) error {
	var stamp strings.Builder
	stamp.WriteString(k + "\n")
	write := func(rel string, data []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&stamp, "%d %s\n", len(data), rel)
		return nil
	}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		name, ok := strings.CutPrefix(p, "npm/")
		if !ok {
			return write(p, b)
		}
		pkg, _, kind, ok := NPMFile(name)
		switch {
		case !ok:
			return fmt.Errorf("unexpected embedded file %s", p)
		case kind == "tgz":
			return untar(b, func(rel string, data []byte) error {
				return write(path.Join("node_modules", pkg, rel), data)
			})
		default:
			return write(path.Join("node_modules", pkg, kind), b)
		}
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, stampName), []byte(stamp.String()), 0o644)
}

// untar calls write for every file of an npm tarball, named without its "package/".
func untar(tgz []byte, write func(rel string, data []byte) error) error {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, "package/")
		if h.Typeflag == tar.TypeDir {
			continue
		}
		if !ok || !fs.ValidPath(rel) || h.Typeflag != tar.TypeReg {
			return fmt.Errorf("unexpected entry %q in an npm tarball", h.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := write(rel, b); err != nil {
			return err
		}
	}
}

// verify checks that dir is a complete unpacked copy under key k: its stamp names k,
// and every file the stamp lists is there with its size.
func verify(dir, k string) error {
	b, err := os.ReadFile(filepath.Join(dir, stampName))
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) < 2 || lines[0] != k {
		return errors.New("the emulator folder's stamp is not this binary's")
	}
	for _, l := range lines[1:] {
		size, rel, ok := strings.Cut(l, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("bad stamp line %q", l)
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() || fi.Size() != n {
			return fmt.Errorf("%s is not the file that was unpacked", rel)
		}
	}
	return nil
}

// removeStale removes what crashed processes left while unpacking.
func removeStale(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}
