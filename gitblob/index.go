package gitblob

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// IndexEntry is one entry of the index (staging area).
type IndexEntry struct {
	Path    string    // slash-separated, relative to the work tree root
	Hash    string    // blob id, or commit id for a submodule
	Mode    uint32    // git mode: 0o100644, 0o100755, 0o120000 or 0o160000
	Size    uint32    // size of the work tree file when it was staged, truncated to 32 bits
	ModTime time.Time // modification time of the work tree file when it was staged
	Stage   int       // 0 normally; 1 (base), 2 (ours), 3 (theirs) during a merge conflict

	// IntentToAdd marks a path recorded by "git add -N": known to git but with
	// no content staged yet.
	IntentToAdd bool
}

// Index returns the entries of the index sorted by path, then stage. A
// repository without an index file has no entries.
func (r *Repo) Index() ([]IndexEntry, error) {
	unlock := r.lock()
	idx, err := r.repo.Storer.Index()
	unlock()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	return indexEntries(idx), nil
}

// IndexFile returns the entries of the index file at path (absolute), sorted as
// Index sorts them: another index than the repository's own, such as the one
// "git commit -a" or "git commit <paths>" stages into and names in
// GIT_INDEX_FILE for the hooks it runs. The caller decides which files may be
// read; see GitDirs.
func IndexFile(path string) ([]IndexEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	return indexEntries(idx), nil
}

func indexEntries(idx *index.Index) []IndexEntry {
	entries := make([]IndexEntry, len(idx.Entries))
	for i, e := range idx.Entries {
		entries[i] = IndexEntry{
			Path:        e.Name,
			Hash:        e.Hash.String(),
			Mode:        uint32(e.Mode),
			Size:        e.Size,
			ModTime:     e.ModifiedAt,
			Stage:       int(e.Stage),
			IntentToAdd: e.IntentToAdd,
		}
	}
	// Git writes the index in this order already; sorting guards against
	// relying on that.
	slices.SortFunc(entries, func(a, b IndexEntry) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Stage, b.Stage))
	})
	return entries
}

// StagedChanges returns the sorted slash paths whose index entry differs from
// the HEAD commit's tree: added, modified (content or mode), deleted and
// conflicted paths, as `git diff --cached --name-only` prints them. Paths
// added with "git add -N" are left out, as git does. With an unborn HEAD
// every indexed path is staged.
func (r *Repo) StagedChanges() ([]string, error) {
	entries, err := r.Index()
	if err != nil {
		return nil, err
	}
	return r.stagedChanges(entries)
}

// StagedChangesIn is StagedChanges for the index file at path (absolute) rather
// than the repository's own; see IndexFile.
func (r *Repo) StagedChangesIn(path string) ([]string, error) {
	entries, err := IndexFile(path)
	if err != nil {
		return nil, err
	}
	return r.stagedChanges(entries)
}

func (r *Repo) stagedChanges(entries []IndexEntry) ([]string, error) {
	head, err := r.headTree()
	if err != nil {
		return nil, err
	}
	var changed []string
	inIndex := make(map[string]bool, len(entries))
	for _, e := range entries {
		inIndex[e.Path] = true
		if e.IntentToAdd {
			continue
		}
		n := head[e.Path]
		if e.Stage != 0 || n == nil || n.isDirMode() || n.hash.String() != e.Hash || canonMode(n.mode) != canonMode(e.Mode) {
			changed = append(changed, e.Path)
		}
	}
	for p, n := range head {
		if p != "." && !n.isDirMode() && !inIndex[p] {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	return slices.Compact(changed), nil
}

// isDirMode reports whether n is a real directory; a submodule compares
// like a file.
func (n *node) isDirMode() bool { return n.mode == modeDir }

// headTree returns HEAD's tree by path, or an empty map when HEAD is unborn.
func (r *Repo) headTree() (map[string]*node, error) {
	nodes := map[string]*node{}
	err := r.do(func() error {
		unborn, err := r.unborn()
		if err != nil || unborn {
			return err
		}
		ref, err := r.repo.Head()
		if err != nil {
			return fmt.Errorf("read HEAD: %w", err)
		}
		c, err := object.GetCommit(r.repo.Storer, ref.Hash())
		if err != nil {
			return fmt.Errorf("read commit %s: %w", ref.Hash(), err)
		}
		root, err := r.readRoot(c.TreeHash)
		if err != nil {
			return fmt.Errorf("read tree of HEAD: %w", err)
		}
		nodes = pathsOf(root)
		return nil
	})
	return nodes, err
}

// canonMode maps a mode to the few git records in an index, as git does
// before comparing: old trees may hold modes like 100664.
func canonMode(m uint32) uint32 {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return modeExec
		}
		return modeFile
	case 0o040000:
		return modeDir
	case 0o120000:
		return modeSymlink
	case 0o160000:
		return modeGitlink
	}
	return m
}

// Unmerged returns the sorted slash paths the index holds in conflict (stage 1, 2
// or 3: a merge, rebase, cherry-pick or stash apply stopped on them), relative to
// the work tree root. The index is read again only when its file changed (size or
// modification time) since the last call.
func (r *Repo) Unmerged() ([]string, error) {
	st, err := r.storage.Filesystem().Stat("index")
	if err != nil {
		return nil, nil // no index file: nothing staged, nothing in conflict
	}
	r.unmergedMu.Lock()
	defer r.unmergedMu.Unlock()
	if r.unmergedSeen && st.Size() == r.unmergedSize && st.ModTime().Equal(r.unmergedMod) {
		return r.unmerged, nil
	}
	var out []string
	if f, err := r.storage.Filesystem().Open("index"); err == nil {
		data, rerr := io.ReadAll(f)
		f.Close()
		var ok bool
		if rerr == nil {
			out, ok = scanUnmerged(data)
		}
		if !ok {
			out = nil
			entries, err := r.Index()
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if e.Stage != 0 && (len(out) == 0 || out[len(out)-1] != e.Path) {
					out = append(out, e.Path)
				}
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	r.unmerged, r.unmergedSize, r.unmergedMod, r.unmergedSeen = out, st.Size(), st.ModTime(), true
	return out, nil
}

// scanUnmerged lists the paths of the index file data's entries at a stage other
// than 0, reading only each entry's flags (and its path where the stage is set):
// at 175,000 entries, go-git's whole decoding takes about 300 ms, this scan a few.
// ok is false for a file it does not know how to read (the caller decodes it whole).
func scanUnmerged(data []byte) (paths []string, ok bool) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(data[8:12])
	pos := 12
	var prev []byte // version 4: the previous path, which the next one shares a prefix of
	for range n {
		start := pos
		if pos+62 > len(data) {
			return nil, false
		}
		flags := binary.BigEndian.Uint16(data[pos+60 : pos+62])
		pos += 62
		if version >= 3 && flags&0x4000 != 0 {
			pos += 2 // extended flags
		}
		stage := (flags >> 12) & 3
		var name []byte
		if version == 4 {
			strip, k := binary.Uvarint(data[pos:])
			if k <= 0 || int(strip) > len(prev) {
				return nil, false
			}
			pos += k
			end := bytes.IndexByte(data[pos:], 0)
			if end < 0 {
				return nil, false
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], data[pos:pos+end]...)
			pos += end + 1
			prev = name
		} else {
			end := bytes.IndexByte(data[pos:], 0)
			if end < 0 {
				return nil, false
			}
			name = data[pos : pos+end]
			// The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
			pos = start + (pos+end-start+8)&^7
		}
		if pos > len(data) {
			return nil, false
		}
		if stage != 0 {
			paths = append(paths, string(name))
		}
	}
	return paths, true
}
