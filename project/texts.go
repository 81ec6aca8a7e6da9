package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// Script texts are most of a project's bytes. A tree holds them while a load or a
// plan needs them, and lets them go after (Cache.DropTexts, DropTexts): a script
// then has its hashes only, which is all a plan compares. Whoever needs the text
// again reads it from where it lives, and checks it against those hashes
// (ReadText), so that a text read later is never another than the one planned.

// ErrTextMoved is returned by ReadText when the file no longer holds the text the
// instance's hashes name.
var ErrTextMoved = errors.New("the file changed since it was loaded")

// TextDroppable reports whether x is a script whose text DropTexts may let go: a
// script file of its own (not an init script, whose file is inside its folder, nor
// a script generated from a data file), with its hashes.
func TextDroppable(x *dom.Instance) bool {
	return x.Kind == dom.KindScript && x.FsPath != "" && x.RawHash != "" && x.IsScript()
}

// textDroppable reports whether the script file at p is one whose text a record may
// let go: not an init script, whose instance is its folder's (TextDroppable).
func textDroppable(p string) bool { return !strings.HasPrefix(path.Base(p), "init.") }

// DropTexts lets go of the Source of every script of the tree at root that
// TextDroppable allows, and returns how many it let go. No one may read the tree
// meanwhile.
func DropTexts(root *dom.Instance) int {
	n := 0
	root.Walk(func(x *dom.Instance) bool {
		if _, ok := x.Properties.Lookup("Source"); ok && TextDroppable(x) {
			dom.DropProperty(x, "Source")
			n++
		}
		return true
	})
	return n
}

// DropTexts lets go of the script texts the cache holds: its records' and its
// tree's (see DropTexts). The next load reads a script only when its stat data
// changed. No one may read or load the tree meanwhile.
func (c *Cache) DropTexts() int {
	for p, r := range c.records {
		if r.kind == recScript && r.hasText && textDroppable(p) {
			r.text, r.hasText = "", false
		}
	}
	if c.proj == nil {
		return 0
	}
	return DropTexts(c.proj.Root)
}

// ReadText reads the Source of x, a script of p's tree loaded from fsys, from its
// file, and checks it against x's hashes: its Source hash when it has one, else its
// file's blob id. A file that no longer holds that text gives ErrTextMoved.
func (p *Project) ReadText(fsys fs.FS, x *dom.Instance) (string, error) {
	if x.Kind != dom.KindScript || x.FsPath == "" {
		return "", fmt.Errorf("%s: no file of its own holds its Source", x.Path())
	}
	data, err := fs.ReadFile(fsys, p.pathInFS(x.FsPath))
	if err != nil {
		return "", err
	}
	text := NormalizeSource(string(data))
	switch {
	case x.SourceHash != "":
		if gitblob.HashString(text) != x.SourceHash {
			return "", fmt.Errorf("%s: %w", x.FsPath, ErrTextMoved)
		}
	case x.RawHash != "":
		if gitblob.Hash(data) != x.RawHash {
			return "", fmt.Errorf("%s: %w", x.FsPath, ErrTextMoved)
		}
	}
	return text, nil
}

// ReadText is Project.ReadText for a script of the cache's tree, from the cache's
// file system.
func (c *Cache) ReadText(x *dom.Instance) (string, error) {
	if c.proj != nil {
		return c.proj.ReadText(c.fsys, x)
	}
	dir := path.Dir(c.file)
	if dir == "." {
		dir = ""
	}
	return (&Project{Dir: dir}).ReadText(c.fsys, x)
}
