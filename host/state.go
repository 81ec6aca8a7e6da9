package host

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/internal/atomicfile"
)

// StateDir is where hosts register and keep keys and journals: $ATLAS_STATE_DIR, else
// the OS's per-user state folder.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("ATLAS_STATE_DIR"); d != "" {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "Atlas"), nil
		}
	case "darwin":
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, "Library", "Application Support", "Atlas"), nil
		}
	default:
		if d := getenv("XDG_STATE_HOME"); d != "" {
			return filepath.Join(d, "atlas"), nil
		}
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "state", "atlas"), nil
		}
	}
	return "", errors.New("no state folder: set ATLAS_STATE_DIR")
}

// ProjectKey identifies a project in the state dir (and is the token audience).
func ProjectKey(projectFile string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(projectFile)))
	return hex.EncodeToString(sum[:12])
}

// ProjectStateDir is the folder of one project's state.
func ProjectStateDir(stateDir, projectFile string) string {
	return filepath.Join(stateDir, "projects", ProjectKey(projectFile))
}

// Registration is what a running host writes so clients can find it.
type Registration struct {
	PID         int       `json:"pid"`
	Port        int       `json:"port"`
	URL         string    `json:"url"`
	ProjectFile string    `json:"projectFile"`
	Version     string    `json:"version"`
	StartedAt   time.Time `json:"startedAt"`
	// Kind is "serve" or "mcp".
	Kind string `json:"kind"`
}

func registrationPath(dir string) string { return filepath.Join(dir, "host.json") }
func secretPath(dir string) string       { return filepath.Join(dir, "host.secret") }

// register writes the host file and a fresh secret (0600).
func register(dir string, reg Registration) (secret string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret = hex.EncodeToString(b[:])
	if err := atomicfile.Write(secretPath(dir), []byte(secret), 0o600); err != nil {
		return "", err
	}
	data, _ := json.MarshalIndent(reg, "", "  ")
	if err := atomicfile.Write(registrationPath(dir), data, 0o600); err != nil {
		return "", err
	}
	return secret, nil
}

// unregister removes the host file if it is still ours.
func unregister(dir string, pid int) {
	if reg, err := readRegistration(dir); err == nil && reg.PID == pid {
		os.Remove(registrationPath(dir))
		os.Remove(secretPath(dir))
	}
}

func readRegistration(dir string) (*Registration, error) {
	b, err := os.ReadFile(registrationPath(dir))
	if err != nil {
		return nil, err
	}
	var reg Registration
	if err := json.Unmarshal(b, &reg); err != nil {
		return nil, fmt.Errorf("bad host file: %w", err)
	}
	return &reg, nil
}

func readSecret(dir string) (string, error) {
	st, err := os.Stat(secretPath(dir))
	if err != nil {
		return "", err
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("host secret %s is readable by others (mode %v)", secretPath(dir), st.Mode().Perm())
	}
	b, err := os.ReadFile(secretPath(dir))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
