package gitblob

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// lsFiles parses `git ls-files -s` into index entries with Path, Mode, Hash
// and Stage.
func lsFiles(t *testing.T, dir string) []IndexEntry {
	t.Helper()
	var entries []IndexEntry
	out := runGit(t, dir, "-c", "core.quotePath=false", "ls-files", "-s")
	for line := range strings.Lines(out) {
		meta, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			t.Fatalf("ls-files line %q", line)
		}
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			t.Fatal(err)
		}
		stage, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, IndexEntry{Path: name, Mode: uint32(mode), Hash: f[1], Stage: stage})
	}
	return entries
}

// stagedByGit is what StagedChanges must return.
func stagedByGit(t *testing.T, dir string) []string {
	t.Helper()
	out := runGit(t, dir, "-c", "core.quotePath=false", "diff", "--cached", "--name-only")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func chmodX(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestIndexAndStagedChanges(t *testing.T) {
	base := map[string]string{
		"keep.lua":          "keep\n",
		"modify.lua":        "before\n",
		"delete.lua":        "delete me\n",
		"mode.sh":           "#!/bin/sh\n",
		"dir/nested.lua":    "nested\n",
		"dir/unchanged.lua": "same\n",
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // after the base commit
		want  []string
	}{
		{"clean", func(t *testing.T, dir string) {}, nil},
		{"unstaged edits are not staged", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"modify.lua": "after\n", "untracked.lua": "x\n"})
		}, nil},
		{"add, modify, delete", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"new.lua": "new\n", "modify.lua": "after\n", "dir/deeper/new.lua": "n\n"})
			runGit(t, dir, "add", "new.lua", "modify.lua", "dir/deeper/new.lua")
			runGit(t, dir, "rm", "-q", "delete.lua")
		}, []string{"delete.lua", "dir/deeper/new.lua", "modify.lua", "new.lua"}},
		{"mode only", func(t *testing.T, dir string) {
			chmodX(t, dir, "mode.sh")
			runGit(t, dir, "add", "mode.sh")
		}, []string{"mode.sh"}},
		{"directory removed", func(t *testing.T, dir string) {
			runGit(t, dir, "rm", "-q", "-r", "dir")
		}, []string{"dir/nested.lua", "dir/unchanged.lua"}},
		{"file replaced by directory", func(t *testing.T, dir string) {
			runGit(t, dir, "rm", "-q", "keep.lua")
			writeFiles(t, dir, map[string]string{"keep.lua/inner.lua": "inner\n"})
			runGit(t, dir, "add", "keep.lua/inner.lua")
		}, []string{"keep.lua", "keep.lua/inner.lua"}},
		{"modified back to the committed content", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"modify.lua": "after\n"})
			runGit(t, dir, "add", "modify.lua")
			writeFiles(t, dir, map[string]string{"modify.lua": "before\n"})
			runGit(t, dir, "add", "modify.lua")
		}, nil},
		{"intent to add is left out", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"later.lua": "later\n"})
			runGit(t, dir, "add", "-N", "later.lua")
		}, nil},
		{"merge conflict", func(t *testing.T, dir string) {
			runGit(t, dir, "checkout", "-q", "-b", "other")
			writeFiles(t, dir, map[string]string{"modify.lua": "theirs\n"})
			commitAll(t, dir, "theirs")
			runGit(t, dir, "checkout", "-q", "main")
			writeFiles(t, dir, map[string]string{"modify.lua": "ours\n"})
			commitAll(t, dir, "ours")
			if _, err := gitOutput(dir, nil, "merge", "-q", "other"); err == nil {
				t.Fatal("merge succeeded, want a conflict")
			}
		}, []string{"modify.lua"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			writeFiles(t, dir, base)
			commitAll(t, dir, "base")
			tt.setup(t, dir)
			r := discover(t, dir)

			got, err := r.StagedChanges()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("StagedChanges (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(stagedByGit(t, dir), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("StagedChanges differs from git diff --cached (-git +got):\n%s", diff)
			}

			entries, err := r.Index()
			if err != nil {
				t.Fatal(err)
			}
			ignore := cmpopts.IgnoreFields(IndexEntry{}, "Size", "ModTime", "IntentToAdd")
			if diff := cmp.Diff(lsFiles(t, dir), entries, ignore); diff != "" {
				t.Errorf("Index differs from git ls-files -s (-git +got):\n%s", diff)
			}
			if !slices.IsSortedFunc(entries, func(a, b IndexEntry) int { return strings.Compare(a.Path, b.Path) }) {
				t.Error("Index is not sorted by path")
			}
		})
	}
}

func TestIndexStat(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.lua": "hello\n", "b.lua": ""})
	runGit(t, dir, "add", "-A")
	entries, err := discover(t, dir).Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("Index has %d entries, want 2", len(entries))
	}
	for _, e := range entries {
		info, err := os.Stat(filepath.Join(dir, e.Path))
		if err != nil {
			t.Fatal(err)
		}
		if int64(e.Size) != info.Size() || !e.ModTime.Equal(info.ModTime()) {
			t.Errorf("%s: size %d, mtime %v; the file has %d, %v", e.Path, e.Size, e.ModTime, info.Size(), info.ModTime())
		}
		if e.Mode != 0o100644 || e.Stage != 0 || e.Hash != Hash([]byte(map[string]string{"a.lua": "hello\n", "b.lua": ""}[e.Path])) {
			t.Errorf("entry %+v", e)
		}
	}
}

func TestIndexUnborn(t *testing.T) {
	dir := newRepo(t)
	r := discover(t, dir)
	t.Run("no index file", func(t *testing.T) {
		entries, err := r.Index()
		if err != nil || len(entries) != 0 {
			t.Errorf("Index = %v, %v; want no entries", entries, err)
		}
		staged, err := r.StagedChanges()
		if err != nil || len(staged) != 0 {
			t.Errorf("StagedChanges = %v, %v; want none", staged, err)
		}
	})
	t.Run("everything staged", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{"b.lua": "b", "a/c.lua": "c", "later.lua": "x"})
		runGit(t, dir, "add", "b.lua", "a/c.lua")
		runGit(t, dir, "add", "-N", "later.lua")
		got, err := r.StagedChanges()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a/c.lua", "b.lua"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("StagedChanges (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(stagedByGit(t, dir), got); diff != "" {
			t.Errorf("StagedChanges differs from git diff --cached (-git +got):\n%s", diff)
		}
	})
}

// Unmerged reads the index's conflicted paths by scanning its entries' flags: the
// same paths go-git's whole decoding gives, in index versions 2, 3 (an entry with
// extended flags, from "git add -N") and 4 (paths prefix-compressed), with a merge
// stopped on conflicts.
func TestUnmergedScan(t *testing.T) {
	dir := newRepo(t)
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("src/deep/folder%02d/file%02d.luau", i%7, i), "return 0\n")
	}
	write("src/a.luau", "return 'base'\n")
	write("src/zz/b.luau", "return 'base'\n")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "base")
	runGit(t, dir, "checkout", "-qb", "other")
	write("src/a.luau", "return 'theirs'\n")
	write("src/zz/b.luau", "return 'theirs'\n")
	runGit(t, dir, "commit", "-qam", "theirs")
	runGit(t, dir, "checkout", "-q", "main")
	write("src/a.luau", "return 'ours'\n")
	write("src/zz/b.luau", "return 'ours'\n")
	runGit(t, dir, "commit", "-qam", "ours")
	if _, err := gitOutput(dir, nil, "merge", "-q", "other"); err == nil {
		t.Fatal("the merge did not stop on a conflict")
	}
	write("src/new.luau", "return 'intent'\n")
	runGit(t, dir, "add", "-N", "src/new.luau")
	want := []string{"src/a.luau", "src/zz/b.luau"}
	for _, version := range []string{"2", "3", "4"} {
		runGit(t, dir, "update-index", "--index-version", version)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := scanUnmerged(data)
		slices.Sort(got)
		got = slices.Compact(got)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("index version %s: scanned %v (ok %v), want %v", version, got, ok, want)
		}
		r, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.Unmerged(); err != nil || !slices.Equal(got, want) {
			t.Errorf("index version %s: Unmerged = %v, %v; want %v", version, got, err, want)
		}
	}
	if _, ok := scanUnmerged([]byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01")); ok {
		t.Error("an unknown index version was scanned")
	}
}

// StagedChangesIn reads another index than the repository's own, as git does with
// GIT_INDEX_FILE; GitDirs names the folders such an index lives in.
func TestStagedChangesInAndGitDirs(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.lua": "a\n", "b.lua": "b\n"})
	commitAll(t, dir, "base")
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	writeFiles(t, wt, map[string]string{"a.lua": "a2\n", "b.lua": "b2\n"})
	runGit(t, wt, "add", "b.lua")
	gitDir := runGit(t, wt, "rev-parse", "--absolute-git-dir")
	other := filepath.Join(gitDir, "other-index")

	t.Setenv("GIT_INDEX_FILE", other)
	runGit(t, wt, "read-tree", "HEAD")
	runGit(t, wt, "add", "a.lua")
	want := stagedByGit(t, wt)
	os.Unsetenv("GIT_INDEX_FILE")

	r := discover(t, wt)
	got, err := r.StagedChangesIn(other)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.lua"}, got); diff != "" || !slices.Equal(want, got) {
		t.Errorf("StagedChangesIn (-want +got):\n%s\ngit diff --cached: %v", diff, want)
	}
	if got, err := r.StagedChanges(); err != nil || !slices.Equal(got, []string{"b.lua"}) {
		t.Errorf("StagedChanges = %v, %v; want the work tree's own index: [b.lua]", got, err)
	}
	if _, err := r.StagedChangesIn(filepath.Join(gitDir, "missing-index")); err == nil {
		t.Error("StagedChangesIn of a missing file: no error")
	}

	dirs, err := r.GitDirs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{realPath(t, gitDir), realPath(t, filepath.Join(dir, ".git"))}; !slices.Equal(dirs, want) {
		t.Errorf("GitDirs of a linked work tree = %v, want %v", dirs, want)
	}
	dirs, err = discover(t, dir).GitDirs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{realPath(t, filepath.Join(dir, ".git"))}; !slices.Equal(dirs, want) {
		t.Errorf("GitDirs = %v, want %v", dirs, want)
	}
}
