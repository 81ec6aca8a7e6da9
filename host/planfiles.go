package host

import (
	"io/fs"
	"slices"

	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// maxNewFiles bounds the Studio-only instances filesOf lays out: each reads its
// parent folder, and a person does not read thousands of lines anyway (the view
// names the others by their path in Studio).
const maxNewFiles = 500

// filesOf names the file a pull writes where a change's fsPath names none: for an
// instance only Studio has, the file (or folder, ending in "/") it would create,
// the first of the writes of project.PullAdd, which apply runs; for an instance a
// project file declares, that project file. Changes a pull cannot write are left
// out. The scripts it lays out get their texts back first (t); the caller holds
// the Studio lock.
func filesOf(c *computed, fsys fs.FS, t *texts) map[string]string {
	out := map[string]string{}
	idx := c.disk.Index()
	laidOut := 0
	for _, ch := range c.plan.Changes {
		switch {
		case ch.PatchType == plan.Edit && ch.FsPath != "" && ch.Direction != plan.Push && ch.Disk != nil && ch.Studio != nil &&
			!slices.Contains(ch.Fields, "Source") && laidOut < maxNewFiles:
			// Properties only: a pull may write them in another file than the
			// instance's own (a script's meta file).
			laidOut++
			ops, err := project.PullEdit(c.disk, fsys, ch.Disk, ch.Studio, ch.Fields)
			if err == nil && len(ops) > 0 && ops[0].Path != ch.FsPath {
				out[ch.ID] = ops[0].Path
			}
		case ch.FsPath != "":
		case ch.PatchType == plan.Edit && ch.Disk != nil && ch.Disk.ProjectFile() != "":
			out[ch.ID] = ch.Disk.ProjectFile()
		case ch.PatchType == plan.Remove && ch.Studio != nil && ch.Studio.Parent != nil && laidOut < maxNewFiles:
			laidOut++
			parent := idx[ch.Studio.Parent.ID]
			if parent == nil {
				continue
			}
			if t.hydrate(true, ch.Studio) != nil {
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
	}
	return out
}
