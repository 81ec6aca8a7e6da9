package plugin

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
)

// MinNodeMajor is the oldest Node.js the emulator runs on. ws 8 asks for Node 10 and
// luau-web (top-level await, WebAssembly) for about 14.8; 20 is the oldest the tests
// run on and what package.json's engines field states.
const MinNodeMajor = 20

// installNode is the next action when node is missing or too old.
var installNode = "install Node.js " + strconv.Itoa(MinNodeMajor) + " or later (https://nodejs.org/en/download, or 'brew install node' on macOS, " +
	"'winget install OpenJS.NodeJS.LTS' on Windows), make sure 'node' is on PATH, and run the command again"

// nodeVersion is compiled on first use, like npmFile.
var nodeVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)`) })

// NodeMajor reads the major version from `node --version` output ("v20.11.1").
func NodeMajor(version string) (int, bool) {
	m := nodeVersion().FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Node finds node on PATH and checks that it is recent enough for the emulator; if not,
// the error is E_NODE_MISSING and says how to install it.
func Node(ctx context.Context) (path string, err error) {
	path, err = exec.LookPath("node")
	if err != nil {
		return "", errcode.New(errcode.NodeMissing,
			"node was not found on PATH: the Studio emulator (atlas demo, --emulate) runs on Node.js %d or later", MinNodeMajor).
			Reason(errcode.ReasonNoNode, errcode.NextInstallNode)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", errcode.New(errcode.NodeMissing, "%s --version failed (%v): the Studio emulator needs a working Node.js %d or later", path, err, MinNodeMajor).
			Reason(errcode.ReasonNodeBroken, errcode.NextInstallNode).With("path", path)
	}
	version := strings.TrimSpace(string(out))
	major, ok := NodeMajor(version)
	if !ok || major < MinNodeMajor {
		return "", errcode.New(errcode.NodeMissing, "node on PATH is %q: the Studio emulator needs Node.js %d or later", version, MinNodeMajor).
			Reason(errcode.ReasonNodeTooOld, errcode.NextInstallNode).With("path", path).With("version", version)
	}
	return path, nil
}
