package project

import (
	"io/fs"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// ResolveSourceHashes gives every script of p, loaded from fsys with HashOnly,
// its Source hash. The blob id of a file's bytes (RawHash, which a commit's tree
// already holds) is the Source hash unless the file has CRLF line endings, which
// Source does not keep; so a file is read only when no instance with the same id
// in others (the disk and Studio trees, by id) has RawHash as its Source hash.
// It writes into p's tree: no one may read p meanwhile.
func (p *Project) ResolveSourceHashes(fsys fs.FS, others ...map[string]*dom.Instance) {
	p.Root.Walk(func(x *dom.Instance) bool {
		if !x.IsScript() || x.SourceHash != "" || x.RawHash == "" {
			return true
		}
		for _, o := range others {
			if oi := o[x.ID]; oi != nil && oi.SourceHash == x.RawHash {
				x.SourceHash = x.RawHash
				return true
			}
		}
		data, err := fs.ReadFile(fsys, p.pathInFS(x.FsPath))
		if err != nil {
			x.SourceHash = x.RawHash
			return true
		}
		src := NormalizeSource(string(data))
		x.Properties.Set("Source", dom.String(src))
		x.SourceHash = gitblob.HashString(src)
		return true
	})
}

// ReadSource reads the Source of x, a script of p's tree loaded from fsys with
// HashOnly (which has only its file's blob id), from its file.
func (p *Project) ReadSource(fsys fs.FS, x *dom.Instance) (string, error) {
	data, err := fs.ReadFile(fsys, p.pathInFS(x.FsPath))
	if err != nil {
		return "", err
	}
	return NormalizeSource(string(data)), nil
}

// pathInFS is the fs path of a file given relative to the project's folder.
func (p *Project) pathInFS(rel string) string {
	if p.Dir == "" {
		return rel
	}
	return p.Dir + "/" + rel
}
