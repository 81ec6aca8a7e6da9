package host

import (
	"io/fs"

	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// maxNewFiles bounds the Studio-only instances newFilesOf lays out: each reads its
// parent folder, and a person does not read thousands of lines anyway (the view
// names the others by their path in Studio).
const maxNewFiles = 500

// newFilesOf names, for each instance only Studio has, the file (or folder, ending
// in "/") a pull would create: the first of the writes project.PullAdd, which
// apply runs, would make. Changes a pull cannot write are left out.
func newFilesOf(c *computed, fsys fs.FS) map[string]string {
	out := map[string]string{}
	idx := c.disk.Index()
	laidOut := 0
	for _, ch := range c.plan.Changes {
		if ch.PatchType != plan.Remove || ch.Studio == nil || ch.Studio.Parent == nil {
			continue
		}
		if laidOut++; laidOut > maxNewFiles {
			break
		}
		parent := idx[ch.Studio.Parent.ID]
		if parent == nil {
			continue
		}
		ops, err := project.PullAdd(c.disk, fsys, parent, ch.Studio)
		if err != nil || len(ops) == 0 {
			continue
		}
		path := ops[0].Path
		if ops[0].Dir {
			path += "/"
		}
		out[ch.ID] = path
	}
	return out
}
