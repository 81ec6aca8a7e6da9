package host

import (
	"context"
	"errors"
	"io/fs"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// Script texts are the biggest part of what the host would hold: at 10,000 scripts,
// 40 MB, which the disk and Studio trees share where they are equal (almost a third
// of the live heap). A plan compares scripts by their hashes, so after a plan that
// read every text (a whole disk load or snapshot) and when the host goes idle, the
// trees let go of every text that can be read again from where it lives:
//
//   - a disk script's, from its file (project.Cache.DropTexts);
//   - a base script's, from the commit;
//   - a Studio script's whose hash is a disk or base script's, from that file or
//     commit. A text only Studio has (an edit made there) is kept.
//
// What needs a text (an apply, whose journal holds what it overwrites; a plan asked
// for sources; a pulled script's file) reads it back first (hydrate), under the
// Studio lock, and checks it against the hash the plan compared: a file that changed
// since is refused as moved, never written or journaled as if it were the planned
// text. Studio is asked for a text nothing else holds, checked the same way.

// dropTexts lets go of the texts the trees hold that can be read again (see above),
// and returns how many. The caller holds the Studio lock.
func (h *Host) dropTexts(snaps *snapshots) int {
	files := h.disk.dropTexts()
	readable := map[string]bool{} // the hashes of texts a file or the commit holds
	addReadable := func(root *dom.Instance) {
		root.Walk(func(x *dom.Instance) bool {
			if project.TextDroppable(x) && x.SourceHash != "" {
				readable[x.SourceHash] = true
			}
			return true
		})
	}
	if p := h.disk.cache.Project(); p != nil {
		addReadable(p.Root)
	}
	if b := h.bases.last(); b != nil {
		files += h.disk.mutate(func() int { return project.DropTexts(b.proj.Root) })
		addReadable(b.proj.Root)
	}
	studio := snaps.c.dropTexts(readable)
	if files+studio > 0 {
		h.log.Debug("script texts let go", "files", files, "studio", studio)
	}
	return files + studio
}

// dropTexts lets go of the Studio texts whose hash is in readable: in the cached
// tree, the sources kept by handle, and the ones the last apply pushed.
func (c *studioCache) dropTexts(readable map[string]bool) int {
	n := 0
	if c.tree != nil {
		c.tree.Walk(func(x *dom.Instance) bool {
			if _, ok := x.Properties.Lookup("Source"); ok && readable[x.SourceHash] && x.IsScript() {
				dom.DropProperty(x, "Source")
				n++
			}
			return true
		})
	}
	for k, s := range c.byHandle {
		if s.source != nil && readable[s.hash] {
			c.byHandle[k] = cachedSource{hash: s.hash}
		}
	}
	for k, v := range c.pushed {
		if v != nil && readable[k] {
			c.pushed[k] = nil
		}
	}
	return n
}

// texts reads back the texts of a computed plan's scripts. It is used under the
// Studio lock that computed the plan.
type texts struct {
	h   *Host
	c   *computed
	ctx context.Context
	// disk and base are the instances of those trees by id; byHash their scripts
	// by Source hash, built when first needed.
	disk, base map[string]*dom.Instance
	byHash     map[string][]*dom.Instance
}

func (h *Host) texts(ctx context.Context, c *computed) *texts {
	t := &texts{h: h, c: c, ctx: ctx, disk: c.disk.Index()}
	if c.base != nil {
		t.base = c.base.proj.Index()
	}
	return t
}

// change gives the scripts a change writes or overwrites their Source (hydrate):
// the instances of an edit, the subtrees of an addition, a removal, or an edit that
// changes the class (which Studio makes by removing the instance and adding the
// disk's subtree).
func (t *texts) change(ch *plan.Change, sides ...*dom.Instance) error {
	deep := ch.PatchType != plan.Edit || ch.Disk != nil && ch.Studio != nil && ch.Disk.ClassName != ch.Studio.ClassName
	return t.hydrate(deep, sides...)
}

// hydrate gives every script of roots (of their subtrees, with deep) its Source,
// read back where the tree let it go. A text that cannot be read as it was planned
// fails it, with E_PRECONDITION_FAILED (disk_moved or studio_moved) when it changed
// since.
func (t *texts) hydrate(deep bool, roots ...*dom.Instance) error {
	for _, r := range roots {
		if r == nil {
			continue
		}
		var err error
		r.Walk(func(x *dom.Instance) bool {
			if err == nil && x.IsScript() {
				if _, ok := x.Properties.Lookup("Source"); !ok {
					err = t.read(x)
				}
			}
			return err == nil && deep
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// read reads x's text back: from its own file or commit, else from any disk or base
// script with the same hash, else from Studio for a Studio script.
func (t *texts) read(x *dom.Instance) error {
	onDisk := t.disk[x.ID] == x
	inBase := !onDisk && t.base != nil && t.base[x.ID] == x
	if x.SourceHash == "" && x.RawHash == "" {
		return nil // a script with no text to read (Studio sent none, or it is new)
	}
	var err error
	switch {
	case onDisk:
		var text string
		if text, err = t.h.disk.readText(x); err == nil {
			t.set(x, text)
			return nil
		}
	case inBase:
		var text string
		if text, err = t.c.base.proj.ReadText(t.c.base.fsys, x); err == nil {
			t.set(x, text)
			return nil
		}
	}
	if x.SourceHash != "" {
		if text, ok := t.sameIDText(x); ok {
			t.set(x, text)
			return nil
		}
		if text, ok := t.byHashText(x.SourceHash); ok {
			t.set(x, text)
			return nil
		}
	}
	if !onDisk && !inBase && x.Handle != "" && x.SourceHash != "" && t.c.session != nil {
		res, serr := t.c.session.GetScript(t.ctx, protocol.GetScriptParams{Handle: x.Handle})
		if serr != nil {
			return serr
		}
		if actual := gitblob.HashString(res.Source); actual != x.SourceHash {
			return errcode.New(errcode.PreconditionFailed, "%s changed in Studio after the plan was recomputed", x.Path()).
				Reason(errcode.ReasonStudioMoved, errcode.NextReplan).
				With("failures", []map[string]any{{"path": x.Path(), "field": "studioHash", "expected": x.SourceHash, "actual": actual}})
		}
		t.set(x, res.Source)
		return nil
	}
	if onDisk && (errors.Is(err, project.ErrTextMoved) || errors.Is(err, fs.ErrNotExist)) {
		return errcode.New(errcode.PreconditionFailed, "%s changed on disk after the plan was recomputed", x.FsPath).
			Reason(errcode.ReasonDiskMoved, errcode.NextReplan).
			With("failures", []map[string]any{{"path": x.FsPath, "field": "diskHash", "expected": x.SourceHash}})
	}
	msg := "no file, commit or Studio holds it any longer"
	if err != nil {
		msg = err.Error()
	}
	return errcode.New(errcode.PreconditionFailed, "the Source of %s could not be read back as planned: %s", x.Path(), msg).
		Reason(errcode.ReasonSourceNotLoaded, errcode.NextReplan).With("path", x.Path())
}

// sameIDText reads x's text from the base or disk script of its id, when that one
// has the same hash: the usual case (a Studio script the plan matched with its file
// or commit), found without indexing every script of both trees.
func (t *texts) sameIDText(x *dom.Instance) (string, bool) {
	for _, tree := range []map[string]*dom.Instance{t.base, t.disk} {
		if y := tree[x.ID]; y != nil && y != x && y.SourceHash == x.SourceHash && y.IsScript() {
			if text, ok := t.textOf(y); ok {
				return text, true
			}
		}
	}
	return "", false
}

// byHashText reads the text with Source hash h from a disk or base script that has
// it, the ones holding it first.
func (t *texts) byHashText(h string) (string, bool) {
	if t.byHash == nil {
		t.h.textIndexes.Add(1)
		t.byHash = map[string][]*dom.Instance{}
		for _, tree := range []map[string]*dom.Instance{t.disk, t.base} {
			for _, x := range tree {
				if x.SourceHash != "" && x.IsScript() {
					t.byHash[x.SourceHash] = append(t.byHash[x.SourceHash], x)
				}
			}
		}
	}
	for _, y := range t.byHash[h] {
		if src, ok := y.Properties.Get("Source").(dom.String); ok {
			return string(src), true
		}
	}
	for _, y := range t.byHash[h] {
		if text, ok := t.textOf(y); ok {
			return text, true
		}
	}
	return "", false
}

// textOf gives the text of y, a disk or base script: the one it holds, else its
// file's or commit's.
func (t *texts) textOf(y *dom.Instance) (string, bool) {
	if src, ok := y.Properties.Get("Source").(dom.String); ok {
		return string(src), true
	}
	var text string
	var err error
	if t.disk[y.ID] == y {
		text, err = t.h.disk.readText(y)
	} else {
		text, err = t.c.base.proj.ReadText(t.c.base.fsys, y)
	}
	return text, err == nil
}

// set gives x its text; a disk instance's under the disk cache's tree lock.
func (t *texts) set(x *dom.Instance, text string) {
	if t.disk[x.ID] == x {
		t.h.disk.mutate(func() int { x.Properties.Set("Source", dom.String(text)); return 1 })
		return
	}
	x.Properties.Set("Source", dom.String(text))
}
