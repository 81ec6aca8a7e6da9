package project

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// The base tree is the project at a commit, loaded with Options.HashOnly (scripts
// need only the blob ids their tree entries hold). Four things make it cheap:
//
//   - when every file the disk tree was loaded from has the same blob id in the
//     commit (a commit of the current disk state), the disk tree is the base;
//   - when only script files differ (the scripts edited since the commit, the
//     usual case), the base is the disk tree with those scripts' blob ids, sharing
//     every subtree without them (withScripts): the text of a script file changes
//     nothing else in the tree;
//   - a file whose blob id equals its disk record's is not read from git: the
//     record's parsed form is used;
//   - the last base tree is kept in a file of the state dir, by commit, so a
//     restarted host does not build it again. It is written by SaveBase, which
//     the host calls when it has been idle a moment and when it stops, rather
//     than on the plan that built it: encoding a tree of tens of thousands of
//     instances costs as much as a good part of that plan.

const (
	baseKind    = "atlas base tree"
	baseVersion = 1
)

// BaseSource says where Base found the tree it returned.
type BaseSource string

// The sources of a base tree.
const (
	BaseFromDisk   BaseSource = "disk"   // the disk tree itself: the commit holds the same files
	BaseFromFile   BaseSource = "file"   // the state dir's file of the commit
	BaseFromCommit BaseSource = "commit" // loaded from the commit, with the disk's records
	// BaseFromDiskScripts is the disk tree with the commit's version of the script
	// files edited since (sharing the rest): the commit differs from the disk in their
	// text only.
	BaseFromDiskScripts BaseSource = "disk-scripts"
)

// Base returns the project at a commit, as Load(fsys, file, {HashOnly: true})
// would, where fsys is the commit's tree (gitblob's CommitFS, which knows blob ids)
// and commit its id. cacheFile, if not "", is a state-dir file that keeps the last
// base tree loaded, for the next process.
//
// A tree built from the commit is kept in cacheFile by SaveBase, not by Base.
//
// The tree may be the cache's disk tree itself (BaseFromDisk), whose scripts carry
// their Source where a base tree has only hashes; callers must not change it.
// Base reads the cache's records: do not run it while Load or Update runs.
func (c *Cache) Base(fsys fs.FS, commit, cacheFile string) (*Project, BaseSource, error) {
	edited, same := c.diffFrom(fsys)
	if same && len(edited) == 0 {
		c.unsaved = nil // a restarted host finds the disk tree the base again
		return c.proj, BaseFromDisk, nil
	}
	if same {
		if p := c.withScripts(edited); p != nil {
			c.unsaved = nil // as cheap to make again as to read
			return p, BaseFromDiskScripts, nil
		}
	}
	opts := c.opts
	opts.HashOnly = true
	if cacheFile != "" {
		if p, err := readBase(cacheFile, commit, c.file, opts); err == nil {
			return p, BaseFromFile, nil
		}
	}
	m := &memo{records: map[string]*record{}, shared: c.records, mode: byBlob}
	if _, ok := fsys.(gitblob.BlobHasher); !ok {
		m = nil
	}
	p, err := loadWith(fsys, c.file, opts, m)
	if err != nil {
		return nil, "", err
	}
	c.unsaved = nil
	if cacheFile != "" {
		c.unsaved = &savedBase{path: cacheFile, commit: commit, proj: p}
	}
	return p, BaseFromCommit, nil
}

// savedBase is a base tree to keep in a state-dir file.
type savedBase struct {
	path, commit string
	proj         *Project
}

// SaveBase writes the last base tree Base built from a commit to the file Base was
// given, once, and reports whether it wrote one. The tree may have been given its
// scripts' Source hashes since (ResolveSourceHashes, which a later load of the file
// then skips, as it gives the same hashes): SaveBase must not run while anything
// changes the tree, nor while Base runs.
func (c *Cache) SaveBase() (bool, error) {
	u := c.unsaved
	if u == nil {
		return false, nil
	}
	c.unsaved = nil
	opts := c.opts
	opts.HashOnly = true
	if err := writeBase(u.path, u.commit, c.file, opts, u.proj); err != nil {
		return false, err
	}
	return true, nil
}

// diffFrom compares fsys with what the last load read. same reports that every
// folder it listed has the same names that matter in fsys, every path it probed is
// there or not there alike, and every file it read is in fsys, with the same blob id
// but for the script files in edited (their blob ids in fsys, by path): loading fsys
// gives the disk tree when edited is empty, and the disk tree with those scripts'
// texts otherwise. A file other than a script with another blob id, or none, is
// not the same.
func (c *Cache) diffFrom(fsys fs.FS) (edited map[string]string, same bool) {
	bh, ok := fsys.(gitblob.BlobHasher)
	if c.proj == nil || c.symlink || c.unverified || c.inputs == nil || !ok {
		return nil, false
	}
	for p, r := range c.records {
		h, err := bh.BlobHash(p)
		if err != nil {
			return nil, false
		}
		if h != r.hash {
			if r.kind != recScript {
				return nil, false
			}
			if edited == nil {
				edited = map[string]string{}
			}
			edited[p] = h
		}
	}
	for dir, in := range c.inputs.dirs {
		entries, err := fs.ReadDir(fsys, fsName(dir))
		if err != nil {
			return nil, false
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmpString(a.Name(), b.Name()) })
		if sumNames(in.ctx, dir, entries) != in.names {
			return nil, false
		}
	}
	for p, pr := range c.inputs.probes {
		var st fs.FileInfo
		var err error
		if pr.lstat {
			st, err = fs.Lstat(fsys, fsName(p))
		} else {
			st, err = fs.Stat(fsys, fsName(p))
		}
		k := probeAbsent
		switch {
		case err == nil:
			k = fileKind(st.Mode())
		case !errors.Is(err, fs.ErrNotExist):
			return nil, false
		}
		if k != pr.kind {
			return nil, false
		}
	}
	return edited, true
}

// withScripts returns the disk tree as the commit has it: the scripts loaded from
// the files in edited have the blob ids edited gives, and no Source or Source hash,
// as a load of the commit with HashOnly makes them. It is nil when one of those
// files is not a script file's own (an init script is its folder's), or the tree
// records files.
//
// Only those scripts and the instances above them are copies: every other subtree
// is the disk tree's own (the same *dom.Instance, as trees of the disk cache share
// what did not change), so the base costs the memory of the paths to the edited
// scripts, not a second tree. The root of a shared subtree keeps the disk tree's
// parent, an instance with the same id, name and path as the copy above it.
func (c *Cache) withScripts(edited map[string]string) *Project {
	d := c.proj
	if d.Files != nil {
		return nil
	}
	found := map[string]bool{}
	var walk func(orig *dom.Instance) *dom.Instance // nil: shared as it is
	walk = func(orig *dom.Instance) *dom.Instance {
		var copied *dom.Instance
		if orig.Kind == dom.KindScript && orig.FsPath != "" {
			p := d.pathInFS(orig.FsPath)
			if blob, ok := edited[p]; ok {
				cp := *orig
				cp.Properties = orig.Properties.Clone()
				cp.Properties.Delete("Source")
				cp.RawHash, cp.SourceHash = blob, ""
				copied = &cp
				found[p] = true
			}
		}
		var kids []*dom.Instance
		for i, ch := range orig.Children {
			if cc := walk(ch); cc != nil {
				if kids == nil {
					kids = slices.Clone(orig.Children)
				}
				kids[i] = cc
			}
		}
		if kids == nil {
			return copied
		}
		if copied == nil {
			// Its own property list: a script can be above others (a project
			// node with children), and texts are let go and read back per tree.
			cp := *orig
			cp.Properties = orig.Properties.Clone()
			copied = &cp
		}
		copied.Children = kids
		for i, k := range kids {
			if k != orig.Children[i] {
				k.Parent = copied
			}
		}
		return copied
	}
	root := walk(d.Root)
	if len(found) != len(edited) || root == nil {
		return nil
	}
	root.Parent = nil
	return &Project{File: d.File, Dir: d.Dir, Name: d.Name, Root: root, ServePort: d.ServePort,
		ServePlaceIDs: d.ServePlaceIDs, BlockedPlaceIDs: d.BlockedPlaceIDs, PlaceID: d.PlaceID,
		GameID: d.GameID, EmitLegacyScripts: d.EmitLegacyScripts, Warnings: d.Warnings}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func writeBase(path, commit, file string, opts Options, p *Project) error {
	var e dom.Encoder
	e.Text(commit)
	e.Text(file)
	e.Text(opts.DirName)
	e.Bool(opts.HashOnly)
	e.Text(p.File)
	e.Text(p.Dir)
	e.Text(p.Name)
	e.Varint(int64(p.ServePort))
	writeIDs(&e, p.ServePlaceIDs)
	writeIDs(&e, p.BlockedPlaceIDs)
	e.Uvarint(p.PlaceID)
	e.Uvarint(p.GameID)
	e.Bool(p.EmitLegacyScripts)
	e.Uvarint(uint64(len(p.Warnings)))
	for _, w := range p.Warnings {
		e.Text(w)
	}
	if err := e.Instance(p.Root); err != nil {
		return fmt.Errorf("write base tree: %w", err)
	}
	// Ids are stored rather than hashed again: 16 bytes each, in tree order.
	var bad error
	p.Root.Walk(func(x *dom.Instance) bool {
		b, err := hex.DecodeString(x.ID)
		if err != nil || len(b) != 16 {
			bad = fmt.Errorf("write base tree: bad id %q", x.ID)
			return false
		}
		e.Raw(b)
		return true
	})
	if bad != nil {
		return bad
	}
	return statefile.Write(path, baseKind, baseVersion, e.Bytes())
}

func writeIDs(e *dom.Encoder, ids []uint64) {
	e.Bool(ids != nil)
	e.Uvarint(uint64(len(ids)))
	for _, id := range ids {
		e.Uvarint(id)
	}
}

func readIDs(d *dom.Decoder) []uint64 {
	isNil := !d.Bool()
	n := d.Count(1)
	if isNil {
		return nil
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = d.Uvarint()
	}
	return ids
}

// errOtherBase means the base file holds another commit or project.
var errOtherBase = errors.New("the base file is of another commit")

func readBase(path, commit, file string, opts Options) (*Project, error) {
	data, _, err := statefile.Read(path, baseKind, baseVersion)
	if err != nil {
		return nil, err
	}
	d := dom.NewDecoder(data)
	if d.Text() != commit || d.Text() != file || d.Text() != opts.DirName || d.Bool() != opts.HashOnly {
		return nil, errOtherBase
	}
	p := &Project{File: d.Text(), Dir: d.Text(), Name: d.Text(), ServePort: int(d.Varint())}
	p.ServePlaceIDs = readIDs(d)
	p.BlockedPlaceIDs = readIDs(d)
	p.PlaceID = d.Uvarint()
	p.GameID = d.Uvarint()
	p.EmitLegacyScripts = d.Bool()
	if n := d.Count(1); n > 0 {
		p.Warnings = make([]string, n)
		for i := range p.Warnings {
			p.Warnings[i] = d.Text()
		}
	}
	p.Root = d.Instance()
	if d.Err() != nil {
		return nil, d.Err()
	}
	var buf [32]byte
	p.Root.Walk(func(x *dom.Instance) bool {
		b := d.Raw(16)
		if b == nil {
			return false
		}
		hex.Encode(buf[:], b)
		x.ID = string(buf[:])
		return true
	})
	if d.Err() != nil || d.Len() != 0 {
		return nil, fmt.Errorf("%w: bad ids", dom.ErrCorrupt)
	}
	return p, nil
}
