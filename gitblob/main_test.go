package gitblob

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// commitUnix is the fixed author and committer time of every test commit.
const commitUnix = 1704164645 // 2024-01-02T03:04:05Z

// benchDir holds the repositories benchmarks share; TestMain removes it.
var benchDir string

// TestMain isolates git, and go-git, from the user's configuration and
// environment so the tests give the same results on every machine.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitblob-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS"} {
		os.Unsetenv(k)
	}
	date := fmt.Sprintf("@%d +0000", commitUnix)
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test Author",
		"GIT_AUTHOR_EMAIL":    "author@example.com",
		"GIT_AUTHOR_DATE":     date,
		"GIT_COMMITTER_NAME":  "Test Committer",
		"GIT_COMMITTER_EMAIL": "committer@example.com",
		"GIT_COMMITTER_DATE":  date,
		"GIT_TERMINAL_PROMPT": "0",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.RemoveAll(home)
	os.Exit(code)
}

// runGit runs git in dir and returns its standard output without the final
// newline.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitOutput(dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gitOutput(dir string, stdin []byte, args ...string) (string, error) {
	args = append([]string{"-c", "init.defaultBranch=main", "-c", "core.autocrlf=false",
		"-c", "core.symlinks=true", "-c", "protocol.file.allow=always"}, args...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// newRepo makes an empty repository in a new temporary directory.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	return dir
}

// writeFiles writes files below dir, creating directories as needed.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// commitAll stages everything and commits, returning the new commit id.
func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return runGit(t, dir, "rev-parse", "HEAD")
}
